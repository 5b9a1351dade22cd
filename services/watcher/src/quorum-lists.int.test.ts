// A lagging watch cache: an API server whose watch cache lags answers `resourceVersion=0` lists with an old state. The watcher's
// lists (the first one and every relist after it) are quorum reads — no resourceVersion — so a lagging cache
// can never take the published state back in time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testStack } from '@portolan/infra';
import { KubeKind } from '@portolan/proto';
import type { RequestLogEntry } from '@portolan/kube-sim';
import { watchedKind } from './core/index.ts';
import { startHarness, waitFor, foldEvents, simState, stateLines, metricValue } from './testing/watcher-harness.ts';
import { ingress, namespace } from './testing/sample-objects.ts';

test('with a lagging RV=0 cache, every list and relist is a quorum read and the published state never goes back', async () => {
  const { natsUrl } = await testStack();
  const requests: RequestLogEntry[] = [];
  const h = await startHarness({
    natsUrl,
    deferStart: true,
    kinds: [watchedKind('Ingress')],
    timing: { relistMs: 700 },
    sim: { onRequest: (e) => requests.push(e) },
  });
  try {
    h.sim.objects.create(namespace('shop'));
    for (let i = 0; i < 3; i++) h.sim.objects.create(ingress('shop', `web${i}`));
    h.sim.faults.lagZeroResourceVersionReads(true); // RV=0 lists now answer with this frozen state
    h.sim.objects.delete({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', namespace: 'shop', name: 'web0' });
    h.sim.objects.create(ingress('shop', 'fresh'));
    const lagging = (await h.client.getJson('/apis/networking.k8s.io/v1/ingresses?resourceVersion=0')) as {
      items: { metadata: { name: string } }[];
    };
    assert.deepEqual(
      lagging.items.map((i) => i.metadata.name).sort(),
      ['web0', 'web1', 'web2'],
      'the simulator really serves a stale RV=0 list',
    );

    const fromWatcher = requests.length;
    h.startWatcher();
    const current = (): string => JSON.stringify(stateLines(simState(h.sim, 'networking.k8s.io/v1', 'Ingress')));
    await waitFor('synced to the current state', async () =>
      JSON.stringify(stateLines(foldEvents(await h.read(), KubeKind.INGRESS))) === current() ? true : undefined,
    );
    h.sim.objects.create(ingress('shop', 'later'));
    await waitFor(
      'two periodic relists',
      async () =>
        (await metricValue(h.registry, 'portolan_watcher_relists_total', { reason: 'relist-due' })) >= 2
          ? true
          : undefined,
      10_000,
    );
    await waitFor('still the current state', async () =>
      JSON.stringify(stateLines(foldEvents(await h.read(), KubeKind.INGRESS))) === current() ? true : undefined,
    );

    const listsSeen = (): RequestLogEntry[] =>
      requests
        .slice(fromWatcher)
        .filter((r) => r.method === 'GET' && r.url.includes('/ingresses') && !/[?&]watch=(1|true)/.test(r.url));
    // The relist counter moves as a relist starts; its request reaches the simulator a moment later.
    await waitFor(
      'the initial list and two relists at the simulator',
      async () => (listsSeen().length >= 3 ? true : undefined),
      10_000,
    );
    const lists = listsSeen();
    assert.ok(lists.length >= 3, `initial list and relists seen (${lists.length})`);
    for (const l of lists)
      assert.equal(new URL(l.url, 'https://x').searchParams.get('resourceVersion') ?? '', '', `quorum list: ${l.url}`);
    const records = await h.read();
    const web0 = records.filter((r) => r.kind === 'event' && r.event.name === 'web0');
    assert.deepEqual(web0, [], 'the object deleted before the first list was never published: no stale list was used');
  } finally {
    await h.close();
  }
});
