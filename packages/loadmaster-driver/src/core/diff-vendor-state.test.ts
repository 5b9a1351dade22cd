import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DesiredState } from '@portolan/desired-state';
import { diffVendorState } from './diff-vendor-state.ts';
import { renderVendorState } from './render-vendor-state.ts';
import type { LmTargetVs, LmVendorState } from './lm-vendor-state.ts';
import { binding, certificate, desiredState, member, pool, route, virtualService } from '../testing/desired-builder.ts';

const config = { appliance: 'lm1', defaultAddress: null };
const render = (d: DesiredState): LmVendorState => renderVendorState(d, config);
const empty: LmVendorState = {
  virtualServices: [],
  rules: [],
  certificates: [],
  bindings: [],
  targets: [],
  skipped: [],
};
const kinds = (ops: readonly { objectType: string; action: string }[]): string[] =>
  ops.map((o) => `${o.objectType}:${o.action}`);

function ingress(members: ReturnType<typeof member>[], fingerprint = 'f1'): DesiredState {
  return desiredState({
    virtualServices: [
      virtualService(
        'web-443',
        [route('shop.example.com', '/api', 'Prefix', 'api'), route('shop.example.com', '/', 'Prefix', 'front')],
        {
          port: 443,
          protocol: 'https',
          certificates: ['shop-tls'],
        },
      ),
    ],
    pools: [pool('api', members), pool('front', [member('10.1.1.1', 80)])],
    certificates: [certificate('shop-tls', fingerprint)],
  });
}

test('converge from empty: certificate, rules, VS, SubVSs with rule assignments and real servers, in reference order', () => {
  const ops = diffVendorState(render(ingress([member('10.1.0.1', 8080)])), empty);
  assert.deepEqual(kinds(ops), [
    'certificate:create',
    'rule:create',
    'rule:create',
    'virtual-service:create',
    'sub-vs:create',
    'rule-assignment:create',
    'real-server:create',
    'sub-vs:create',
    'rule-assignment:create',
    'real-server:create',
  ]);
});

test('no change → no operations', () => {
  const state = render(ingress([member('10.1.0.1', 8080)]));
  assert.deepEqual(diffVendorState(state, state), []);
});

test('one endpoint added, removed or draining → exactly one operation', () => {
  const before = render(ingress([member('10.1.0.1', 8080)]));
  assert.deepEqual(
    kinds(diffVendorState(render(ingress([member('10.1.0.1', 8080), member('10.1.0.2', 8080)])), before)),
    ['real-server:create'],
  );
  assert.deepEqual(kinds(diffVendorState(render(ingress([])), before)), ['real-server:delete']);
  const draining = diffVendorState(render(ingress([member('10.1.0.1', 8080, 'draining')])), before);
  assert.deepEqual(kinds(draining), ['real-server:update']);
  assert.equal(draining[0]?.payload?.['enable'], false);
});

test('a VS deleted on the appliance is recreated with its SubVSs; rules and certificate still there are reused', () => {
  const desired = render(ingress([member('10.1.0.1', 8080)]));
  const observed = { ...desired, virtualServices: [] };
  assert.deepEqual(kinds(diffVendorState(desired, observed)), [
    'virtual-service:create',
    'sub-vs:create',
    'rule-assignment:create',
    'real-server:create',
    'sub-vs:create',
    'rule-assignment:create',
    'real-server:create',
  ]);
});

test('a real server deleted on the appliance is re-added (one operation)', () => {
  const desired = render(ingress([member('10.1.0.1', 8080), member('10.1.0.2', 8080)]));
  const observed = render(ingress([member('10.1.0.1', 8080)]));
  const ops = diffVendorState(desired, observed);
  assert.deepEqual(kinds(ops), ['real-server:create']);
  assert.equal(ops[0]?.payload?.['address'], '10.1.0.2');
});

test('Ingress deleted → the VS goes first (taking SubVSs and RSs with it), then its rules, then its certificate', () => {
  const ops = diffVendorState(render(desiredState({})), render(ingress([member('10.1.0.1', 8080)])));
  assert.deepEqual(kinds(ops), ['virtual-service:delete', 'rule:delete', 'rule:delete', 'certificate:delete']);
});

test('weights: a new canary SubVS is created with Schedule=wrr; an existing one gets one modvs, then nothing', () => {
  const canary = ingress([
    { ...member('10.1.0.1', 8080), weight: 90 },
    { ...member('10.1.0.2', 8080), weight: 10 },
  ]);
  const create = diffVendorState(render(canary), empty).filter((o) => o.objectType === 'sub-vs');
  assert.deepEqual(
    create.map((o) => o.payload?.['params']),
    [{ Schedule: 'wrr' }, undefined],
    'api (weighted) carries it, front (one member) does not',
  );
  const before = render(ingress([member('10.1.0.1', 8080), member('10.1.0.2', 8080)]));
  const withRr: LmVendorState = {
    ...before,
    virtualServices: before.virtualServices.map((v) => ({
      ...v,
      params: { ...v.params, Schedule: 'rr' },
      subVss: v.subVss.map((s) => ({ ...s, params: { Schedule: 'rr' } })),
    })),
  };
  assert.deepEqual(diffVendorState(before, withRr), [], 'equal weights: an rr read back is not compared');
  const ops = diffVendorState(render(canary), withRr);
  assert.deepEqual(
    ops.map((o) => [`${o.objectType}:${o.action}`, o.payload?.['params'] ?? o.payload?.['weight']]),
    [
      ['sub-vs:update', { Schedule: 'wrr' }],
      ['real-server:update', 90],
      ['real-server:update', 10],
    ],
  );
  const converged: LmVendorState = {
    ...render(canary),
    virtualServices: render(canary).virtualServices.map((v) => ({ ...v, params: { ...v.params, Schedule: 'rr' } })),
  };
  assert.deepEqual(diffVendorState(render(canary), converged), []);
});

test('new certificate material: upload the new one, switch CertFile, delete the old one last', () => {
  const ops = diffVendorState(render(ingress([], 'f2')), render(ingress([], 'f1')));
  assert.deepEqual(kinds(ops), ['certificate:create', 'virtual-service:update', 'certificate:delete']);
  assert.doesNotMatch(JSON.stringify(ops), /BEGIN|PRIVATE/);
});

test('a route moving to another pool reassigns its rule; a changed pattern is one modrule', () => {
  const a = desiredState({
    virtualServices: [
      virtualService('v', [route('h.example.com', '/a', 'Prefix', 'p'), route('h.example.com', '/', 'Prefix', 'q')]),
    ],
    pools: [pool('p', []), pool('q', [])],
  });
  const b = desiredState({
    virtualServices: [
      virtualService('v', [route('h.example.com', '/a', 'Prefix', 'q'), route('h.example.com', '/', 'Prefix', 'q')]),
    ],
    pools: [pool('q', [])],
  });
  // Both routes now go to q: the /a rule loses its exclusion of nothing, the '/' rule loses its lookahead for /a.
  assert.deepEqual(kinds(diffVendorState(render(b), render(a))), [
    'rule:update',
    'sub-vs:delete',
    'rule-assignment:create',
  ]);
});

const target = (index: number, rs: [string, number][]): LmTargetVs => ({
  index,
  address: '10.0.0.4',
  port: 80,
  protocol: 'tcp',
  realServers: rs.map(([address, port], i) => ({ address, port, weight: 1, enable: true, rsIndex: i + 1 })),
});

test('Service mode: members become real servers of the bound VS, addressed by index or ip:port:prot', () => {
  for (const t of ['7', '10.0.0.4:80:tcp']) {
    const desired = render(
      desiredState({ bindings: [binding(t, 'echo', [member('10.2.0.1', 8080), member('10.2.0.2', 8080)])] }),
    );
    const observed = {
      ...empty,
      targets: [
        target(7, [
          ['10.2.0.1', 8080],
          ['10.9.9.9', 8080],
        ]),
      ],
    };
    const ops = diffVendorState(desired, observed);
    assert.deepEqual(
      ops.map((o) => `${o.action} ${String(o.payload?.['address'])}`),
      ['delete 10.9.9.9', 'create 10.2.0.2'],
      t,
    );
    assert.ok(ops.every((o) => o.payload?.['scope'] === 'target' && o.payload['vs'] === t));
  }
});

test('Service mode: a missing VS yields one report operation and creates nothing', () => {
  const desired = render(desiredState({ bindings: [binding('8', 'echo', [member('10.2.0.1', 8080)])] }));
  const ops = diffVendorState(desired, { ...empty, targets: [target(7, [])] });
  assert.deepEqual(kinds(ops), ['binding:update']);
  assert.equal(ops[0]?.payload?.['missing'], true);
  assert.match(ops[0]?.summary ?? '', /does not exist.*nothing is created/);
});

test('VSs that are not ours and not bound are never touched', () => {
  const observed = { ...empty, targets: [target(7, [['10.9.9.9', 80]])] };
  assert.deepEqual(diffVendorState(render(desiredState({})), observed), []);
});

test('an unnamed SubVS inside an owned VS (interrupted create) is deleted by index', () => {
  const desired = render(ingress([]));
  const vs = desired.virtualServices[0];
  assert.ok(vs !== undefined);
  const observed = {
    ...desired,
    virtualServices: [
      { ...vs, subVss: [...vs.subVss, { nickname: '', rules: [], realServers: [], index: 42, rsIndex: 9 }] },
    ],
  };
  const ops = diffVendorState(desired, observed);
  assert.deepEqual(kinds(ops), ['sub-vs:delete']);
  assert.equal(ops[0]?.payload?.['index'], 42);
});
