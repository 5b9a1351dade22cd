// Supervision: the server ends watches over and over (and fails requests with 403/429/500): no event is lost, checked
// against the simulator's change log; each stream holds at most one socket; lists happen only for real reasons.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { testStack } from '@portolan/infra';
import { KubeEventType } from '@portolan/proto';
import { watchedKind } from './core/index.ts';
import { startHarness, waitFor, metricValue, type StreamRecord } from './testing/watcher-harness.ts';
import { ingress, namespace, endpointSlice } from './testing/sample-objects.ts';

const ROUNDS = 500; // two streams: 1000 forced watch restarts

const eventKey = (type: string, uid: string, rv: string): string => `${type} ${uid}@${rv}`;
const WARM_UP_ROUNDS = 50; // JIT, pools and first-use caches settle before the heap baseline

/** Heap in use after full collections (the test process: watcher, simulator and bus client together). */
function settledHeapBytes(): number {
  v8.setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

test('1000 forced watch restarts lose no event and keep one socket per watch', async () => {
  const { natsUrl } = await testStack();
  const h = await startHarness({
    natsUrl,
    deferStart: true,
    countConnections: true,
    kinds: [watchedKind('Ingress'), watchedKind('EndpointSlice')],
  });
  try {
    h.sim.objects.create(namespace('shop'));
    h.startWatcher();
    await waitFor('synced', () => (h.watcher.readiness().ok ? true : undefined));
    const firstChange = h.sim.changeLog.length;
    let restarts = 0;
    for (let round = 0; round < ROUNDS; round++) {
      await waitFor('both watches re-established', () => (h.sim.faults.openWatches === 2 ? true : undefined), 5_000, 1);
      const n = round % 25;
      if (round % 3 === 0) h.sim.objects.create(ingress('shop', `web${round}`));
      else if (round % 3 === 1)
        h.sim.objects.apply(endpointSlice('shop', `slice${n}`, `web${n}`, 1 + (round % 4), round));
      else if (round > 30 && round % 6 === 2)
        h.sim.objects.delete({
          apiVersion: 'networking.k8s.io/v1',
          kind: 'Ingress',
          namespace: 'shop',
          name: `web${round - 29}`,
        });
      restarts += h.sim.faults.endWatches();
    }
    assert.equal(restarts, 2 * ROUNDS);

    const want = h.sim.changeLog
      .slice(firstChange)
      .filter((c) => c.kind === 'Ingress' || c.kind === 'EndpointSlice')
      .map((c) => eventKey(c.type, c.uid, c.rv));
    assert.ok(want.length > ROUNDS / 2, `${want.length} changes made`);
    const records = await waitFor(
      'every change of the log on the stream',
      async () => {
        const r = await h.read();
        const got = new Set(
          r.flatMap((x: StreamRecord) =>
            x.kind === 'event' ? [eventKey(KubeEventType[x.event.type], x.event.uid, x.event.resourceVersion)] : [],
          ),
        );
        return want.every((w) => got.has(w)) ? r : undefined;
      },
      20_000,
    );
    assert.ok(records.length > 0);
    assert.ok(
      h.proxy!.maxOpen <= 2,
      `at most one socket per watch (2 streams), saw ${h.proxy!.maxOpen} open at once over ${h.proxy!.total} connections`,
    );
    assert.equal(
      await metricValue(h.registry, 'portolan_watcher_relists_total'),
      2,
      'restarts resume from the resourceVersion: no list beyond the initial ones',
    );

    // Heap: another 1000 restarts with no changes, so that the simulator's growing object store and change log
    // (the changes above) do not count against the watcher.
    let heapBase = 0;
    for (let round = 0; round < ROUNDS + WARM_UP_ROUNDS; round++) {
      if (round === WARM_UP_ROUNDS) heapBase = settledHeapBytes();
      await waitFor('both watches re-established', () => (h.sim.faults.openWatches === 2 ? true : undefined), 5_000, 1);
      h.sim.faults.endWatches();
    }
    await waitFor('both watches re-established', () => (h.sim.faults.openWatches === 2 ? true : undefined), 5_000, 1);
    const growth = (settledHeapBytes() - heapBase) / heapBase;
    assert.ok(
      growth < 0.1,
      `heap growth over ${2 * ROUNDS} restarts: ${(growth * 100).toFixed(1)}% of ${(heapBase / 1048576).toFixed(1)} MiB (bound: under 10%)`,
    );
  } finally {
    await h.close();
  }
});

test('bursts of 403, 429 and 500 are retried with backoff and never stop the watcher', async () => {
  const { natsUrl } = await testStack();
  const h = await startHarness({ natsUrl, deferStart: true, kinds: [watchedKind('EndpointSlice')] });
  try {
    h.sim.objects.create(namespace('shop'));
    h.sim.objects.create(endpointSlice('shop', 'a', 'web', 2));
    h.sim.faults.failRequests({ resource: 'endpointslices', status: 403, count: 2, verbs: ['list'] });
    h.sim.faults.failRequests({ resource: 'endpointslices', status: 429, count: 1, verbs: ['list'] });
    h.startWatcher();
    assert.equal(h.watcher.readiness().ok, false, 'not ready before the first list');
    await waitFor('synced despite 403 and 429 at start', () => (h.watcher.readiness().ok ? true : undefined), 10_000);
    assert.equal(await metricValue(h.registry, 'portolan_watcher_request_errors_total', { status: '403' }), 2);
    assert.equal(
      await metricValue(h.registry, 'portolan_watcher_relists_total'),
      4,
      'two 403s and a 429 cost three list attempts, then one succeeded',
    );
    h.sim.faults.failRequests({ resource: 'endpointslices', status: 500, count: 3, verbs: ['watch'] });
    h.sim.faults.endWatches();
    h.sim.objects.create(endpointSlice('shop', 'b', 'web', 1, 9));
    await waitFor(
      'the change after the 500s',
      async () => ((await h.read()).some((r) => r.kind === 'event' && r.event.name === 'b') ? true : undefined),
      15_000,
    );
    assert.equal(await metricValue(h.registry, 'portolan_watcher_request_errors_total', { status: '500' }), 3);
    assert.equal(
      await metricValue(h.registry, 'portolan_watcher_relists_total'),
      4,
      'failed watches resume from their resourceVersion without a list',
    );
  } finally {
    await h.close();
  }
});
