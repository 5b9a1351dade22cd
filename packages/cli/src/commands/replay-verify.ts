import { parseArgs } from 'node:util';
import type { ReplayReport as ReplayVerifyReport } from '@portolan/planner';
import type { CliCommand } from '../command.ts';
import { UsageError, usageErrorFrom } from '../command.ts';

const usage = `Usage: portolan replay --verify [--from N] [--to M] [--config .portolan/fleet.yaml] [-o json]

Rebuilds every planner snapshot whose last event is in [N, M] from the Postgres event archive and proves its
content hash identical to the stored one. Exit code 1 when any hash differs (each difference is listed, and
marked when the snapshot was made by another planner version).`;

/** `portolan replay --verify`: determinism audit of the snapshot chain. */
export const replayVerifyCommand: CliCommand = {
  path: ['replay'],
  summary: 'rebuild snapshots from the event archive and prove every hash identical (--verify)',
  usage,
  async run(args) {
    let values: Record<string, string | boolean | undefined>;
    try {
      values = parseArgs({
        args: [...args],
        options: {
          verify: { type: 'boolean' },
          from: { type: 'string' },
          to: { type: 'string' },
          config: { type: 'string' },
          output: { type: 'string', short: 'o' },
        },
        strict: true,
      }).values;
    } catch (e) {
      usageErrorFrom(e);
    }
    if (values.verify !== true)
      throw new UsageError('only --verify is supported here (see `portolan replay apply` for rebuilding an appliance)');
    const seq = (v: string | boolean | undefined, name: string): number | undefined => {
      if (v === undefined) return undefined;
      const n = Number(v);
      if (!Number.isSafeInteger(n) || n < 0) throw new UsageError(`--${name} must be a stream sequence number`);
      return n;
    };
    const from = seq(values.from, 'from');
    const to = seq(values.to, 'to');
    const [{ loadFleetConfig }, { openDatabase }, { PgPlannerStore, replayVerify }] = await Promise.all([
      import('@portolan/fleet-config'),
      import('@portolan/store'),
      import('@portolan/planner'),
    ]);
    const { config } = await loadFleetConfig(String(values.config ?? '.portolan/fleet.yaml'));
    const db = openDatabase(config.store.url);
    try {
      const report = await replayVerify(new PgPlannerStore(db), config, {
        ...(from === undefined ? {} : { from }),
        ...(to === undefined ? {} : { to }),
        onProgress: (done, total) => {
          if (process.stderr.isTTY) process.stderr.write(`\rreplaying ${done}/${total}`);
        },
      });
      if (process.stderr.isTTY) process.stderr.write('\n');
      printReplayReport(report, values.output === 'json');
      return report.mismatches.length === 0 ? 0 : 1;
    } finally {
      await db.destroy();
    }
  },
};

/** Prints the replay's outcome: JSON, or one summary line and one line per snapshot whose hash differs. */
function printReplayReport(report: ReplayVerifyReport, json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return;
  }
  const rate = report.seconds > 0 ? Math.round(report.events / report.seconds) : report.events;
  process.stdout.write(
    `replayed ${report.events} events in ${report.seconds.toFixed(2)} s (${rate} events/s); verified ${report.verified} snapshots; ${report.mismatches.length} differ\n`,
  );
  for (const m of report.mismatches) {
    process.stdout.write(
      `  snapshot ${m.snapshotId} (${m.appliance}, seq ${m.lastEventSeq}): stored ${m.stored.slice(0, 12)} replayed ${m.replayed?.slice(0, 12) ?? '(none)'}${m.explainedByVersion ? ` — made by planner ${m.plannerVersion}` : ''}\n`,
    );
  }
}
