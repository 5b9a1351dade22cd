// One applier replica of the recorded audit scenario: its own lease client and elector, the real vTM driver and
// the real Applier, as a process would run them in production.
import { Applier, ArchivedSecretResolver, PgApplyLog, PgSnapshotSource } from '@portolan/applier';
import type { LoadedFleetConfig } from '@portolan/fleet-config';
import { LeaderElector, PgEpochStore, RedisLeaseClient, leaseTimings } from '@portolan/leadership';
import type { FleetKey } from '@portolan/secret-envelope';
import type { Database, Kysely } from '@portolan/store';
import { createVtmDriver, type VtmDriver } from '@portolan/vtm-driver';

/** One applier replica with its own elector (a process in production). */
export interface Replica {
  readonly id: string;
  readonly elector: LeaderElector;
  readonly lease: RedisLeaseClient;
  readonly driver: VtmDriver;
  readonly applier: Applier;
}

/** Builds a replica of the fleet's only appliance; the caller starts its elector and inits its applier. */
export async function startReplica(o: {
  appliance: string;
  id: string;
  fleet: LoadedFleetConfig;
  db: Kysely<Database>;
  fleetKey: FleetKey;
}): Promise<Replica> {
  // A long TTL: a loaded test machine must not lose the lease between steps (failover releases it explicitly).
  const t = leaseTimings({ ttlMs: 8000, renewEveryMs: 1000, retryEveryMs: 100 });
  if (!t.ok) throw new Error('bad lease timings');
  const lease = new RedisLeaseClient(o.fleet.config.leases.redisUrl, {
    commandTimeoutMs: t.timings.commandTimeoutMs,
  });
  const elector = new LeaderElector({
    group: o.appliance,
    holder: o.id,
    timings: t.timings,
    lease,
    epochs: new PgEpochStore(o.db),
  });
  const driver = await createVtmDriver(o.fleet.config.appliances[0]!, o.fleet.baseDir);
  const applier = new Applier({
    appliance: o.appliance,
    replicaId: o.id,
    driver,
    snapshots: new PgSnapshotSource(o.db),
    log: new PgApplyLog(o.db),
    leadership: () => elector.current(),
    secrets: new ArchivedSecretResolver(o.db, o.fleetKey),
    drift: { intervalMs: 3_600_000, policy: 'correct' },
    retry: { baseMs: 20, capMs: 200 },
    random: () => 0.5,
  });
  return { id: o.id, elector, lease, driver, applier };
}
