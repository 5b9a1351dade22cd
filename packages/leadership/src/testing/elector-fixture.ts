// The shared setup of the leadership integration tests: a test database with a `fenced_writes` table, in-process
// electors with their own Redis connection, and the arguments of a candidate child process.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { testStack } from '@portolan/infra';
import { createTestDatabase, sql, type TestDatabase } from '@portolan/store';
import { LeaderElector, type LeaderEvent } from '../leader-elector.ts';
import { PgEpochStore } from '../adapters/pg-epoch-store.ts';
import { RedisLeaseClient } from '../adapters/redis-lease-client.ts';
import { leaseTimings, type LeaseTimings } from '../core/lease-timings.ts';

/** An in-process elector, the events it reported (with wall-clock times) and its own lease client. */
export interface TestElector {
  readonly e: LeaderElector;
  readonly events: (LeaderEvent & { at: number })[];
  readonly lease: RedisLeaseClient;
  close(): Promise<void>;
}

/** What a test file gets from `electorFixture()`; the database and Redis URL are set once `before` ran. */
export interface ElectorFixture {
  readonly database: TestDatabase;
  readonly redisUrl: string;
  elector(group: string, holder: string, timings: LeaseTimings, prefix: string, url?: string): TestElector;
  childArgs(group: string, holder: string, t: LeaseTimings, prefix: string): Record<string, string>;
  history(
    group: string,
  ): Promise<{ epoch: number; holder: string; acting_delay_ms: number; redis_run_id: string | null }[]>;
}

/** Validated timings (the test fails on a bad set). */
export function timingsOf(ttlMs: number, renewEveryMs: number, retryEveryMs: number): LeaseTimings {
  const r = leaseTimings({ ttlMs, renewEveryMs, retryEveryMs });
  assert.ok(r.ok);
  return r.timings;
}

/** The production defaults, and a fast set for tests that wait for several TTLs. */
export const defaults = timingsOf(4000, 1000, 500);
export const fast = timingsOf(1000, 200, 100);

/** A fresh name, so tests sharing Redis and the database never see each other's groups and keys. */
export const unique = (): string => randomBytes(4).toString('hex');

/** An elector on `redisUrl` and the database's epochs, recording its events; not started. */
function newTestElector(
  database: TestDatabase,
  redisUrl: string,
  o: { group: string; holder: string; timings: LeaseTimings; prefix: string },
): TestElector {
  const lease = new RedisLeaseClient(redisUrl, { commandTimeoutMs: o.timings.commandTimeoutMs });
  const events: (LeaderEvent & { at: number })[] = [];
  const e = new LeaderElector({
    group: o.group,
    holder: o.holder,
    timings: o.timings,
    lease,
    epochs: new PgEpochStore(database.db),
    keyPrefix: o.prefix,
    onEvent: (ev) => events.push({ ...ev, at: Date.now() }),
  });
  return {
    e,
    events,
    lease,
    close: async () => {
      await e.stop();
      lease.close();
    },
  };
}

/** Registers the file's before/after hooks and returns the fixture they fill. */
export function electorFixture(): ElectorFixture {
  let database: TestDatabase | undefined;
  let redisUrl: string | undefined;
  before(async () => {
    const stack = await testStack();
    redisUrl = stack.redisUrl;
    database = await createTestDatabase(stack.postgresUrl);
    await sql`CREATE TABLE fenced_writes (id bigserial PRIMARY KEY, epoch bigint NOT NULL, holder text NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp())`.execute(
      database.db,
    );
  });
  after(async () => {
    await database?.drop();
  });
  const fixture: ElectorFixture = {
    get database() {
      assert.ok(database !== undefined, 'the fixture is used before its before() hook ran');
      return database;
    },
    get redisUrl() {
      assert.ok(redisUrl !== undefined, 'the fixture is used before its before() hook ran');
      return redisUrl;
    },
    elector: (group, holder, timings, prefix, url) =>
      newTestElector(fixture.database, url ?? fixture.redisUrl, { group, holder, timings, prefix }),
    childArgs: (group, holder, t, prefix) => ({
      redis: fixture.redisUrl,
      db: fixture.database.url,
      group,
      holder,
      prefix,
      ttl: String(t.ttlMs),
      renew: String(t.renewEveryMs),
      retry: String(t.retryEveryMs),
    }),
    history: async (group) => {
      const rows = await fixture.database.db
        .selectFrom('leader_epoch_history')
        .select(['epoch', 'holder', 'acting_delay_ms', 'redis_run_id'])
        .where('group_name', '=', group)
        .orderBy('id')
        .execute();
      return rows.map((r) => ({ ...r, epoch: Number(r.epoch) }));
    },
  };
  return fixture;
}
