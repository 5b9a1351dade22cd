import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DesiredState, ObjectRef, VirtualService } from '@portolan/desired-state';
import {
  conditionEvents,
  eventKey,
  fullBucket,
  newEvents,
  operationEvents,
  servedHolds,
  takeToken,
  clientGoRateLimit,
} from './kube-write-plan.ts';
import { ingressStatusTargets, mergeLoadBalancerIngress } from './ingress-status.ts';

const ing = (name: string): ObjectRef => ({ cluster: 'c1', kind: 'Ingress', namespace: 'default', name });
const vs = (name: string, address: VirtualService['address'], owners: ObjectRef[]): VirtualService => ({
  name,
  address,
  port: 80,
  protocol: 'http',
  owners,
  certificates: [],
  routes: [],
  defaultPool: null,
  redirectToHttpsPort: null,
  requestScript: null,
  responseScript: null,
  customization: null,
});
const desired = (virtualServices: VirtualService[], conditions: DesiredState['conditions'] = []): DesiredState => ({
  appliance: 'edge',
  driver: 'haproxy',
  virtualServices,
  pools: [],
  certificates: [],
  bindings: [],
  conditions,
});

test('each served Ingress gets the listen addresses of the services it owns a part of', () => {
  const d = desired([
    vs('a-80', { kind: 'default' }, [ing('shop'), ing('blog')]),
    vs('b-443', { kind: 'dedicated', ip: '10.1.1.1' }, [ing('shop')]),
    vs('c-80', { kind: 'shared', ip: 'lb.example.com' }, [ing('api')]),
  ]);
  assert.deepEqual(
    ingressStatusTargets(d, '127.0.0.1').map((t) => [t.ref.name, t.entries]),
    [
      ['api', [{ hostname: 'lb.example.com' }]],
      ['blog', [{ ip: '127.0.0.1' }]],
      ['shop', [{ ip: '10.1.1.1' }, { ip: '127.0.0.1' }]],
    ],
  );
  assert.deepEqual(
    ingressStatusTargets(d, null).map((t) => t.ref.name),
    ['api', 'shop'],
    'default listeners without a known address are skipped',
  );
});

test('status merge keeps other appliances entries, replaces ours, and says when no write is needed', () => {
  const other = { ip: '192.0.2.9' };
  assert.deepEqual(mergeLoadBalancerIngress([other, { ip: '10.0.0.1' }], [{ ip: '10.0.0.1' }], [{ ip: '10.0.0.2' }]), [
    { ip: '10.0.0.2' },
    other,
  ]);
  assert.equal(mergeLoadBalancerIngress([{ ip: '10.0.0.2' }], [], [{ ip: '10.0.0.2' }]), null);
  assert.deepEqual(mergeLoadBalancerIngress([], [], [{ ip: '10.0.0.2' }]), [{ ip: '10.0.0.2' }]);
});

test('rejected and warned objects become Warning events, reported once', () => {
  const d = desired(
    [],
    [
      { object: ing('ok'), type: 'Accepted', reason: 'Accepted', message: '' },
      { object: ing('bad'), type: 'Rejected', reason: 'SecretNotFound', message: 'secret default/tls missing' },
      { object: ing('meh'), type: 'Warning', reason: 'AnnotationIgnored', message: 'x ignored' },
    ],
  );
  const events = conditionEvents(d);
  assert.deepEqual(
    events.map((e) => [e.ref.name, e.type, e.reason]),
    [
      ['bad', 'Warning', 'SecretNotFound'],
      ['meh', 'Warning', 'AnnotationIgnored'],
    ],
  );
  assert.match(events[0]!.message, /rejected by appliance edge: secret default\/tls missing/);
  assert.deepEqual(
    newEvents(events, new Set([eventKey(events[0]!)])).map((e) => e.ref.name),
    ['meh'],
  );
});

test('token bucket: a burst of 10, then 5 per second (client-go defaults)', () => {
  let bucket = fullBucket(clientGoRateLimit, 0);
  let granted = 0;
  for (let i = 0; i < 20; i++) {
    const r = takeToken(bucket, clientGoRateLimit, 0);
    bucket = r.bucket;
    if (r.ok) granted++;
    else assert.equal(r.waitMs, 200);
  }
  assert.equal(granted, 10);
  let later = 0;
  for (let t = 0; t <= 1000; t += 10) {
    const r = takeToken(bucket, clientGoRateLimit, t);
    bucket = r.bucket;
    if (r.ok) later++;
  }
  assert.equal(later, 5);
});

test('a refused Service-mode binding becomes a Warning Event on its Service; other refusals and successes do not', () => {
  const service = { cluster: 'c1', kind: 'Service' as const, namespace: 'shop', name: 'web' };
  const desired = {
    appliance: 'lm',
    driver: 'loadmaster' as const,
    virtualServices: [],
    pools: [],
    certificates: [],
    conditions: [],
    bindings: [{ target: '7', service, members: [] }],
  };
  const outcome = (objectType: string, objectName: string, ok: boolean) => ({
    operation: { objectType, objectName, action: 'update' as const, payload: null, summary: '' },
    result: ok
      ? { ok: true as const, detail: '' }
      : {
          ok: false as const,
          code: 'VirtualServiceNotFound',
          message: 'virtual service 7 does not exist on the LoadMaster; nothing is created',
          retryable: false,
        },
    durationMs: 1,
  });
  assert.deepEqual(
    operationEvents(desired, [
      outcome('binding', '7', false),
      outcome('realserver', '7/10.0.0.1:80', false),
      outcome('binding', '7', true),
    ]),
    [
      {
        ref: service,
        type: 'Warning',
        reason: 'VirtualServiceNotFound',
        message: 'appliance lm: virtual service 7 does not exist on the LoadMaster; nothing is created',
      },
    ],
  );
});

test('servedHolds keeps held Ingresses this appliance has a condition on, and every other kind', () => {
  const hold = (kind: string, objectKey: string) => ({ cluster: 'c1', kind, objectKey, reason: 'relist' });
  const conditions = [
    {
      object: { cluster: 'c1', kind: 'Ingress' as const, namespace: 'team', name: 'mine' },
      type: 'Accepted' as const,
      reason: 'Planned',
      message: '',
    },
  ];
  const kept = servedHolds(
    [hold('Ingress', 'team/mine'), hold('Ingress', 'team/theirs'), hold('EndpointSlice', 'team/web-1')],
    conditions,
  );
  assert.deepEqual(
    kept.map((h) => h.objectKey),
    ['team/mine', 'team/web-1'],
  );
});
