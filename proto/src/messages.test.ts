import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import {
  create,
  toBinary,
  fromBinary,
  timestampFromMs,
  KubeEventSchema,
  KubeListMarkerSchema,
  WatcherHeartbeatSchema,
  SnapshotCommittedSchema,
  ApplyRecordedSchema,
  DriftObservedSchema,
  KubeKind,
  KubeEventType,
  ApplyStatus,
  DriftAction,
} from './index.ts';

const at = timestampFromMs(1_700_000_000_123);
const enc = new TextEncoder();

// One representative, fully populated message per contract: a field dropped by the encoder would fail the equality.
const cases = [
  [
    'KubeEvent',
    KubeEventSchema,
    {
      cluster: 'dev',
      kind: KubeKind.ENDPOINT_SLICE,
      namespace: 'shop',
      name: 'web-abc',
      uid: 'u-1',
      resourceVersion: '42',
      type: KubeEventType.MODIFIED,
      object: enc.encode('{"a":1}'),
      listGeneration: 3n,
      observedAt: at,
      omittedReason: '',
    },
  ],
  [
    'KubeListMarker',
    KubeListMarkerSchema,
    {
      cluster: 'dev',
      kind: KubeKind.INGRESS,
      listResourceVersion: '99',
      listGeneration: 4n,
      chunkIndex: 1,
      chunkCount: 2,
      keys: ['a/x', 'b/y'],
      observedAt: at,
    },
  ],
  [
    'WatcherHeartbeat',
    WatcherHeartbeatSchema,
    {
      cluster: 'dev',
      watcherId: 'w1',
      kinds: [{ kind: KubeKind.NODE, lastEventAgeMs: 1500n, synced: true, listGeneration: 1n }],
      sentAt: at,
    },
  ],
  [
    'SnapshotCommitted',
    SnapshotCommittedSchema,
    {
      appliance: 'edge',
      snapshotId: 7n,
      contentHash: 'ab',
      parentHash: 'aa',
      lastEventSeq: 1234n,
      fleetConfigHash: 'cf',
      plannerVersion: '1',
      createdAt: at,
      held: true,
      holdReason: 'removes 40% of members',
    },
  ],
  [
    'ApplyRecorded',
    ApplyRecordedSchema,
    {
      appliance: 'edge',
      applyId: 9n,
      snapshotId: 7n,
      contentHash: 'ab',
      epoch: 12n,
      leaderId: 'applier-a',
      status: ApplyStatus.PARTIAL,
      operations: 5,
      failedOperations: 1,
      durationMs: 17n,
      finishedAt: at,
    },
  ],
  [
    'DriftObserved',
    DriftObservedSchema,
    {
      appliance: 'edge',
      snapshotId: 7n,
      objects: ['pools/web'],
      before: enc.encode('{}'),
      after: enc.encode('{"x":1}'),
      action: DriftAction.CORRECTED,
      observedAt: at,
    },
  ],
] as const;

for (const [name, schema, init] of cases) {
  test(`${name} survives a binary round trip with every field intact`, () => {
    // The schemas differ per case; the generic helpers take any of them.
    const message = create(schema as never, init as never);
    const decoded = fromBinary(schema as never, toBinary(schema as never, message));
    assert.deepEqual(decoded, message);
    for (const key of Object.keys(init))
      assert.notEqual((decoded as Record<string, unknown>)[key], undefined, `${name}.${key} lost`);
  });
}

test('the committed generated code matches the .proto sources', () => {
  const root = path.resolve(import.meta.dirname, '..', '..');
  const out = execFileSync(
    path.join(root, 'node_modules', '.bin', 'node'),
    [path.join(root, 'scripts', 'generate-proto.ts'), '--check'],
    { encoding: 'utf8' },
  );
  assert.match(out, /generated protobuf code is current/);
});
