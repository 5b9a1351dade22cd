// @serial: a fault loop that loads the whole machine; `npm test` runs it after the rest, alone.
// The planner against a Postgres that goes away: a private Postgres (stopping the shared test stack's would break
// the tests beside this one) is stopped with `pg_ctl stop -m fast|immediate` at random points of the planner's
// batches and started again, while the planner is also killed and restarted, and a checker then holds the pipeline
// to its invariant: every acknowledged change is in the next snapshot of every appliance it concerns. SEED=<n>
// repeats a run's draws (the interleaving with the servers' timing still varies).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomInt } from 'node:crypto';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { busDeclaration, NatsEventBus, type BusMessage } from '@portolan/bus';
import { createTestDatabase, type TestDatabase } from '@portolan/store';
import { testStack } from '@portolan/infra';
import { createLogger } from '@portolan/telemetry';
import { PgPlannerStore, type CommittedSnapshot } from './adapters/pg-planner-store.ts';
import { PlannerService } from './planner-service.ts';
import { replayVerify } from './replay-verify.ts';
import { joinSnapshot } from '@portolan/snapshot';
import { startPrivatePostgres, type PrivatePostgres } from './testing/private-postgres.ts';
import { KubeTraffic, headMembers, outageFleet, seededRandom, storedPieces } from './testing/outage-world.ts';

const SEED = process.env.SEED === undefined ? randomInt(2 ** 31) : Number(process.env.SEED);
process.stdout.write(`planner outage tests: SEED=${SEED}\n`);
const random = seededRandom(SEED);
const { config, hash } = outageFleet;

/** Planner log lines by message (a failed run's summary shows what the planner went through). */
const logged = new Map<string, number>();
const log = createLogger('planner-outage', {
  destination: new Writable({
    write: (chunk: Buffer, _e, done) => {
      for (const line of chunk.toString('utf8').split('\n'))
        if (line !== '') {
          const msg = (JSON.parse(line) as { msg?: string }).msg ?? '?';
          logged.set(msg, (logged.get(msg) ?? 0) + 1);
        }
      done();
    },
  }),
});

/** A planner incarnation that was killed: it writes nothing more and acks nothing. */
class PlannerKilledError extends Error {
  readonly code = 'TEST_PLANNER_KILLED';
  constructor(message: string) {
    super(message);
    this.name = 'PlannerKilledError';
  }
}

type CommitBatch = Parameters<PgPlannerStore['commit']>[0];
/** Points of a batch where the fault loop may strike. */
type FaultPoint = 'before-fold' | 'before-commit' | 'during-commit' | 'after-commit';

/** The store of one planner incarnation: hooks around every commit, and no write once the incarnation is dead. */
class HookedStore extends PgPlannerStore {
  dead = false;
  private readonly hook: (point: FaultPoint) => Promise<void>;
  constructor(db: PgPlannerStore['db'], hook: (point: FaultPoint) => Promise<void>) {
    super(db);
    this.hook = hook;
  }

  override async commit(batch: CommitBatch): Promise<CommittedSnapshot[]> {
    if (this.dead) throw new PlannerKilledError('a killed planner writes nothing');
    await this.hook('before-commit');
    const during = this.hook('during-commit');
    let committed: CommittedSnapshot[];
    try {
      committed = await super.commit(batch);
    } finally {
      await during;
    }
    // A process killed while its commit was in flight never learns the outcome, whatever Postgres did with it.
    if (this.dead) throw new PlannerKilledError('killed before its commit was answered');
    return committed;
  }
}

let pg: PrivatePostgres;
let natsUrl: string;
before(async () => {
  natsUrl = (await testStack()).natsUrl;
  pg = await startPrivatePostgres();
});
after(async () => {
  await pg?.destroy();
  process.stdout.write(`planner log lines: ${JSON.stringify(Object.fromEntries(logged))}\n`);
});

/** A fresh stream (own subject prefix) and a fresh database on the private Postgres. */
async function harness(ackWaitMs: number): Promise<{
  bus: NatsEventBus;
  tdb: TestDatabase;
  declaration: ReturnType<typeof busDeclaration>;
  teardown: () => Promise<void>;
}> {
  const stream = `OUT_${randomBytes(4).toString('hex')}`;
  const declaration = busDeclaration({
    stream,
    replicas: 1,
    maxPayloadBytes: 1 << 20,
    subjectPrefix: stream,
    ackWaitMs,
  });
  const bus = await NatsEventBus.open(natsUrl, declaration, { name: 'outage-producer' });
  const tdb = await createTestDatabase(pg.url);
  return {
    bus,
    tdb,
    declaration,
    teardown: async () => {
      await bus.jsm.streams.delete(stream);
      await bus.jsm.streams.delete(declaration.pipeline.name);
      await bus.close();
      await tdb.drop();
    },
  };
}

/** Waits until the committed position reaches `seq` (read by the checker's own queries, retried while Postgres is down). */
async function caughtUp(store: PgPlannerStore, seq: number, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  let position = 0;
  let lastError: unknown = null;
  for (;;) {
    try {
      position = await store.position();
      if (position >= seq) return;
    } catch (e) {
      lastError = e;
    }
    if (performance.now() > deadline)
      assert.fail(
        `the planner committed ${position} of ${seq} within ${timeoutMs} ms (last read error: ${String(lastError)}; SEED=${SEED})`,
      );
    await sleep(50);
  }
}

test('a change whose commit fails (Postgres stopped between the fold and the commit) is in the snapshot once the batch is redelivered', async () => {
  const h = await harness(30_000);
  const stop = new AbortController();
  let restarted: Promise<void> | null = null;
  try {
    const traffic = new KubeTraffic(h.bus, random);
    await traffic.publishWorld();
    // The user's report: Postgres stopped (fast) just before the change's commit, started again a moment later.
    let strike = false;
    const store = new HookedStore(h.tdb.db, async (point) => {
      if (point !== 'before-commit' || !strike) return;
      strike = false;
      await pg.stop('fast');
      restarted = sleep(300).then(() => pg.start());
    });
    const service = new PlannerService({ store, bus: h.bus, config, fleetConfigHash: hash, log, metrics: null });
    await service.recover();
    const failures: unknown[] = [];
    const consuming = h.bus.consumeBatches('planner', (batch) => service.handleBatch(batch), {
      signal: stop.signal,
      onError: (e) => failures.push(e),
    });
    const checker = new PgPlannerStore(h.tdb.db);
    await caughtUp(checker, traffic.lastSeq, 20_000);
    strike = true;
    await traffic.change();
    await caughtUp(checker, traffic.lastSeq, 20_000);
    stop.abort();
    await consuming;
    await restarted;
    assert.ok(failures.length > 0, 'the commit failed at least once');
    const heads = await headMembers(checker);
    for (const appliance of ['edge', 'both'])
      assert.deepEqual(
        heads.get(appliance),
        traffic.expectedMembers(appliance),
        `${appliance} holds the change (SEED=${SEED})`,
      );
  } finally {
    stop.abort();
    await restarted;
    if (!pg.running) await pg.start();
    await h.teardown();
  }
});

test(
  'fault loop: 50+ Postgres stops at random points of batches and planner kills; every acknowledged change reaches its appliances',
  { timeout: 150_000 },
  async () => {
    const STOPS = 54;
    const ROUNDS = 9;
    const h = await harness(2000);
    const checker = new PgPlannerStore(h.tdb.db);
    const traffic = new KubeTraffic(h.bus, random);
    const stopsAtStart = pg.stops;
    const started = performance.now();
    const stats = { kills: 0, incarnations: 0, failedBatches: 0, points: {} as Record<string, number> };
    const errors: unknown[] = [];
    let faulting = false;
    let outage: Promise<void> | null = null;

    /** Takes Postgres down now (fast or immediate) and brings it back after 0-400 ms, in the background. */
    const strike = async (point: FaultPoint): Promise<void> => {
      stats.points[point] = (stats.points[point] ?? 0) + 1;
      const stopped = pg.stop(random() < 0.5 ? 'fast' : 'immediate');
      const downMs = Math.floor(random() * 400);
      outage = stopped
        .then(() => sleep(downMs))
        .then(() => pg.start())
        .catch((e: unknown) => void errors.push(e))
        .finally(() => (outage = null));
      await stopped.catch(() => {}); // its failure is recorded by `outage`
    };

    interface Incarnation {
      readonly store: HookedStore;
      readonly stop: AbortController;
      bus: NatsEventBus | null;
      done: Promise<void>;
    }
    let current: Incarnation | null = null;
    const zombies: Promise<void>[] = [];

    /** SIGKILL, in effect: no further write or ack, the connection to NATS dropped; a new planner starts at once. */
    const kill = (inc: Incarnation): void => {
      if (inc.store.dead) return;
      inc.store.dead = true;
      stats.kills++;
      inc.stop.abort();
      inc.bus?.connection.close().catch((e: unknown) => void errors.push(e));
      zombies.push(inc.done);
      current = incarnation();
    };

    /** A fault (or none) at one point of a batch; `during-commit` strikes 0-4 ms into the commit. */
    const at = async (inc: Incarnation, point: FaultPoint): Promise<void> => {
      if (!faulting || inc.store.dead) return;
      if (point === 'during-commit') {
        const [delay, pgFault, killFault] = [random() * 4, random() < 0.3, random() < 0.04];
        await sleep(delay);
        if (killFault && !inc.store.dead) kill(inc);
        else if (pgFault && faulting && outage === null) await strike(point);
        return;
      }
      if (random() < 0.02) return kill(inc);
      if (outage === null && random() < 0.25) await strike(point);
    };

    /** One planner: its own NATS connection and store, rebuilt from the archive (retried while Postgres is down). */
    const incarnation = (): Incarnation => {
      const n = ++stats.incarnations;
      const inc: Incarnation = {
        store: new HookedStore(h.tdb.db, (point) => at(inc, point)),
        stop: new AbortController(),
        bus: null,
        done: Promise.resolve(),
      };
      inc.done = (async () => {
        const bus = await NatsEventBus.open(natsUrl, h.declaration, { name: `planner-${n}` });
        inc.bus = bus;
        if (inc.stop.signal.aborted) return void (await bus.connection.close());
        const service = new PlannerService({
          store: inc.store,
          bus,
          config,
          fleetConfigHash: hash,
          log,
          metrics: null,
        });
        for (let attempt = 1; ; attempt++) {
          try {
            await service.recover();
            break;
          } catch (e) {
            // Postgres may be down (or starting up) when a planner starts: a real one would be restarted likewise.
            if (attempt >= 200 || inc.stop.signal.aborted) throw e;
            await sleep(100);
          }
        }
        await bus.consumeBatches(
          'planner',
          async (batch: readonly BusMessage[]) => {
            await at(inc, 'before-fold');
            if (inc.store.dead) throw new PlannerKilledError('killed before the fold');
            await service.handleBatch(batch);
            await at(inc, 'after-commit');
            if (inc.store.dead) throw new PlannerKilledError('killed between the commit and the ack');
          },
          { signal: inc.stop.signal, onError: () => void stats.failedBatches++ },
        );
        await bus.connection.close();
      })().catch((e: unknown) => {
        // A killed planner's last steps may fail any way (its connection is gone); a live one's must not.
        if (!inc.store.dead) errors.push(e);
      });
      return inc;
    };

    try {
      await traffic.publishWorld();
      current = incarnation();
      for (let round = 1; round <= ROUNDS; round++) {
        // Changes flow while faults strike; then the faults stop, the planner catches up, and the heads are checked.
        faulting = true;
        const target = stopsAtStart + Math.ceil((STOPS * round) / ROUNDS);
        const roundEnds = performance.now() + 15_000;
        while (pg.stops < target && performance.now() < roundEnds) {
          await traffic.change();
          await sleep(random() * 8);
        }
        faulting = false;
        await outage;
        if (!pg.running) await pg.start();
        await caughtUp(checker, traffic.lastSeq, 30_000);
        const heads = await headMembers(checker);
        for (const appliance of ['edge', 'both']) {
          assert.deepEqual(
            heads.get(appliance),
            traffic.expectedMembers(appliance),
            `round ${round}: ${appliance} holds the last published endpoints (SEED=${SEED})`,
          );
        }
      }
      const stops = pg.stops - stopsAtStart;
      const finished = current as Incarnation | null;
      finished?.stop.abort();
      await finished?.done;
      await Promise.all(zombies);
      assert.deepEqual(errors, [], `no unexpected error (SEED=${SEED})`);

      // The archive holds every acknowledged message once, in order; every snapshot joins (no piece went missing with
      // a failed commit); each chain is linear; replay reproduces every snapshot's hash.
      const seqs = (await checker.db.selectFrom('events').select('seq').orderBy('seq').execute()).map((r) =>
        Number(r.seq),
      );
      assert.deepEqual(
        seqs,
        Array.from({ length: traffic.lastSeq }, (_, i) => i + 1),
      );
      const pieces = await storedPieces(checker);
      const chain = await checker.db
        .selectFrom('snapshots')
        .select(['id', 'appliance', 'parent_id', 'content_hash'])
        .orderBy('id')
        .execute();
      const lastOf = new Map<string, string>();
      for (const s of chain) {
        assert.doesNotThrow(
          () => joinSnapshot(s.content_hash, (id) => pieces.get(id)),
          `snapshot ${s.id} of ${s.appliance} joins`,
        );
        assert.equal(
          s.parent_id,
          lastOf.get(s.appliance) ?? null,
          `snapshot ${s.id} extends ${s.appliance}'s previous head`,
        );
        lastOf.set(s.appliance, s.id);
      }
      const report = await replayVerify(checker, config);
      assert.deepEqual(
        { verified: report.verified, mismatches: report.mismatches },
        { verified: chain.length, mismatches: [] },
      );

      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      process.stdout.write(
        `fault loop SEED=${SEED}: ${stops} Postgres stops ${JSON.stringify(stats.points)}, ${stats.kills} planner kills, ${stats.incarnations} incarnations, ${stats.failedBatches} failed batches, ${traffic.changes} changes, ${traffic.lastSeq} messages, ${chain.length} snapshots, ${seconds} s\n`,
      );
      assert.ok(stops >= 50, `${stops} Postgres stops (SEED=${SEED})`);
    } finally {
      faulting = false;
      const last = current as Incarnation | null;
      last?.stop.abort();
      await outage;
      if (!pg.running) await pg.start();
      await Promise.allSettled([last?.done, ...zombies]);
      await h.teardown();
    }
  },
);
