// A @kubernetes/client-node informer (ListWatch) meets each simulator fault and still ends with the simulator's state.
// Faults that stop client-node's informer for good (any watch error but 410/timeout) show that, then the restart path.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { startKubeSim, type KubeSim } from './index.ts';

interface Harness {
  readonly sim: KubeSim;
  readonly api: k8s.CoreV1Api;
  readonly informer: k8s.ListWatch<k8s.V1ConfigMap>;
  readonly errors: unknown[];
  readonly deleted: string[];
  lists(): number;
}

let current: Harness | null = null;
afterEach(async () => {
  await current?.informer.stop();
  await current?.sim.close();
  current = null;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const cm = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
  data: { v: name },
  ...extra,
});

async function setup(): Promise<Harness> {
  const requests: string[] = [];
  const sim = await startKubeSim({
    onRequest: (e) => {
      requests.push(`${e.method} ${e.url}`);
      if (process.env['KS_DEBUG']) console.log(Date.now() % 100000, e.method, e.url, e.status);
    },
  });
  sim.objects.create(cm('a'));
  sim.objects.create(cm('b'));
  const kc = new k8s.KubeConfig();
  kc.loadFromString(sim.kubeconfigYaml());
  const api = kc.makeApiClient(k8s.CoreV1Api);
  const watch = new k8s.Watch(kc);
  // client-node's own inactivity timeout, shortened: it stands in for the watcher's staleness supervisor.
  (watch as unknown as { requestTimeoutMs: number }).requestTimeoutMs = 1500; // private in the typings, a plain field at run time
  const informer = new k8s.ListWatch<k8s.V1ConfigMap>(
    '/api/v1/namespaces/default/configmaps',
    watch,
    () => api.listNamespacedConfigMap({ namespace: 'default' }),
    false,
  );
  const errors: unknown[] = [];
  const deleted: string[] = [];
  informer.on('error', (e) => errors.push(e));
  informer.on('delete', (o) => deleted.push(o.metadata?.name ?? ''));
  await informer.start();
  current = {
    sim,
    api,
    informer,
    errors,
    deleted,
    lists: () =>
      requests.filter((r) => r.startsWith('GET /api/v1/namespaces/default/configmaps') && !r.includes('watch=')).length,
  };
  await waitConverged(current);
  return current;
}

function simState(h: Harness): Record<string, string> {
  return Object.fromEntries(
    h.sim.objects
      .list('v1', 'ConfigMap', 'default')
      .map((o) => [o.metadata?.name ?? '', o.metadata?.resourceVersion ?? '']),
  );
}

function informerState(h: Harness): Record<string, string> {
  const entries = h.informer
    .list('default')
    .map((o) => [o.metadata?.name ?? '', o.metadata?.resourceVersion ?? ''] as const);
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

async function waitConverged(h: Harness, timeoutMs = 8000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (JSON.stringify(informerState(h)) === JSON.stringify(simState(h))) return;
    await sleep(50);
  }
  assert.deepEqual(informerState(h), simState(h), 'informer did not converge to the simulator state');
}

// This describe only groups short, independent cases of one concern: its length is their number.
describe('client-node informer under simulator faults', () => {
  it('history compacted during a gap: the watch gets 410, the informer relists and sees the delete', async () => {
    const h = await setup();
    const lists = h.lists();
    h.sim.faults.stallWatches();
    h.sim.objects.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'a' });
    h.sim.objects.create(cm('c'));
    h.sim.faults.compactHistory();
    h.sim.faults.endWatches();
    await sleep(300);
    h.sim.faults.resumeWatches();
    await waitConverged(h);
    assert.deepEqual(h.deleted, ['a']);
    assert.equal(h.lists(), lists + 1);
    assert.deepEqual(h.errors, []);
  });

  it('in-stream ERROR 410: the informer relists and converges', async () => {
    const h = await setup();
    const lists = h.lists();
    h.sim.faults.sendWatchGone();
    h.sim.objects.create(cm('after-410'));
    await waitConverged(h);
    assert.equal(h.lists(), lists + 1);
  });

  it('stalled watches: nothing arrives while stalled; after the stall the informer converges', async () => {
    const h = await setup();
    h.sim.faults.stallWatches();
    h.sim.objects.create(cm('during-stall'));
    await sleep(2000);
    assert.equal(informerState(h)['during-stall'], undefined);
    h.sim.faults.resumeWatches();
    await waitConverged(h);
  });

  it('ended watches: the informer re-watches from its last resourceVersion without relisting', async () => {
    const h = await setup();
    const lists = h.lists();
    assert.equal(h.sim.faults.endWatches(), 1);
    h.sim.objects.create(cm('after-end'));
    h.sim.objects.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'b' });
    await waitConverged(h);
    assert.equal(h.lists(), lists);
  });

  for (const status of [403, 429, 500] as const) {
    it(`watch answered ${status}: the informer stops for good; restarting it converges`, async () => {
      const h = await setup();
      h.sim.faults.failRequests({ resource: 'configmaps', status, count: 1, verbs: ['watch'] });
      h.sim.faults.endWatches();
      await sleep(300);
      assert.equal(h.errors.length, 1);
      h.sim.objects.create(cm('while-stopped'));
      await sleep(1000);
      assert.equal(informerState(h)['while-stopped'], undefined, 'a stopped informer must not see new changes');
      await h.informer.start();
      await waitConverged(h);
    });
  }

  it('garbled lines: junk is skipped silently; a truncated event is lost until the watch restarts', async () => {
    const h = await setup();
    h.sim.faults.sendGarbledLine();
    h.sim.objects.create(cm('after-junk'));
    await waitConverged(h);
    h.sim.faults.garbleNextEvents(1);
    h.sim.objects.patch(
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'a' },
      'application/merge-patch+json',
      { data: { v: 'changed' } },
    );
    await sleep(500);
    assert.notEqual(informerState(h)['a'], simState(h)['a'], 'the garbled event should have been lost');
    assert.deepEqual(h.errors, []);
    h.sim.faults.endWatches();
    await waitConverged(h);
  });

  it('lagging resourceVersion=0 lists: client-node lists without a resourceVersion, so it still converges', async () => {
    const h = await setup();
    h.sim.faults.lagZeroResourceVersionReads(true);
    h.sim.objects.create(cm('fresh'));
    const lagging = await h.api.listNamespacedConfigMap({ namespace: 'default', resourceVersion: '0' });
    assert.equal(
      lagging.items.some((i) => i.metadata?.name === 'fresh'),
      false,
    );
    await h.informer.stop();
    const restarted = new k8s.ListWatch<k8s.V1ConfigMap>(
      '/api/v1/namespaces/default/configmaps',
      new k8s.Watch(loadConfig(h.sim)),
      () => h.api.listNamespacedConfigMap({ namespace: 'default' }),
      false,
    );
    await restarted.start();
    try {
      await waitConverged({ ...h, informer: restarted });
    } finally {
      await restarted.stop();
    }
  });

  it('an oversized object is refused with 413 and the informer still matches the simulator', async () => {
    const h = await setup();
    const big = {
      metadata: { name: 'big' },
      involvedObject: { kind: 'Ingress', name: 'web', namespace: 'default' },
      message: 'x'.repeat(1_600_000),
    };
    await assert.rejects(
      h.api.createNamespacedEvent({ namespace: 'default', body: big }),
      (e: { code?: number }) => e.code === 413,
    );
    h.sim.objects.create(cm('small'));
    await waitConverged(h);
  });
});

function loadConfig(sim: KubeSim): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  kc.loadFromString(sim.kubeconfigYaml());
  return kc;
}
