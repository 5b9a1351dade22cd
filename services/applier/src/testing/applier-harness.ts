import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { LeaderElector, PgEpochStore, RedisLeaseClient, leaseTimings, type Leadership } from '@portolan/leadership';
import type { FleetKey } from '@portolan/secret-envelope';
import type { TestDatabase } from '@portolan/store';
import type { DriftPolicy } from '../core/drift-report.ts';
import { Applier } from '../applier.ts';
import { ArchivedSecretResolver } from '../adapters/archived-secret-resolver.ts';
import { PgApplyLog } from '../adapters/pg-apply-log.ts';
import { PgSnapshotSource } from '../adapters/pg-snapshot-source.ts';
import { FakeAppliance, FakeApplianceDriver } from './fake-appliance.ts';

// An Applier over a fake appliance, with a real store, a real lease and a real epoch, for the integration tests.

/** A short random name, so that tests sharing a database do not meet. */
export const unique = (): string => randomBytes(4).toString('hex');

/** Lease timings short enough for tests. */
export const testTimings = (() => {
  const t = leaseTimings({ ttlMs: 2000, renewEveryMs: 400, retryEveryMs: 100 });
  assert.ok(t.ok);
  return t.timings;
})();

/** Where the harness keeps its records and leases. */
export interface HarnessEnv {
  readonly database: TestDatabase;
  readonly redisUrl: string;
  readonly fleetKey: FleetKey;
}

/** How a harness is built. */
export interface HarnessOptions {
  readonly policy?: DriftPolicy;
  readonly fenceByEpoch?: boolean;
  readonly fake?: FakeAppliance;
  readonly appliance?: string;
  readonly replica?: string;
  readonly writeGate?: boolean;
}

/** A leading Applier over a fake appliance. */
export interface Harness {
  readonly appliance: string;
  readonly fake: FakeAppliance;
  readonly driver: FakeApplianceDriver;
  readonly applier: Applier;
  readonly leadership: Leadership;
  readonly close: () => Promise<void>;
}

/** Starts a leader for a fresh appliance and its Applier (initialised, not started). */
export async function harness(env: HarnessEnv, options: HarnessOptions = {}): Promise<Harness> {
  const { database, redisUrl, fleetKey } = env;
  const appliance = options.appliance ?? `a${unique()}`;
  const fake = options.fake ?? new FakeAppliance({ fenceByEpoch: options.fenceByEpoch ?? false });
  const driver = new FakeApplianceDriver(fake, 'haproxy', { writeGate: options.writeGate === true });
  const lease = new RedisLeaseClient(redisUrl, { commandTimeoutMs: testTimings.commandTimeoutMs });
  const elector = new LeaderElector({
    group: appliance,
    holder: options.replica ?? 'r1',
    timings: testTimings,
    lease,
    epochs: new PgEpochStore(database.db),
    keyPrefix: `t${unique()}:`,
  });
  elector.start();
  const leadership = await elector.waitForLeadership();
  const applier = new Applier({
    appliance,
    replicaId: options.replica ?? 'r1',
    driver,
    snapshots: new PgSnapshotSource(database.db),
    log: new PgApplyLog(database.db),
    leadership: () => elector.current(),
    secrets: new ArchivedSecretResolver(database.db, fleetKey),
    drift: { intervalMs: 3_600_000, policy: options.policy ?? 'correct' },
    retry: { baseMs: 20, capMs: 200 },
    random: () => 0.5,
  });
  await applier.init();
  return {
    appliance,
    fake,
    driver,
    applier,
    leadership,
    close: async () => {
      await applier.stop();
      await elector.stop();
      lease.close();
    },
  };
}

/** The appliance's apply records, oldest first. */
export async function applies(
  database: TestDatabase,
  appliance: string,
): Promise<
  { id: string; status: string; epoch: number; snapshot_id: string; operations: unknown; results: unknown }[]
> {
  const rows = await database.db
    .selectFrom('applies')
    .select(['id', 'status', 'epoch', 'snapshot_id', 'operations', 'results'])
    .where('appliance', '=', appliance)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ ...r, id: String(r.id), epoch: Number(r.epoch), snapshot_id: String(r.snapshot_id) }));
}
