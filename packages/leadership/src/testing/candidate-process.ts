// A leader candidate run as a child process by the integration tests (so it can be SIGKILLed, SIGSTOPped).
// Prints one JSON line per event with the wall-clock time; while elected it writes a fenced record every
// 100 ms (assertEpochCurrent inside the transaction), and makes one more attempt after its term ended, as an
// apply in flight at the moment of a pause would.
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { openDatabase, sql } from '@portolan/store';
import { LeaderElector } from '../leader-elector.ts';
import { PgEpochStore } from '../adapters/pg-epoch-store.ts';
import { RedisLeaseClient } from '../adapters/redis-lease-client.ts';
import { leaseTimings } from '../core/lease-timings.ts';
import { StaleEpochError } from '../errors.ts';
import type { Leadership } from '../leader-elector.ts';

const { values } = parseArgs({
  options: {
    redis: { type: 'string' },
    db: { type: 'string' },
    group: { type: 'string' },
    holder: { type: 'string' },
    prefix: { type: 'string' },
    ttl: { type: 'string' },
    renew: { type: 'string' },
    retry: { type: 'string' },
  },
});
const print = (o: Record<string, unknown>): void =>
  void process.stdout.write(`${JSON.stringify({ ...o, at: Date.now() })}\n`);
const t = leaseTimings({
  ttlMs: Number(values.ttl),
  renewEveryMs: Number(values.renew),
  retryEveryMs: Number(values.retry),
});
if (!t.ok) throw new Error(t.problem.message);
const db = openDatabase(values.db!);
const lease = new RedisLeaseClient(values.redis!, { commandTimeoutMs: t.timings.commandTimeoutMs });
const elector = new LeaderElector({
  group: values.group!,
  holder: values.holder!,
  timings: t.timings,
  lease,
  epochs: new PgEpochStore(db),
  keyPrefix: values.prefix!,
  onEvent: (e) => {
    if (e.type === 'error') print({ type: 'error', stage: e.stage, message: (e.error as Error).message });
    else print({ ...e });
  },
});

async function writeWhileLeading(l: Leadership): Promise<void> {
  for (;;) {
    const lastAttempt = l.signal.aborted;
    try {
      await db.transaction().execute(async (trx) => {
        await l.assertEpochCurrent(trx);
        await sql`INSERT INTO fenced_writes (epoch, holder) VALUES (${l.epoch}, ${l.holder})`.execute(trx);
      });
      if (lastAttempt) print({ type: 'write-accepted-after-loss', epoch: l.epoch });
    } catch (e) {
      print({
        type: e instanceof StaleEpochError ? 'write-refused' : 'write-error',
        epoch: l.epoch,
        message: (e as Error).message,
      });
      if (e instanceof StaleEpochError) return;
    }
    if (lastAttempt) return;
    await sleep(100);
  }
}

elector.start();
const shutdown = async (): Promise<void> => {
  await elector.stop();
  print({ type: 'stopped' });
  lease.close();
  await db.destroy();
  process.exit(0);
};
process.on('SIGTERM', () => void shutdown());
for (;;) {
  const l = await elector.waitForLeadership();
  await writeWhileLeading(l);
}
