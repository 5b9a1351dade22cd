import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  create,
  KubeEventSchema,
  KubeEventType,
  KubeKind,
  KubeListMarkerSchema,
  timestampFromMs,
  toBinary,
  WatcherHeartbeatSchema,
  KindFreshnessSchema,
} from '@portolan/proto';
import { decodeArchivedChange, formatObject } from './archived-change.ts';

const receivedAt = new Date('2026-11-22T14:00:00Z');
const row = (subject: string, payload: Uint8Array) => ({ seq: 7, subject, payload, receivedAt, traceId: 't1' });

test('decodeArchivedChange: an EndpointSlice event keeps identity, resourceVersion and its Service', () => {
  const object = new TextEncoder().encode(
    JSON.stringify({
      kind: 'EndpointSlice',
      metadata: { name: 'web-1', namespace: 'shop', labels: { 'kubernetes.io/service-name': 'web' } },
    }),
  );
  const payload = toBinary(
    KubeEventSchema,
    create(KubeEventSchema, {
      cluster: 'c1',
      kind: KubeKind.ENDPOINT_SLICE,
      namespace: 'shop',
      name: 'web-1',
      uid: 'u1',
      resourceVersion: '42',
      type: KubeEventType.MODIFIED,
      object,
    }),
  );
  const c = decodeArchivedChange(row('p.kube.c1.endpointslice', payload));
  assert.deepEqual(c, {
    type: 'event',
    seq: 7,
    at: '2026-11-22T14:00:00.000Z',
    traceId: 't1',
    cluster: 'c1',
    kind: 'EndpointSlice',
    namespace: 'shop',
    name: 'web-1',
    uid: 'u1',
    resourceVersion: '42',
    event: 'MODIFIED',
    service: 'web',
  });
  assert.equal(formatObject(c as never), 'c1/EndpointSlice/shop/web-1');
  assert.equal(formatObject({ cluster: 'c1', kind: 'Node', namespace: '', name: 'n1' }), 'c1/Node/n1');
});

test('decodeArchivedChange: markers and heartbeats by subject; garbage is data, not an exception', () => {
  const marker = toBinary(
    KubeListMarkerSchema,
    create(KubeListMarkerSchema, {
      cluster: 'c1',
      kind: KubeKind.INGRESS,
      listGeneration: 3n,
      chunkIndex: 0,
      chunkCount: 2,
      keys: ['a/b', 'a/c'],
    }),
  );
  assert.deepEqual(decodeArchivedChange(row('kube.c1.ingress.list', marker)), {
    type: 'marker',
    seq: 7,
    at: '2026-11-22T14:00:00.000Z',
    cluster: 'c1',
    kind: 'Ingress',
    generation: 3,
    keys: 2,
    chunk: '1/2',
  });
  const hb = toBinary(
    WatcherHeartbeatSchema,
    create(WatcherHeartbeatSchema, {
      cluster: 'c1',
      watcherId: 'w',
      sentAt: timestampFromMs(Date.parse('2026-11-22T13:59:59Z')),
      kinds: [create(KindFreshnessSchema, { kind: KubeKind.INGRESS, synced: true })],
    }),
  );
  assert.deepEqual(decodeArchivedChange(row('kube.c1.heartbeat', hb)), {
    type: 'heartbeat',
    seq: 7,
    at: '2026-11-22T14:00:00.000Z',
    cluster: 'c1',
    sentAt: '2026-11-22T13:59:59.000Z',
    synced: true,
    watcherId: 'w',
  });
  const bad = decodeArchivedChange(row('kube.c1.ingress', new Uint8Array([0xff, 0xff, 0xff])));
  assert.equal(bad.type, 'unreadable');
});
