// NATS outage: publish, then wait for the ack; while NATS is down, hold what is pending in bounded memory and
// resume when it returns. A private nats-server is killed and restarted so other tests keep their broker.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KubeKind } from '@portolan/proto';
import { watchedKind } from './core/index.ts';
import { startHarness, waitFor, foldEvents, simState, stateLines, metricValue } from './testing/watcher-harness.ts';
import { startPrivateNats } from './testing/private-nats.ts';
import { ingress, namespace } from './testing/sample-objects.ts';

test('a NATS outage and recovery lose nothing: changes made while the broker is down are published after it returns', async () => {
  const nats = await startPrivateNats();
  let h;
  try {
    h = await startHarness({
      natsUrl: nats.url,
      deferStart: true,
      kinds: [watchedKind('Ingress')],
      timing: { stallMs: 1_500 },
      watcher: { publishTimeoutMs: 1_000 },
    });
    const harness = h;
    harness.sim.objects.create(namespace('shop'));
    for (let i = 0; i < 5; i++) harness.sim.objects.create(ingress('shop', `web${i}`));
    harness.startWatcher();
    await waitFor('synced', () =>
      harness.watcher.readiness().ok && harness.watcher.publisher.pending === 0 ? true : undefined,
    );

    await nats.kill();
    for (let i = 5; i < 45; i++) harness.sim.objects.create(ingress('shop', `web${i}`));
    harness.sim.objects.delete({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      namespace: 'shop',
      name: 'web0',
    });
    harness.sim.objects.patch(
      { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', namespace: 'shop', name: 'web1' },
      'application/merge-patch+json',
      { metadata: { labels: { v: '2' } } },
    );
    // While the broker is down the watcher keeps watching and holds what it saw; it is not a stall.
    await waitFor(
      'events held while NATS is down',
      () => (harness.watcher.publisher.pending >= 42 ? true : undefined),
      5_000,
    );
    await new Promise((r) => setTimeout(r, 2_500));
    assert.equal(
      await metricValue(harness.registry, 'portolan_watcher_restarts_total', { reason: 'stalled' }),
      0,
      'a bus outage is not a watch stall',
    );
    assert.ok(harness.watcher.publisher.pending >= 42, `still held: ${harness.watcher.publisher.pending}`);

    await nats.restart();
    await waitFor(
      'everything published after the broker returned',
      async () => {
        if (harness.watcher.publisher.pending !== 0) return undefined;
        const r = await harness.read();
        return JSON.stringify(stateLines(foldEvents(r, KubeKind.INGRESS))) ===
          JSON.stringify(stateLines(simState(harness.sim, 'networking.k8s.io/v1', 'Ingress')))
          ? true
          : undefined;
      },
      30_000,
      250,
    );
    assert.ok(
      (await metricValue(harness.registry, 'portolan_watcher_publish_retries_total')) > 0,
      'publishes were retried, not dropped',
    );
  } finally {
    await h?.close().catch(() => undefined);
    await nats.close();
  }
});
