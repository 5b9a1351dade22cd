import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testStack } from '@portolan/infra';
import { KubeEventType } from '@portolan/proto';
import { startHarness, waitFor, eventLines, type StreamRecord } from './testing/watcher-harness.ts';
import { WATCHED_KINDS } from './core/watched-kinds.ts';
import { ingress, service, endpointSlice, namespace, tlsSecret } from './testing/sample-objects.ts';

const markersOf = (records: readonly StreamRecord[], kindToken: number): StreamRecord[] =>
  records.filter((r) => r.kind === 'marker' && r.marker.kind === kindToken);

test('initial sync publishes every object once, then one marker per kind; a relist with no change publishes only markers', async () => {
  const { natsUrl } = await testStack();
  const h = await startHarness({ natsUrl, deferStart: true });
  try {
    h.sim.objects.create(namespace('shop'));
    for (let i = 0; i < 3; i++) {
      h.sim.objects.create(service('shop', `web${i}`));
      h.sim.objects.create(ingress('shop', `web${i}`));
      h.sim.objects.create(endpointSlice('shop', `web${i}-a`, `web${i}`, 3, i * 10));
    }
    h.sim.objects.create(ingress('kube-system', 'hidden'));
    h.startWatcher();
    const first = await waitFor('a marker for every kind', async () => {
      const r = await h.read();
      const kinds = new Set(r.flatMap((x) => (x.kind === 'marker' ? [x.marker.kind] : [])));
      return kinds.size === WATCHED_KINDS.length ? r : undefined;
    });
    const events = eventLines(first);
    assert.equal(events.filter((e) => e.includes('shop/web')).length, 9, events.join('\n'));
    assert.ok(
      !first.some((r) => r.kind === 'event' && r.event.namespace === 'kube-system'),
      'kube-system is outside the default scope',
    );
    const ingressMarker = markersOf(first, 1)[0];
    assert.ok(ingressMarker?.kind === 'marker');
    assert.deepEqual(ingressMarker.marker.keys, ['shop/web0', 'shop/web1', 'shop/web2']);
    await waitFor('ready', () => (h.watcher.readiness().ok ? true : undefined));

    // Force a relist of every stream (as the periodic timer would): nothing changed, so only markers follow.
    const before = first.length;
    h.sim.faults.sendWatchGone();
    const after = await waitFor('second round of markers', async () => {
      const r = await h.read();
      return markersOf(r.slice(before), 1).length >= 1 && markersOf(r.slice(before), 4).length >= 1 ? r : undefined;
    });
    const added = after.slice(before).filter((r) => r.kind !== 'heartbeat');
    assert.ok(
      added.every((r) => r.kind === 'marker'),
      `only markers after a no-change relist, got ${eventLines(added).join(', ')}`,
    );
  } finally {
    await h.close();
  }
});

test('TLS Secrets are published sealed: no key material on the bus', async () => {
  const { natsUrl } = await testStack();
  const h = await startHarness({ natsUrl, deferStart: true });
  try {
    h.sim.objects.create(namespace('shop'));
    h.sim.objects.create(tlsSecret('shop', 'cert'));
    h.sim.objects.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { namespace: 'shop', name: 'opaque' },
      data: { password: 'aHVudGVyMg==' },
    } as never);
    h.startWatcher();
    const records = await waitFor('the secret event', async () => {
      const r = await h.read();
      return r.some((x) => x.kind === 'event' && x.event.name === 'cert') ? r : undefined;
    });
    const secretEvents = records.filter((r) => r.kind === 'event' && r.event.kind === 5);
    assert.deepEqual(
      secretEvents.map((r) => (r.kind === 'event' ? r.event.name : '')),
      ['cert'],
      'only kubernetes.io/tls Secrets are watched',
    );
    const text = Buffer.concat(
      records.map((r) => (r.kind === 'event' ? Buffer.from(r.event.object) : Buffer.alloc(0))),
    ).toString('utf8');
    assert.ok(
      !text.includes('SUPERSECRETKEYMATERIAL') &&
        !text.includes(Buffer.from('SUPERSECRETKEYMATERIAL').toString('base64').slice(0, 16)),
      'no plaintext',
    );
    const obj = JSON.parse(
      Buffer.from((secretEvents[0] as Extract<StreamRecord, { kind: 'event' }>).event.object).toString('utf8'),
    ) as { sealed: { keyId: string }; fingerprint: string };
    assert.equal(obj.sealed.keyId, 'test');
    assert.match(obj.fingerprint, /^[0-9a-f]{64}$/);
    assert.equal(KubeEventType[(secretEvents[0] as Extract<StreamRecord, { kind: 'event' }>).event.type], 'ADDED');
  } finally {
    await h.close();
  }
});
