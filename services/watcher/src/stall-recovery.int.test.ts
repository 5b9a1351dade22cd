// A watch that stalls silently: a watch that stays open and delivers nothing is detected within the stall bound, the
// watcher is reported unhealthy meanwhile, and every change made during the stall is published after recovery.
// A quiet cluster (bookmarks only) never trips the detector. Deletes nobody saw: a watcher that was down publishes a marker
// without what was deleted meanwhile.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testStack } from '@portolan/infra';
import { relistRequestSubject } from '@portolan/bus';
import { RunningDigest } from '@portolan/kube-model';
import { createLogger, type Logger } from '@portolan/telemetry';
import { JetStreamAckTarget } from './adapters/jetstream-ack-target.ts';
import type { PublishTarget } from './adapters/bus-publisher.ts';
import { listenForRelistRequests } from './relist-requests.ts';
import { KubeKind } from '@portolan/proto';
import { watchedKind } from './core/index.ts';
import { startHarness, waitFor, foldEvents, simState, stateLines, metricValue } from './testing/watcher-harness.ts';
import { ingress, namespace, service, endpointSlice } from './testing/sample-objects.ts';

const STALL_MS = 1_500;

test('a stalled watch is detected within the bound, health fails meanwhile, and every change of the stall is published', async () => {
  const { natsUrl } = await testStack();
  const h = await startHarness({
    natsUrl,
    deferStart: true,
    kinds: [watchedKind('Ingress'), watchedKind('EndpointSlice')],
    timing: { stallMs: STALL_MS },
  });
  try {
    h.sim.objects.create(namespace('shop'));
    for (let i = 0; i < 3; i++) h.sim.objects.create(ingress('shop', `web${i}`));
    h.sim.objects.create(endpointSlice('shop', 'web0-a', 'web0', 3));
    h.startWatcher();
    await waitFor('synced', () => (h.watcher.readiness().ok ? true : undefined));

    h.sim.faults.stallWatches();
    const stalledAt = Date.now();
    h.sim.objects.delete({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', namespace: 'shop', name: 'web0' });
    h.sim.objects.create(ingress('shop', 'web9'));
    h.sim.objects.update({ ...endpointSlice('shop', 'web0-a', 'web0', 1, 50) });

    // Detection: the supervisor abandons the silent watch within the bound (plus one clock tick).
    await waitFor(
      'stall detected',
      async () =>
        (await metricValue(h.registry, 'portolan_watcher_restarts_total', { reason: 'stalled' })) >= 1
          ? true
          : undefined,
      STALL_MS + 2_000,
      20,
    );
    assert.ok(Date.now() - stalledAt <= STALL_MS + 1_500, `detected after ${Date.now() - stalledAt} ms`);
    // The relist is a plain list (not stalled): the changes of the stall reach the bus without any watch working.
    await waitFor(
      'changes of the stall published',
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
      STALL_MS * 2 + 5_000,
    );
    // Watches are still stalled: the kinds go stale again and /healthz says so.
    await waitFor(
      'unhealthy while watches stay silent',
      () => (!h.watcher.liveness().ok && !h.watcher.readiness().ok ? true : undefined),
      STALL_MS * 3,
    );
    // Liveness may have failed on the EndpointSlice stream first; the Ingress age passes the bound soon after.
    const ageOf = (): Promise<number> =>
      metricValue(h.registry, 'portolan_watcher_last_event_age_seconds', { kind: 'Ingress' });
    const first = await ageOf();
    await waitFor('Ingress age past the bound', async () => ((await ageOf()) > STALL_MS / 1000 ? true : undefined));
    const later = await ageOf();
    assert.ok(later > first, `portolan_watcher_last_event_age_seconds is exported and growing (${first} → ${later})`);

    h.sim.faults.resumeWatches();
    await waitFor(
      'healthy and ready after the stall ends',
      () => (h.watcher.liveness().ok && h.watcher.readiness().ok ? true : undefined),
      STALL_MS * 3,
    );
  } finally {
    await h.close();
  }
});

test('a quiet cluster with bookmarks never trips the stall detector and needs no relist', async () => {
  const { natsUrl } = await testStack();
  // Bookmarks every 300 ms against a 1.5 s bound; watches end (server timeout) every ~2 s and resume without a list.
  const h = await startHarness({
    natsUrl,
    deferStart: true,
    kinds: [watchedKind('Ingress'), watchedKind('Service')],
    timing: { stallMs: STALL_MS, watchTimeoutSeconds: 1 },
    sim: { bookmarkIntervalMs: 300 },
  });
  try {
    h.sim.objects.create(namespace('shop'));
    h.sim.objects.create(ingress('shop', 'web0'));
    h.startWatcher();
    await waitFor('synced', () => (h.watcher.readiness().ok ? true : undefined));
    const quietUntil = Date.now() + 5 * STALL_MS;
    while (Date.now() < quietUntil) {
      assert.ok(h.watcher.readiness().ok, `stays ready while quiet: ${JSON.stringify(h.watcher.readiness())}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(await metricValue(h.registry, 'portolan_watcher_restarts_total', { reason: 'stalled' }), 0);
    assert.equal(
      await metricValue(h.registry, 'portolan_watcher_relists_total'),
      2,
      'one initial list per kind, no more',
    );
  } finally {
    await h.close();
  }
});

test('a watcher stopped while 5 Ingresses and 3 EndpointSlices were deleted publishes list markers without them', async () => {
  const { natsUrl } = await testStack();
  const h = await startHarness({
    natsUrl,
    deferStart: true,
    kinds: [watchedKind('Ingress'), watchedKind('EndpointSlice')],
  });
  try {
    h.sim.objects.create(namespace('shop'));
    for (let i = 0; i < 8; i++) {
      h.sim.objects.create(ingress('shop', `web${i}`));
      h.sim.objects.create(service('shop', `web${i}`));
      h.sim.objects.create(endpointSlice('shop', `web${i}-a`, `web${i}`, 2, i * 4));
    }
    h.startWatcher();
    await waitFor('synced', () => (h.watcher.readiness().ok ? true : undefined));
    await h.watcher.stop({ flush: true });
    const before = (await h.read()).length;

    for (let i = 0; i < 5; i++)
      h.sim.objects.delete({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', namespace: 'shop', name: `web${i}` });
    for (let i = 0; i < 3; i++)
      h.sim.objects.delete({
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        namespace: 'shop',
        name: `web${i}-a`,
      });

    h.startWatcher();
    const markers = await waitFor('markers of the restarted watcher', async () => {
      const fresh = (await h.read()).slice(before).filter((r) => r.kind === 'marker');
      const ing = fresh.find((r) => r.kind === 'marker' && r.marker.kind === KubeKind.INGRESS);
      const eps = fresh.find((r) => r.kind === 'marker' && r.marker.kind === KubeKind.ENDPOINT_SLICE);
      return ing?.kind === 'marker' && eps?.kind === 'marker' ? { ing: ing.marker, eps: eps.marker } : undefined;
    });
    assert.deepEqual(markers.ing.keys, ['shop/web5', 'shop/web6', 'shop/web7']);
    assert.deepEqual(markers.eps.keys, ['shop/web3-a', 'shop/web4-a', 'shop/web5-a', 'shop/web6-a', 'shop/web7-a']);
    assert.equal(markers.ing.chunkCount, 1);
  } finally {
    await h.close();
  }
});

test('after a broker fault every kind is listed and published again, lost messages restored, the watches resuming', async () => {
  const { natsUrl } = await testStack();
  const h = await startHarness({
    natsUrl,
    deferStart: true,
    kinds: [watchedKind('Ingress'), watchedKind('EndpointSlice')],
  });
  try {
    h.sim.objects.create(namespace('shop'));
    h.sim.objects.create(ingress('shop', 'web0'));
    h.sim.objects.create(endpointSlice('shop', 'web0-a', 'web0', 2));
    h.startWatcher();
    await waitFor('synced', () => (h.watcher.readiness().ok ? true : undefined));
    // The first lists' markers may still be on their way when the kinds count as synced: wait for both.
    const before = await waitFor('the first markers', async () => {
      const records = await h.read();
      return records.filter((r) => r.kind === 'marker').length >= 2 ? records.at(-1)!.seq : undefined;
    });
    // The broker loses two messages it acknowledged (as a stream leader replaced after a pause can): the stream now
    // lacks both objects, and the watcher's ledger still says they were published.
    const lost = (await h.read()).filter((r) => r.kind === 'event');
    assert.equal(lost.length, 2);
    for (const r of lost) await h.bus.jsm.streams.deleteMessage(h.bus.declaration.kube.name, r.seq);
    assert.deepEqual(stateLines(foldEvents(await h.read(), KubeKind.INGRESS)), []);
    h.watcher.relistAfterBrokerFault();
    const relisted = await waitFor('both kinds relisted for the fault', async () => {
      const fresh = (await h.read()).filter((r) => r.seq > before && r.kind === 'marker');
      const kinds = new Set(fresh.map((r) => (r.kind === 'marker' ? r.marker.kind : null)));
      return kinds.has(KubeKind.INGRESS) && kinds.has(KubeKind.ENDPOINT_SLICE) ? fresh : undefined;
    });
    assert.equal(relisted.length, 2, 'one list marker per kind');
    assert.equal(await metricValue(h.registry, 'portolan_watcher_relists_total', { reason: 'broker-fault' }), 2);
    const restored = await h.read();
    assert.deepEqual(
      stateLines(foldEvents(restored, KubeKind.INGRESS)),
      stateLines(simState(h.sim, 'networking.k8s.io/v1', 'Ingress')),
    );
    assert.deepEqual(
      stateLines(foldEvents(restored, KubeKind.ENDPOINT_SLICE)),
      stateLines(simState(h.sim, 'discovery.k8s.io/v1', 'EndpointSlice')),
    );
    // The watches resume from the new list: a later change still arrives.
    h.sim.objects.create(ingress('shop', 'web1'));
    await waitFor('the change after the relist', async () => {
      const state = stateLines(foldEvents(await h.read(), KubeKind.INGRESS));
      return state.some((l) => l.includes('shop/web1')) ? true : undefined;
    });
  } finally {
    await h.close();
  }
});

test('a message acknowledged and lost, its id still deduplicated: the heartbeat shows it, a relist request restores it', async () => {
  const { natsUrl } = await testStack();
  const h = await startHarness({ natsUrl, deferStart: true, kinds: [watchedKind('Ingress')] });
  const acks = new JetStreamAckTarget(h.bus);
  // The broker acknowledges the first event of shop/lost and stores nothing, and keeps its id in the dedup window:
  // a copy under the same id is answered as a duplicate and dropped (as a replaced stream leader has done).
  const poisoned = new Set<string>();
  let dropped = 0;
  const lossy: PublishTarget = {
    publish: async (subject, data, options) => {
      if (poisoned.has(options.msgId)) return { duplicate: true };
      const change = subject.endsWith('.ingress') && options.msgId.endsWith(':MODIFIED');
      if (dropped === 0 && change && new TextDecoder().decode(data).includes('lost')) {
        dropped++;
        poisoned.add(options.msgId);
        return { duplicate: false };
      }
      return acks.publish(subject, data, options);
    },
    provision: () => acks.provision(),
  };
  let stop: () => void = () => undefined;
  try {
    h.sim.objects.create(namespace('shop'));
    h.sim.objects.create(ingress('shop', 'web0'));
    h.sim.objects.create(ingress('shop', 'lost'));
    h.startWatcher({ bus: lossy });
    stop = listenForRelistRequests(h.bus, h.cluster, h.watcher, silentLogger());
    await waitFor('synced', () => (h.watcher.readiness().ok ? true : undefined));
    // The change of shop/lost is the message the broker loses.
    h.sim.objects.update(ingress('shop', 'lost', 'moved.example.com'));
    const settled = await waitFor('a settled heartbeat after the lost change', async () => {
      if (dropped === 0) return undefined;
      const beats = (await h.read()).filter((r) => r.kind === 'heartbeat');
      const k = beats.at(-1)?.kind === 'heartbeat' ? beats.at(-1)!.heartbeat.kinds[0] : undefined;
      return k?.settled === true && k.objectCount === 2n ? k : undefined;
    });
    const sim = () => stateLines(simState(h.sim, 'networking.k8s.io/v1', 'Ingress'));
    const streamState = foldEvents(await h.read(), KubeKind.INGRESS);
    assert.notDeepEqual(stateLines(streamState), sim(), 'the stream holds the version before the lost change');
    assert.notEqual(settled.stateDigest, digestOf(streamState).digest, 'the digest tells the two apart');

    h.bus.notify(relistRequestSubject(h.cluster), new TextEncoder().encode(JSON.stringify({ kinds: ['Ingress'] })));
    const mended = await waitFor('the lost change republished', async () => {
      const state = foldEvents(await h.read(), KubeKind.INGRESS);
      return JSON.stringify(stateLines(state)) === JSON.stringify(sim()) ? state : undefined;
    });
    assert.deepEqual(stateLines(mended), stateLines(simState(h.sim, 'networking.k8s.io/v1', 'Ingress')));
    assert.equal(digestOf(mended).digest, settled.stateDigest, 'the stream now has what the watcher published');
    assert.equal(await metricValue(h.registry, 'portolan_watcher_relists_total', { reason: 'state-mismatch' }), 1);
  } finally {
    stop();
    await h.close();
  }
});

function digestOf(state: ReadonlyMap<string, string>): { digest: number; count: number } {
  const d = new RunningDigest();
  for (const [key, rv] of state) d.add(key, rv);
  return { digest: d.digest, count: d.count };
}

function silentLogger(): Logger {
  return createLogger('watcher-test', { destination: { write: () => true } as unknown as NodeJS.WritableStream });
}
