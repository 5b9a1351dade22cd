import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApplierBus } from './adapters/bus-adapter.ts';
import type { PgApplyLog } from './adapters/pg-apply-log.ts';
import type { SnapshotSource } from './adapters/pg-snapshot-source.ts';
import { Applier } from './applier.ts';
import { FakeAppliance, FakeApplianceDriver } from './testing/fake-appliance.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A started follower (never leads) over a fake bus and an empty snapshot store that counts head reads. */
async function startedFollower(
  followerDelayMs: number,
): Promise<{ applier: Applier; notify: (id: string) => void; headReads: () => number }> {
  let notify: (id: string) => void = () => {};
  const bus = { followSnapshots: (f: (id: string) => void) => void (notify = f) } as unknown as ApplierBus;
  let reads = 0;
  const snapshots: SnapshotSource = {
    head: async () => (reads++, null),
    get: () => Promise.reject(new Error('no snapshots here')),
    oldestUnappliedAt: async () => null,
  };
  const log = { lastApplied: async () => null, recordedHolds: async () => new Set<string>() } as unknown as PgApplyLog;
  const applier = new Applier({
    appliance: 'edge',
    replicaId: 'f',
    driver: new FakeApplianceDriver(new FakeAppliance()),
    snapshots,
    log,
    leadership: () => null,
    secrets: { resolve: () => Promise.reject(new Error('no secrets')) },
    drift: { intervalMs: 3_600_000, policy: 'report' },
    bus,
    pollMs: 3_600_000,
    followerDelayMs,
  });
  await applier.start();
  // The start-up head poll and first cycle read the head once each.
  for (let i = 0; i < 100 && reads < 2; i++) await sleep(5);
  return { applier, notify: (id) => notify(id), headReads: () => reads };
}

test('a follower reads a notified snapshot after followerDelayMs, once for a burst of notifications', async () => {
  const { applier, notify, headReads } = await startedFollower(60);
  try {
    const before = headReads();
    assert.equal(before, 2, 'the start-up poll and first cycle read the head');
    notify('1');
    notify('2');
    notify('3');
    await sleep(20);
    assert.equal(headReads(), before, 'nothing read before the delay');
    for (let i = 0; i < 100 && headReads() === before; i++) await sleep(10);
    await sleep(60);
    assert.equal(headReads(), before + 1, 'three notifications, one cycle');
  } finally {
    await applier.stop();
  }
});

test('a steady stream of notifications still gets a follower catch-up within forty delays', async () => {
  const { applier, notify, headReads } = await startedFollower(20);
  try {
    const before = headReads();
    // A notification every 2 ms for over a second: no 20 ms of quiet, yet catch-ups happen (every ≤ 780 ms).
    const t0 = performance.now();
    for (let i = 0; i < 550; i++) {
      notify(String(i));
      await sleep(2);
    }
    const elapsed = performance.now() - t0;
    assert.ok(
      headReads() - before >= 1,
      `catch-ups during ${Math.round(elapsed)} ms of notifications: ${headReads() - before}`,
    );
    assert.ok(headReads() - before <= 20, `far fewer catch-ups than the 550 notifications: ${headReads() - before}`);
  } finally {
    await applier.stop();
  }
});

test('stopping an applier has its driver write what it deferred, after the last cycle', async () => {
  const driver = new FakeApplianceDriver(new FakeAppliance());
  const settled: string[] = [];
  driver.settle = async () => void settled.push('settled');
  const snapshots: SnapshotSource = {
    head: async () => null,
    get: () => Promise.reject(new Error('none')),
    oldestUnappliedAt: async () => null,
  };
  const log = { lastApplied: async () => null, recordedHolds: async () => new Set<string>() } as unknown as PgApplyLog;
  const applier = new Applier({
    appliance: 'edge',
    replicaId: 'f',
    driver,
    snapshots,
    log,
    leadership: () => null,
    secrets: { resolve: () => Promise.reject(new Error('no secrets')) },
    drift: { intervalMs: 3_600_000, policy: 'report' },
    pollMs: 3_600_000,
  });
  await applier.start();
  assert.deepEqual(settled, []);
  await applier.stop();
  assert.deepEqual(settled, ['settled']);
});
