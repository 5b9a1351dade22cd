import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  create,
  toBinary,
  timestampFromMs,
  HoldApprovedSchema,
  ObjectsRefusedSchema,
  KubeEventSchema,
  KubeListMarkerSchema,
  WatcherHeartbeatSchema,
  KubeKind,
  KubeEventType,
} from '@portolan/proto';
import { decodeBusMessage } from './decode-bus-message.ts';

const enc = new TextEncoder();

test('a KubeEvent decodes to a watch event with its trimmed object and observation time', () => {
  const bytes = toBinary(
    KubeEventSchema,
    create(KubeEventSchema, {
      cluster: 'dev',
      kind: KubeKind.ENDPOINT_SLICE,
      namespace: 'shop',
      name: 'web-1',
      uid: 'u',
      resourceVersion: '7',
      type: KubeEventType.DELETED,
      object: enc.encode('{"metadata":{"name":"web-1"}}'),
      listGeneration: 2n,
      observedAt: timestampFromMs(5000),
    }),
  );
  assert.deepEqual(decodeBusMessage('kube.dev.endpointslice', bytes), {
    type: 'event',
    event: {
      cluster: 'dev',
      kind: 'EndpointSlice',
      type: 'DELETED',
      object: { metadata: { name: 'web-1' } },
      generation: 2,
    },
    namespace: 'shop',
    name: 'web-1',
    observedAtMs: 5000,
    omittedReason: '',
  });
});

test('list markers and heartbeats decode by subject', () => {
  const marker = toBinary(
    KubeListMarkerSchema,
    create(KubeListMarkerSchema, {
      cluster: 'dev',
      kind: KubeKind.INGRESS,
      listResourceVersion: '9',
      listGeneration: 3n,
      chunkIndex: 0,
      chunkCount: 1,
      keys: ['a/x'],
      observedAt: timestampFromMs(7000),
    }),
  );
  assert.deepEqual(decodeBusMessage('kube.dev.ingress.list', marker), {
    type: 'marker',
    marker: {
      cluster: 'dev',
      kind: 'Ingress',
      generation: 3,
      resourceVersion: '9',
      chunkIndex: 0,
      chunkCount: 1,
      keys: ['a/x'],
      observedAtMs: 7000,
    },
    observedAtMs: 7000,
  });
  const hb = toBinary(
    WatcherHeartbeatSchema,
    create(WatcherHeartbeatSchema, {
      cluster: 'dev',
      watcherId: 'w1',
      kinds: [
        { kind: KubeKind.NODE, synced: true },
        { kind: KubeKind.INGRESS, synced: true, settled: true, stateDigest: 0xdeadbeef, objectCount: 3n },
      ],
      sentAt: timestampFromMs(42),
    }),
  );
  assert.deepEqual(decodeBusMessage('kube.dev.heartbeat', hb), {
    type: 'heartbeat',
    cluster: 'dev',
    sentAtMs: 42,
    synced: true,
    watcherId: 'w1',
    settled: [{ kind: 'Ingress', digest: { digest: 0xdeadbeef, count: 3 } }],
  });
});

test('a delete the watcher inferred from a relist keeps that mark; an approval decodes with who, why and when', () => {
  const inferred = toBinary(
    KubeEventSchema,
    create(KubeEventSchema, {
      cluster: 'dev',
      kind: KubeKind.INGRESS,
      namespace: 'a',
      name: 'x',
      uid: 'u',
      resourceVersion: '3',
      type: KubeEventType.DELETED,
      object: enc.encode('{"metadata":{"name":"x"}}'),
      noticedByRelist: true,
    }),
  );
  const decoded = decodeBusMessage('kube.dev.ingress', inferred);
  assert.equal(decoded.type === 'event' && decoded.event.noticedByRelist, true);
  const approval = toBinary(
    HoldApprovedSchema,
    create(HoldApprovedSchema, {
      appliance: 'edge',
      approvedBy: 'alice',
      reason: 'team gone',
      approvedAt: timestampFromMs(9000),
      approvalId: 'id-1',
    }),
  );
  assert.deepEqual(decodeBusMessage('kube._operator.approval', approval), {
    type: 'approval',
    approval: { appliance: 'edge', approvedBy: 'alice', reason: 'team gone', approvalId: 'id-1' },
    approvedAtMs: 9000,
  });
});

test('an appliance refusal decodes with its objects; kinds other than Ingress and Secret are dropped', () => {
  const bytes = toBinary(
    ObjectsRefusedSchema,
    create(ObjectsRefusedSchema, {
      appliance: 'edge',
      snapshotId: 12n,
      refusedAt: timestampFromMs(3000),
      objects: [
        { cluster: 'c', kind: 'Secret', namespace: 'n', name: 's', message: 'bad key' },
        { cluster: 'c', kind: 'Node', namespace: '', name: 'x', message: '?' },
      ],
    }),
  );
  assert.deepEqual(decodeBusMessage('kube._appliance.refused', bytes), {
    type: 'refused',
    refusal: {
      appliance: 'edge',
      snapshotId: '12',
      objects: [{ cluster: 'c', kind: 'Secret', namespace: 'n', name: 's', message: 'bad key' }],
    },
    refusedAtMs: 3000,
  });
});

test('garbage is an unreadable input with a reason, never an exception', () => {
  const r = decodeBusMessage('kube.dev.ingress', new Uint8Array([0xff, 0xff, 0xff]));
  assert.equal(r.type, 'unreadable');
});
