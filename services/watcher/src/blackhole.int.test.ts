// A watch that stalls silently, made with the fault proxy in blackhole mode: the watch connections stay open but carry no more bytes (a half-open
// connection, an idle cut without FIN/RST). The server side keeps working, so only the watcher's stall clock can
// notice. It must abandon the dead sockets, reconnect, relist, and publish everything changed meanwhile.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testStack } from '@portolan/infra';
import { KubeKind } from '@portolan/proto';
import { watchedKind } from './core/index.ts';
import { startHarness, waitFor, foldEvents, simState, stateLines, metricValue } from './testing/watcher-harness.ts';
import { ingress, namespace, endpointSlice } from './testing/sample-objects.ts';

const STALL_MS = 1_500;

test('blackholed watch connections are detected by the stall clock, abandoned, and every change made meanwhile is published', async () => {
  const { natsUrl } = await testStack();
  const h = await startHarness({
    natsUrl,
    deferStart: true,
    countConnections: true,
    kinds: [watchedKind('Ingress'), watchedKind('EndpointSlice')],
    timing: { stallMs: STALL_MS },
  });
  try {
    h.sim.objects.create(namespace('shop'));
    for (let i = 0; i < 3; i++) h.sim.objects.create(ingress('shop', `web${i}`));
    h.sim.objects.create(endpointSlice('shop', 'web0-a', 'web0', 3));
    h.startWatcher();
    await waitFor('synced', () => (h.watcher.readiness().ok ? true : undefined));
    await waitFor('both watches open', () => (h.sim.faults.openWatches === 2 ? true : undefined));

    const blackholed = h.proxy!.blackhole();
    const at = Date.now();
    assert.ok(blackholed >= 2, `both watch connections blackholed (${blackholed})`);
    const deleted = h.sim.objects.delete({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      namespace: 'shop',
      name: 'web0',
    });
    h.sim.objects.create(ingress('shop', 'web9'));
    h.sim.objects.update(endpointSlice('shop', 'web0-a', 'web0', 1, 50));
    // The simulator still thinks both watches are fine: nothing but the watcher's own clock can see this.
    assert.equal(h.sim.faults.openWatches, 2);

    await waitFor(
      'both streams declared stalled',
      async () =>
        (await metricValue(h.registry, 'portolan_watcher_restarts_total', { reason: 'stalled' })) >= 2
          ? true
          : undefined,
      STALL_MS + 3_000,
      20,
    );
    assert.ok(
      Date.now() - at <= STALL_MS + 2_000,
      `detected after ${Date.now() - at} ms (bound ${STALL_MS} ms + one clock tick)`,
    );

    await waitFor(
      'every change of the blackhole published',
      async () => {
        const r = await h.read();
        const ing =
          JSON.stringify(stateLines(foldEvents(r, KubeKind.INGRESS))) ===
          JSON.stringify(stateLines(simState(h.sim, 'networking.k8s.io/v1', 'Ingress')));
        const eps =
          JSON.stringify(stateLines(foldEvents(r, KubeKind.ENDPOINT_SLICE))) ===
          JSON.stringify(stateLines(simState(h.sim, 'discovery.k8s.io/v1', 'EndpointSlice')));
        return ing && eps ? true : undefined;
      },
      STALL_MS + 5_000,
    );
    const records = await h.read();
    assert.ok(
      records.some(
        (r) =>
          r.kind === 'event' && r.event.name === 'web0' && r.event.uid === deleted.metadata?.uid && r.event.type === 3,
      ),
      'the delete made during the blackhole is published as a delete',
    );

    // The dead sockets were given up (not leaked), and the new watches carry changes again.
    await waitFor(
      'blackholed sockets closed by the watcher',
      () => (h.proxy!.blackholed === 0 ? true : undefined),
      5_000,
    );
    await waitFor('watches re-established', () => (h.sim.faults.openWatches === 2 ? true : undefined), 5_000);
    assert.ok(h.proxy!.open <= 2, `one socket per stream after recovery (${h.proxy!.open} open)`);
    h.sim.objects.create(ingress('shop', 'web10'));
    await waitFor(
      'a change after recovery arrives by watch',
      async () => ((await h.read()).some((r) => r.kind === 'event' && r.event.name === 'web10') ? true : undefined),
      5_000,
    );
    assert.equal(
      await metricValue(h.registry, 'portolan_watcher_relists_total', { reason: 'stalled' }),
      2,
      'one relist per stalled stream',
    );
    assert.ok(h.watcher.liveness().ok && h.watcher.readiness().ok);
  } finally {
    await h.close();
  }
});
