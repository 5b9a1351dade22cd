// The applier's Events as `kubectl describe` shows them (the real kubectl against the Kubernetes simulator): on the
// object's uid, aggregated into one Event whose count rises, none for an object that is gone or re-created, and
// RemovalHeld only from an appliance that serves the held Ingress.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { kubectlBinary } from '@portolan/infra';
import { startKubeSim, type KubeSim } from '@portolan/kube-sim';
import type { ObjectCondition } from '@portolan/desired-state';
import { ClientNodeKubeApi } from './kube-api.ts';
import { KubeWriteback } from './kube-writeback.ts';
import { desiredState, ingressRef, pool } from '../testing/desired-fixtures.ts';

let sim: KubeSim;
let dir: string;
let api: ClientNodeKubeApi;
let kubectlPath: string;
before(async () => {
  kubectlPath = kubectlBinary();
  sim = await startKubeSim({ port: 0 });
  dir = mkdtempSync(path.join(os.tmpdir(), 'portolan-applier-events-'));
  await sim.writeKubeconfig(path.join(dir, 'kubeconfig'));
  api = new ClientNodeKubeApi({ kubeconfig: path.join(dir, 'kubeconfig') });
});
after(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs kubectl asynchronously (the simulator lives in this process, so a synchronous spawn would deadlock). */
function kubectl(args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(kubectlPath, args, {
      env: {
        ...process.env,
        KUBECONFIG: path.join(dir, 'kubeconfig'),
        HOME: dir,
        KUBECACHEDIR: path.join(dir, 'cache'),
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`kubectl ${args.join(' ')} exited ${code}: ${stderr}`)),
    );
  });
}

const ingress = (name: string, className = 'vtm'): Record<string, unknown> => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  metadata: { name, namespace: 'default' },
  spec: {
    ingressClassName: className,
    rules: [
      {
        host: `${name}.example.com`,
        http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name, port: { number: 80 } } } }] },
      },
    ],
  },
});
const uidOf = (name: string): string =>
  sim.objects.get({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', namespace: 'default', name })?.metadata?.uid ??
  '';
type EventObject = {
  metadata?: { name?: string };
  count?: number;
  firstTimestamp?: string;
  lastTimestamp?: string;
  reason?: string;
  involvedObject?: { name?: string; uid?: string };
};
const eventsOn = (name: string): EventObject[] =>
  (sim.objects.list('v1', 'Event', 'default') as EventObject[]).filter((e) => e.involvedObject?.name === name);
const rejected = (name: string, reason: string, message: string): ObjectCondition => ({
  object: ingressRef(name),
  type: 'Rejected',
  reason,
  message,
});

test('kubectl describe ingress shows the Warning Event, found by the object uid', async () => {
  sim.objects.create(ingress('shop'));
  const writeback = new KubeWriteback({ apiFor: () => api, reportingInstance: 'vtm-a' });
  writeback.afterApply(
    desiredState('vtm', [pool('web', [1])], {
      conditions: [rejected('shop', 'SecretNotFound', 'TLS secret default/shop-tls does not exist')],
    }),
    '127.0.0.1',
  );
  await writeback.settled();
  assert.equal(writeback.counters.failures, 0);
  const [event] = eventsOn('shop');
  assert.equal(event?.involvedObject?.uid, uidOf('shop'));
  const described = await kubectl(['describe', 'ingress', 'shop']);
  assert.match(described, /Events:\n\s+Type\s+Reason\s+Age\s+From\s+Message/);
  assert.match(
    described,
    /Warning\s+SecretNotFound\s+\S+\s+portolan-applier\s+rejected by appliance vtm: TLS secret default\/shop-tls does not exist/,
  );
  const selected = await kubectl([
    'get',
    'events',
    '--field-selector',
    `involvedObject.uid=${uidOf('shop')},involvedObject.kind=Ingress,involvedObject.name=shop,involvedObject.namespace=default`,
    '-o',
    'name',
  ]);
  assert.equal(selected.trim().split('\n').length, 1, selected);
});

test('a repeated condition raises count and lastTimestamp of one Event; kubectl shows (x3 over ...)', async () => {
  sim.objects.create(ingress('flaky'));
  const writeback = new KubeWriteback({ apiFor: () => api, reportingInstance: 'vtm-a', repeatAfterMs: 0 });
  const bad = desiredState('vtm', [pool('web', [1])], {
    conditions: [
      rejected(
        'flaky',
        'InvalidBackend',
        'spec.rules[0].http.paths[0].backend.service.port needs exactly one of number or name',
      ),
    ],
  });
  writeback.afterApply(bad, '127.0.0.1');
  await writeback.settled();
  const first = eventsOn('flaky')[0]!;
  await new Promise((r) => setTimeout(r, 1100));
  // The condition goes away and comes back (a new occurrence), then persists through a recheck (a repeat).
  writeback.afterApply(desiredState('vtm', [pool('web', [1])]), '127.0.0.1');
  writeback.afterApply(desiredState('vtm', [pool('web', [1])], { conditions: [...bad.conditions] }), '127.0.0.1');
  await writeback.settled();
  writeback.afterApply(
    desiredState('vtm', [pool('web', [1])], { conditions: [...bad.conditions] }),
    '127.0.0.1',
    [],
    true,
  );
  await writeback.settled();
  const events = eventsOn('flaky');
  assert.equal(events.length, 1, 'one Event object');
  assert.equal(events[0]!.metadata?.name, first.metadata?.name);
  assert.equal(events[0]!.count, 3);
  assert.equal(events[0]!.firstTimestamp, first.firstTimestamp, 'firstTimestamp stays');
  assert.ok(Date.parse(events[0]!.lastTimestamp ?? '') > Date.parse(first.lastTimestamp ?? ''), 'lastTimestamp moves');
  assert.deepEqual([writeback.counters.events, writeback.counters.eventsAggregated], [1, 2]);
  assert.match(
    await kubectl(['describe', 'ingress', 'flaky']),
    /Warning\s+InvalidBackend\s+\S+ \(x3 over \S+\)\s+portolan-applier\s+rejected by appliance vtm:/,
  );
  // A new process (another leader) finds the Event again instead of starting a second one.
  const next = new KubeWriteback({ apiFor: () => api, reportingInstance: 'vtm-b' });
  next.afterApply(bad, '127.0.0.1');
  await next.settled();
  assert.equal(eventsOn('flaky').length, 1);
  assert.equal(eventsOn('flaky')[0]!.count, 4);
});

test('no Event for an object that no longer exists; a re-created one does not show its predecessor Events', async () => {
  const writeback = new KubeWriteback({ apiFor: () => api, reportingInstance: 'vtm-a' });
  writeback.afterApply(
    desiredState('vtm', [pool('web', [1])], {
      conditions: [rejected('gone', 'NoBackends', 'the Ingress has neither rules with paths nor a defaultBackend')],
    }),
    '127.0.0.1',
  );
  await writeback.settled();
  assert.deepEqual(eventsOn('gone'), []);
  assert.equal(writeback.counters.eventsDropped, 1);
  // An Ingress rejected, deleted and created again under its name: describe shows only the new one's Events.
  sim.objects.create(ingress('again', 'portolan'));
  const edge = new KubeWriteback({ apiFor: () => api, reportingInstance: 'edge-a' });
  edge.afterApply(
    desiredState('edge', [pool('web', [1])], {
      conditions: [rejected('again', 'NoBackends', 'the Ingress has neither rules with paths nor a defaultBackend')],
    }),
    '127.0.0.1',
  );
  await edge.settled();
  assert.match(await kubectl(['describe', 'ingress', 'again']), /rejected by appliance edge: the Ingress has neither/);
  sim.objects.delete({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', namespace: 'default', name: 'again' });
  sim.objects.create(ingress('again', 'vtm'));
  assert.match(await kubectl(['describe', 'ingress', 'again']), /Events:\s+<none>/);
});

test('RemovalHeld goes only on held Ingresses this appliance serves', async () => {
  sim.objects.create(ingress('mine', 'portolan'));
  sim.objects.create(ingress('theirs', 'vtm'));
  const edge = new KubeWriteback({ apiFor: () => api, reportingInstance: 'edge-a' });
  edge.afterApply(
    desiredState('edge', [pool('web', [1])], {
      conditions: [
        { object: ingressRef('mine'), type: 'Accepted', reason: 'Planned', message: 'planned on listener default~80' },
      ],
    }),
    '127.0.0.1',
  );
  await edge.settled();
  const reason = 'a relist of Ingress no longer lists 6 of 8 hosts';
  edge.reportHolds('edge', [
    { cluster: 'c1', kind: 'Ingress', objectKey: 'default/mine', reason },
    { cluster: 'c1', kind: 'Ingress', objectKey: 'default/theirs', reason },
  ]);
  await edge.settled();
  assert.deepEqual(
    eventsOn('mine').map((e) => e.reason),
    ['RemovalHeld'],
  );
  assert.deepEqual(eventsOn('theirs'), [], "the vtm-class Ingress is not edge's");
});

test('an Event can name any Gateway API object: its uid is read at the kind’s own API version', async () => {
  const GW = 'gateway.networking.k8s.io';
  const objects = [
    { apiVersion: `${GW}/v1`, kind: 'GatewayClass', namespace: '', spec: { controllerName: 'example.com/x' } },
    {
      apiVersion: `${GW}/v1`,
      kind: 'Gateway',
      namespace: 'default',
      spec: { gatewayClassName: 'x', listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }] },
    },
    { apiVersion: `${GW}/v1`, kind: 'HTTPRoute', namespace: 'default', spec: {} },
    { apiVersion: `${GW}/v1alpha2`, kind: 'TLSRoute', namespace: 'default', spec: { rules: [{}] } },
    {
      apiVersion: `${GW}/v1beta1`,
      kind: 'ReferenceGrant',
      namespace: 'default',
      spec: { from: [{ group: '', kind: 'Service', namespace: 'x' }], to: [{ group: '', kind: 'Service' }] },
    },
  ] as const;
  for (const o of objects) {
    const created = sim.objects.create({
      apiVersion: o.apiVersion,
      kind: o.kind,
      metadata: { name: 'uid-probe', ...(o.namespace === '' ? {} : { namespace: o.namespace }) },
      spec: o.spec,
    });
    const uid = await api.readUid({ cluster: 'c1', kind: o.kind, namespace: o.namespace, name: 'uid-probe' });
    assert.equal(uid, created.metadata?.uid, o.kind);
  }
});
