import { parseArgs } from 'node:util';
import type { CliCommand } from '../command.ts';
import { UsageError, usageErrorFrom } from '../command.ts';

const usage = `Usage: portolan leader status [--config fleet.yaml] [--watch <seconds>]

For each leader group of the fleet config (an appliance's "group", or its name): the replica holding the
Redis lease, its remaining TTL, and the latest fencing epoch granted in Postgres with the replica it went to.
--config defaults to $PORTOLAN_CONFIG, then .portolan/fleet.yaml under the working directory.
--watch prints the table again every <seconds> until interrupted (the leader monitor of docker-compose.yml).`;

/** `portolan leader status`: lease holder, epoch and remaining TTL per group. */
export const leaderStatus: CliCommand = {
  path: ['leader', 'status'],
  summary: 'show the lease holder, fencing epoch and remaining TTL of each appliance group',
  usage,
  async run(args) {
    let values: { config?: string | undefined; watch?: string | undefined };
    try {
      ({ values } = parseArgs({
        args: [...args],
        options: { config: { type: 'string' }, watch: { type: 'string' } },
        allowPositionals: false,
      }));
    } catch (e) {
      usageErrorFrom(e);
    }
    const every = values.watch === undefined ? null : Number(values.watch);
    if (every !== null && !(every > 0)) throw new UsageError('--watch takes a number of seconds');
    const file = values.config ?? process.env.PORTOLAN_CONFIG ?? '.portolan/fleet.yaml';
    const [{ loadFleetConfig }, leader, { openDatabase }] = await Promise.all([
      import('@portolan/fleet-config'),
      import('@portolan/leadership'),
      import('@portolan/store'),
    ]);
    const { config } = await loadFleetConfig(file);
    const groups = [...new Set(config.appliances.map((a) => a.group ?? a.name))].sort();
    const lease = new leader.RedisLeaseClient(config.leases.redisUrl, { commandTimeoutMs: 2000, name: 'portolan-cli' });
    const db = openDatabase(config.store.url, { max: 2 });
    try {
      await lease.ready(3000);
      const stop = new AbortController();
      for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
      for (;;) {
        const rows = await leader.groupStatuses(groups, lease, new leader.PgEpochStore(db));
        const table = [['GROUP', 'HOLDER', 'EPOCH', 'TTL', 'EPOCH GRANTED TO']];
        for (const r of rows) {
          table.push([
            r.group,
            r.holder ?? '(none)',
            r.epoch === null ? '-' : String(r.epoch),
            r.remainingTtlMs === null ? '-' : `${(r.remainingTtlMs / 1000).toFixed(1)}s`,
            r.epochHolder ?? '-',
          ]);
        }
        const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
        for (const row of table)
          process.stdout.write(
            `${row
              .map((c, i) => c.padEnd(widths[i]!))
              .join('  ')
              .trimEnd()}\n`,
          );
        if (every === null) return rows.every((r) => r.holder !== null) ? 0 : 1;
        await new Promise((resolve) => setTimeout(resolve, every * 1000));
        if (stop.signal.aborted) return 0;
      }
    } catch (e) {
      // Redis or Postgres unreachable: said in one line, exit 1 (a status that cannot be read is not healthy).
      if (!(e instanceof leader.LeaseStoreError || e instanceof leader.EpochStoreError)) throw e;
      process.stderr.write(`portolan leader status: ${e.message}\n`);
      return 1;
    } finally {
      lease.close();
      await db.destroy();
    }
  },
};
