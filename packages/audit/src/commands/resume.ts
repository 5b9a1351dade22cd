import { HeadMovedError, pinHoldReason } from '@portolan/store';
import type { CommandIo } from '../adapters/command-io.ts';
import { renderReport } from '../core/output-format.ts';
import { commonOptions, outputFormat, parseCommand, requireAppliance, withContext } from './audit-context.ts';

/** `portolan resume` as data. */
export interface ResumeReport {
  readonly appliance: string;
  /** The pin that was removed (null: the appliance was not pinned). */
  readonly unpinned: { readonly snapshotId: string; readonly reason: string | null; readonly since: string } | null;
  /** When the head was a plan held by the pin: the unheld copy appended so the current plan applies now. */
  readonly released: string | null;
}

/**
 * `portolan resume <appliance>`: removes the rollback pin. If the planner made snapshots while pinned (held
 * with "pinned by rollback to …"), the newest one's content is appended unheld, so the appliance converges to
 * current planning at once instead of at the next Kubernetes change.
 */
export async function runResume(args: readonly string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommand(args, { ...commonOptions }, { min: 1, max: 1, names: 'appliance' });
  const format = outputFormat(values.output);
  const appliance = positionals[0]!;
  return withContext(io, 'resume', values.config, async (ctx) => {
    requireAppliance(ctx, appliance);
    const pin = await ctx.store.removePin(appliance);
    let released: string | null = null;
    const head = await ctx.store.head(appliance);
    if (
      pin !== null &&
      head !== null &&
      head.held &&
      (head.holdReason === pinHoldReason(pin) || (head.holdReason ?? '').startsWith('pinned by rollback'))
    ) {
      try {
        released = await ctx.heads.append({
          appliance,
          contentHash: head.contentHash,
          rootHash: head.rootHash,
          pieces: new Map(),
          parentId: head.id,
          lastEventSeq: head.lastEventSeq,
          fleetConfigHash: head.fleetConfigHash,
          plannerVersion: head.plannerVersion,
          held: false,
          holdReason: null,
          origin: 'plan',
          reason: `planning resumed (pin to ${pin.snapshotId} removed)`,
          traceId: null,
        });
      } catch (e) {
        // The planner moved the head first: its new snapshot is unheld now that the pin is gone.
        if (!(e instanceof HeadMovedError)) throw e;
      }
    }
    const report: ResumeReport = {
      appliance,
      unpinned:
        pin === null ? null : { snapshotId: pin.snapshotId, reason: pin.reason, since: pin.createdAt.toISOString() },
      released,
    };
    io.stdout.write(renderReport(format, report, formatResume));
    return 0;
  });
}

function formatResume(r: ResumeReport): string {
  if (r.unpinned === null) return `${r.appliance} was not pinned: planning applies normally.\n`;
  let out = `Removed the pin of ${r.appliance} to snapshot ${r.unpinned.snapshotId} (${r.unpinned.reason ?? 'no reason'}, since ${r.unpinned.since}).\n`;
  out +=
    r.released === null
      ? 'The next planner snapshot applies normally.\n'
      : `Released the plan held meanwhile as snapshot ${r.released}: the applier converges to it now.\n`;
  return out;
}
