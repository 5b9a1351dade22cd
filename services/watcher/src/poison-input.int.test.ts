// Oversized objects and garbled or truncated lines: the bad input is counted and reported, the
// watcher keeps running and every other object keeps flowing. Trace context rides in the message headers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testStack } from '@portolan/infra';
import { KubeKind } from '@portolan/proto';
import { watchedKind } from './core/index.ts';
import { startHarness, waitFor, foldEvents, simState, stateLines, metricValue } from './testing/watcher-harness.ts';
import { ingress, namespace } from './testing/sample-objects.ts';

function hugeIngress(name: string, rules: number): ReturnType<typeof ingress> {
  const base = ingress('shop', name);
  const spec = base['spec'] as { rules: unknown[] };
  spec.rules = Array.from({ length: rules }, (_, i) => ({
    host: `h${i}-${'x'.repeat(40)}.example.com`,
    http: {
      paths: [{ path: `/p${i}`, pathType: 'Prefix', backend: { service: { name: `svc-${i}`, port: { number: 80 } } } }],
    },
  }));
  return base;
}

test('a 1.2 MiB Ingress is published without its body, reported with a Kubernetes Event and a metric; others keep flowing', async () => {
  const { natsUrl } = await testStack();
  const h = await startHarness({ natsUrl, deferStart: true, kinds: [watchedKind('Ingress')] });
  try {
    h.sim.objects.create(namespace('shop'));
    h.startWatcher();
    await waitFor('synced', () => (h.watcher.readiness().ok ? true : undefined));
    const big = h.sim.objects.create(hugeIngress('huge', 6_700));
    assert.ok(JSON.stringify(big).length > 1.1 * 1024 * 1024, `the object is ${JSON.stringify(big).length} bytes`);
    h.sim.objects.create(
      ingress('shop', 'annotated', 'a.example.com', 'a', { 'portolan.dev/note': 'y'.repeat(250 * 1024) }),
    );
    h.sim.objects.create(ingress('shop', 'after'));
    const records = await waitFor('the objects after the huge one', async () => {
      const r = await h.read();
      return r.some((x) => x.kind === 'event' && x.event.name === 'after') ? r : undefined;
    });
    const hugeEvent = records.find((r) => r.kind === 'event' && r.event.name === 'huge');
    assert.ok(hugeEvent?.kind === 'event', 'the huge object is still announced');
    assert.match(hugeEvent.event.omittedReason, /^ObjectTooLarge: /);
    assert.ok(hugeEvent.event.object.length < 1024, 'without its body');
    const annotated = records.find((r) => r.kind === 'event' && r.event.name === 'annotated');
    assert.ok(
      annotated?.kind === 'event' && annotated.event.omittedReason === '' && annotated.event.object.length > 250 * 1024,
      'a 250 KiB annotation still fits',
    );
    assert.equal(await metricValue(h.registry, 'portolan_watcher_objects_too_large_total', { kind: 'Ingress' }), 1);
    const events = await waitFor('a Kubernetes Event on the huge Ingress', () => {
      const e = h.sim.objects
        .list('v1', 'Event', 'shop')
        .filter((x) => (x as { reason?: string }).reason === 'ObjectTooLarge');
      return e.length > 0 ? e : undefined;
    });
    assert.equal((events[0] as { involvedObject?: { name?: string } }).involvedObject?.name, 'huge');
  } finally {
    await h.close();
  }
});

test('a garbled line and a truncated event are counted, and the relist they cause repairs the lost change', async () => {
  const { natsUrl } = await testStack();
  const h = await startHarness({ natsUrl, deferStart: true, kinds: [watchedKind('Ingress')] });
  try {
    h.sim.objects.create(namespace('shop'));
    h.sim.objects.create(ingress('shop', 'web0'));
    h.startWatcher();
    await waitFor('synced', () => (h.watcher.readiness().ok ? true : undefined));
    assert.equal(h.sim.faults.sendGarbledLine(), 1);
    await waitFor('relist after the garbled line', async () =>
      (await metricValue(h.registry, 'portolan_watcher_relists_total', { reason: 'garbled' })) === 1 ? true : undefined,
    );
    await waitFor('watching again', () => (h.sim.faults.openWatches === 1 ? true : undefined));
    h.sim.faults.garbleNextEvents(1);
    h.sim.objects.create(ingress('shop', 'lost-in-transit'));
    await waitFor('the truncated change repaired by a relist', async () => {
      const r = await h.read();
      return JSON.stringify(stateLines(foldEvents(r, KubeKind.INGRESS))) ===
        JSON.stringify(stateLines(simState(h.sim, 'networking.k8s.io/v1', 'Ingress')))
        ? true
        : undefined;
    });
    assert.equal(await metricValue(h.registry, 'portolan_watcher_decode_errors_total'), 2);
    assert.equal(await metricValue(h.registry, 'portolan_watcher_relists_total', { reason: 'garbled' }), 2);
  } finally {
    await h.close();
  }
});

test('every published event carries W3C trace context in its headers', async () => {
  const { natsUrl } = await testStack();
  const h = await startHarness({ natsUrl, deferStart: true, kinds: [watchedKind('Ingress')] });
  try {
    h.sim.objects.create(namespace('shop'));
    h.sim.objects.create(ingress('shop', 'web0'));
    h.startWatcher();
    const records = await waitFor('the event', async () => {
      const r = await h.read();
      return r.some((x) => x.kind === 'event') ? r : undefined;
    });
    const e = records.find((r) => r.kind === 'event');
    assert.ok(e?.kind === 'event');
    assert.match(e.headers['traceparent'] ?? '', /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
  } finally {
    await h.close();
  }
});
