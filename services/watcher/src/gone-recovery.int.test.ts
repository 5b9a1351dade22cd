// 410 Gone: a 410 at watch start, inside a live stream, or on a list page costs one relist, and deletes made during the
// gap come out as deletes. The bound: converged within 10 s of the 410.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testStack } from '@portolan/infra';
import type { RequestLogEntry } from '@portolan/kube-sim';
import { KubeEventType, KubeKind } from '@portolan/proto';
import { watchedKind } from './core/index.ts';
import {
  startHarness,
  waitFor,
  foldEvents,
  simState,
  stateLines,
  metricValue,
  eventLines,
  type WatcherHarness,
} from './testing/watcher-harness.ts';
import { ingress, namespace } from './testing/sample-objects.ts';

const CONVERGE_MS = 10_000;

async function seeded(
  options: { listPageSize?: number; onRequest?: (e: RequestLogEntry) => void } = {},
): Promise<WatcherHarness> {
  const { natsUrl } = await testStack();
  const h = await startHarness({
    natsUrl,
    deferStart: true,
    kinds: [watchedKind('Ingress')],
    ...(options.listPageSize === undefined ? {} : { watcher: { listPageSize: options.listPageSize } }),
    sim: { onRequest: (e) => options.onRequest?.(e) },
  });
  h.sim.objects.create(namespace('shop'));
  for (let i = 0; i < 6; i++) h.sim.objects.create(ingress('shop', `web${i}`));
  return h;
}

/** Deletes two Ingresses, changes one and adds one: what a watcher in the gap must not lose. */
function makeGapChanges(h: WatcherHarness): void {
  h.sim.objects.delete({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', namespace: 'shop', name: 'web0' });
  h.sim.objects.delete({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', namespace: 'shop', name: 'web1' });
  h.sim.objects.patch(
    { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', namespace: 'shop', name: 'web2' },
    'application/merge-patch+json',
    { metadata: { annotations: { changed: 'in-gap' } } },
  );
  h.sim.objects.create(ingress('shop', 'web6'));
}

async function assertConverged(h: WatcherHarness, since: number): Promise<void> {
  const records = await waitFor(
    'the stream to equal the simulator',
    async () => {
      const want = stateLines(simState(h.sim, 'networking.k8s.io/v1', 'Ingress'));
      const r = await h.read();
      return JSON.stringify(stateLines(foldEvents(r, KubeKind.INGRESS))) === JSON.stringify(want) ? r : undefined;
    },
    CONVERGE_MS,
  );
  const deleted = records
    .filter((r) => r.kind === 'event' && r.event.type === KubeEventType.DELETED)
    .map((r) => (r.kind === 'event' ? r.event.name : ''));
  assert.deepEqual(
    deleted.sort(),
    ['web0', 'web1'],
    `deletes in the gap are published as deletes: ${eventLines(records).join(', ')}`,
  );
  assert.ok(Date.now() - since < CONVERGE_MS);
}

test('HTTP 410 at watch start → one relist, gap deletes published, converged within 10 s', async () => {
  const h = await seeded();
  try {
    h.startWatcher();
    await waitFor('synced', () => (h.watcher.readiness().ok ? true : undefined));
    h.sim.faults.endWatches({ reset: true });
    makeGapChanges(h);
    h.sim.faults.compactHistory();
    h.sim.faults.failRequests({ resource: 'ingresses', status: 410, count: 1, verbs: ['watch'] });
    const since = Date.now();
    await assertConverged(h, since);
    assert.equal(
      await metricValue(h.registry, 'portolan_watcher_relists_total', { reason: 'gone' }),
      1,
      'exactly one relist for the 410',
    );
    assert.equal(await metricValue(h.registry, 'portolan_watcher_relists_total'), 2, 'initial list + one relist');
  } finally {
    await h.close();
  }
});

test('in-stream 410 on a stream the server keeps open → the watcher closes it, relists once, converges', async () => {
  const h = await seeded();
  try {
    h.startWatcher();
    await waitFor('synced', () => (h.watcher.readiness().ok ? true : undefined));
    h.sim.faults.stallWatches();
    makeGapChanges(h);
    h.sim.faults.compactHistory();
    assert.equal(h.sim.faults.sendWatchGone({ close: false }), 1);
    h.sim.faults.resumeWatches();
    const since = Date.now();
    await assertConverged(h, since);
    await waitFor('one relist for the 410', async () =>
      (await metricValue(h.registry, 'portolan_watcher_relists_total', { reason: 'gone' })) === 1 ? true : undefined,
    );
    // The server left the old stream open: only the watcher closing it brings the count back to one watch.
    await waitFor('the old stream closed by the watcher', () =>
      h.sim.faults.openWatches === 1 && h.watcher.runners[0]!.state.phase === 'watching' ? true : undefined,
    );
    assert.equal(await metricValue(h.registry, 'portolan_watcher_relists_total'), 2);
  } finally {
    await h.close();
  }
});

test('410 on the second page of a paginated list → the list restarts once, gap deletes published', async () => {
  let armed = true;
  const ref: { h?: WatcherHarness } = {};
  const h = await seeded({
    listPageSize: 2,
    onRequest: (e) => {
      if (
        !armed ||
        ref.h === undefined ||
        !e.url.includes('/ingresses?') ||
        !e.url.includes('limit=') ||
        e.url.includes('continue=')
      )
        return;
      armed = false;
      makeGapChanges(ref.h);
      ref.h.sim.faults.compactHistory();
    },
  });
  ref.h = h;
  try {
    const since = Date.now();
    h.startWatcher();
    await assertConverged(h, since);
    assert.equal(armed, false, 'the fault fired');
    assert.equal(
      await metricValue(h.registry, 'portolan_watcher_relists_total', { reason: 'gone' }),
      1,
      'the expired continue token cost one relist',
    );
    assert.equal(await metricValue(h.registry, 'portolan_watcher_relists_total'), 2);
  } finally {
    await h.close();
  }
});
