import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startKubeSim, type KubeSim } from '@portolan/kube-sim';
import { ClientNodeKubeApi } from './kube-api.ts';
import { KubeWriteback } from './kube-writeback.ts';
import { desiredState, ingressRef, pool } from '../testing/desired-fixtures.ts';

let sim: KubeSim;
let dir: string;
let api: ClientNodeKubeApi;
const requests: { at: number; method: string; url: string }[] = [];
before(async () => {
  sim = await startKubeSim({
    port: 0,
    onRequest: (r) => requests.push({ at: performance.now(), method: r.method, url: r.url }),
  });
  dir = mkdtempSync(path.join(os.tmpdir(), 'portolan-applier-kube-'));
  const kubeconfig = path.join(dir, 'kubeconfig');
  await sim.writeKubeconfig(kubeconfig);
  api = new ClientNodeKubeApi({ kubeconfig });
});
after(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

const ingress = (name: string, status?: unknown): Record<string, unknown> => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  metadata: { name, namespace: 'default' },
  spec: {
    rules: [
      {
        host: `${name}.example.com`,
        http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name, port: { number: 80 } } } }] },
      },
    ],
  },
  ...(status === undefined ? {} : { status }),
});
const lbOf = (name: string): unknown =>
  (
    sim.objects.get({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', namespace: 'default', name }) as {
      status?: { loadBalancer?: { ingress?: unknown } };
    }
  ).status?.loadBalancer?.ingress;

test('a served Ingress gets the listen address in status; a rejected one gets a Warning Event naming the reason', async () => {
  sim.objects.create(ingress('ing-web'));
  sim.objects.create(ingress('broken'));
  const writeback = new KubeWriteback({ apiFor: () => api, reportingInstance: 'edge-a' });
  const desired = desiredState('edge', [pool('web', [1])], {
    conditions: [
      {
        object: ingressRef('broken'),
        type: 'Rejected',
        reason: 'SecretNotFound',
        message: 'TLS secret default/missing does not exist',
      },
    ],
  });
  writeback.afterApply(desired, '127.0.0.1');
  await writeback.settled();
  assert.equal(writeback.counters.failures, 0);
  assert.deepEqual(lbOf('ing-web'), [{ ip: '127.0.0.1' }]);
  assert.deepEqual(lbOf('broken'), undefined, 'a rejected Ingress is not served: no address');
  const events = sim.objects.list('v1', 'Event', 'default');
  const warning = events.find(
    (e) => (e as { involvedObject?: { name?: string } }).involvedObject?.name === 'broken',
  ) as { type?: string; reason?: string; message?: string; involvedObject?: { kind?: string } } | undefined;
  assert.equal(warning?.type, 'Warning');
  assert.equal(warning?.reason, 'SecretNotFound');
  assert.equal(warning?.involvedObject?.kind, 'Ingress');
  assert.match(warning?.message ?? '', /rejected by appliance edge: TLS secret default\/missing does not exist/);
});

test('status merge on real objects keeps other writers, and a second identical apply makes no write and no duplicate Event', async () => {
  sim.objects.create(ingress('ing-shop'));
  sim.objects.create(ingress('ing-blog'));
  sim.objects.updateStatus({ ...ingress('ing-blog'), status: { loadBalancer: { ingress: [{ ip: '192.0.2.50' }] } } });
  const writeback = new KubeWriteback({ apiFor: () => api, reportingInstance: 'edge-a' });
  const desired = desiredState('edge', [pool('shop', [1]), pool('blog', [2])], {
    conditions: [
      {
        object: ingressRef('ing-shop'),
        type: 'Warning',
        reason: 'AnnotationIgnored',
        message: 'unknown annotation portolan.dev/foo',
      },
    ],
  });
  writeback.afterApply(desired, '127.0.0.1');
  await writeback.settled();
  assert.deepEqual(lbOf('ing-shop'), [{ ip: '127.0.0.1' }]);
  assert.deepEqual(lbOf('ing-blog'), [{ ip: '127.0.0.1' }, { ip: '192.0.2.50' }]);
  assert.equal(writeback.counters.statusWrites, 2);
  const eventsBefore = sim.objects.list('v1', 'Event', 'default').length;
  const requestsBefore = requests.length;
  writeback.afterApply(desired, '127.0.0.1');
  await writeback.settled();
  assert.equal(requests.length, requestsBefore, 'same listeners and conditions: not even a read');
  writeback.afterApply(desired, '127.0.0.1', [], true);
  await writeback.settled();
  assert.equal(writeback.counters.statusWrites, 2, 'a recheck finds the status already right: read, no write');
  assert.equal(writeback.counters.statusSkipped, 2);
  assert.equal(sim.objects.list('v1', 'Event', 'default').length, eventsBefore, 'the same condition is reported once');
  // The Ingress stops being served by this appliance: our entry is removed, the other writer's stays.
  writeback.afterApply(desiredState('edge', [pool('shop', [1])]), '127.0.0.1');
  await writeback.settled();
  assert.deepEqual(lbOf('ing-blog'), [{ ip: '192.0.2.50' }]);
});

test('writes are paced by the token bucket (burst, then the configured rate)', async () => {
  const names = Array.from({ length: 12 }, (_, i) => `ing-rate${i}`);
  for (const n of names) sim.objects.create(ingress(n));
  const limit = { qps: 20, burst: 4 };
  const writeback = new KubeWriteback({ apiFor: () => api, reportingInstance: 'edge-a', limit });
  const from = requests.length;
  writeback.afterApply(
    desiredState(
      'edge',
      names.map((n, i) => pool(n.slice(4), [i + 1])),
    ),
    '127.0.0.1',
  );
  await writeback.settled();
  const mine = requests.slice(from).filter((r) => r.url.includes('ing-rate'));
  assert.equal(mine.length, 24, 'one read and one patch per Ingress');
  // In any window of w ms at most burst + w·qps/1000 requests (+1 for boundary rounding).
  for (let i = 0; i < mine.length; i++) {
    const windowEnd = mine[i]!.at + 500;
    const inWindow = mine.filter((r) => r.at >= mine[i]!.at && r.at < windowEnd).length;
    assert.ok(inWindow <= limit.burst + (500 * limit.qps) / 1000 + 1, `${inWindow} requests within 500 ms`);
  }
});

test('a replica that loses the lease drops what is queued instead of writing beside the new leader', async () => {
  const names = Array.from({ length: 12 }, (_, i) => `ing-lost${i}`);
  for (const n of names) sim.objects.create(ingress(n));
  let leading = true;
  const writeback = new KubeWriteback({
    apiFor: () => api,
    reportingInstance: 'edge-a',
    limit: { qps: 20, burst: 4 },
    isLeader: () => leading,
  });
  const from = requests.length;
  const patches = () => requests.slice(from).filter((r) => r.method === 'PATCH' && r.url.includes('ing-lost')).length;
  writeback.afterApply(
    desiredState(
      'edge',
      names.map((n, i) => pool(n.slice(4), [i + 1])),
    ),
    '127.0.0.1',
  );
  while (patches() < 3) await new Promise((r) => setTimeout(r, 5));
  leading = false;
  await writeback.settled();
  assert.ok(patches() < names.length, `${patches()} of ${names.length} written before the lease was lost`);
  assert.equal(writeback.counters.droppedNotLeader, 1);
  assert.equal(
    names.filter((n) => lbOf(n) !== undefined).length,
    patches(),
    'the Ingresses left unwritten are the new leader’s to write',
  );
});
