import type { CommandIo } from '../adapters/command-io.ts';
import { resume, type ResumeReport } from '../api/resume.ts';
import { commonOptions, outputFormat, parseCommand, printReport } from './command-shell.ts';
import { reasonOption, withOperator, writeOptions } from './operator-token.ts';

/** `portolan resume <appliance> --reason …`: removes the rollback pin and releases the plan held meanwhile. */
export async function runResume(args: readonly string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommand(
    args,
    { ...commonOptions, ...writeOptions },
    { min: 1, max: 1, names: 'appliance' },
  );
  const format = outputFormat(values.output);
  const reason = reasonOption(values.reason);
  return withOperator(io, 'resume', values, async (ctx, actor) => {
    printReport(io, format, await resume(ctx, { appliance: positionals[0]!, reason, actor }), formatResume);
    return 0;
  });
}

function formatResume(r: ResumeReport): string {
  if (r.unpinned === null)
    return `${r.appliance} was not pinned: planning applies normally (recorded by ${r.actor}).\n`;
  let out = `Removed the pin of ${r.appliance} to snapshot ${r.unpinned.snapshotId} (${r.unpinned.reason ?? 'no reason'}, since ${r.unpinned.since}), by ${r.actor}.\n`;
  out +=
    r.released === null
      ? 'The next planner snapshot applies normally.\n'
      : `Released current planning as snapshot ${r.released}: the applier converges to it now.\n`;
  return out;
}
