import { randomUUID } from 'node:crypto';
import { userInfo } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import type { FleetConfig } from '@portolan/fleet-config';
import type { ApprovalProgress } from '@portolan/store';
import type { CliCommand } from '../command.ts';
import { UsageError, usageErrorFrom } from '../command.ts';

const usage = `Usage: portolan approve <appliance> --reason "<why>" [--by <name>] [--wait <seconds>] [--config .portolan/fleet.yaml]

Approves the removals the safety rule holds in the clusters the appliance serves. The rule holds only removals
no explicit delete explains (objects a relist no longer lists) when they take more than safety.maxRemovalFraction
of a cluster's hosts or members of one kind and at least safety.minRemovals; everything else keeps flowing.
The approval goes into the event log (who, why, when), the planner carries the removals out at once and the
leader applies the resulting snapshot; the command waits (default 10 s) and reports what happened.`;

/** What `portolan approve` was asked to do. */
interface ApproveArgs {
  readonly appliance: string;
  readonly reason: string;
  readonly by: string | undefined;
  readonly config: string;
  readonly waitMs: number;
}

/** `portolan approve`: an operator's approval of the removals the safety rule holds. */
export const approve: CliCommand = {
  path: ['approve'],
  summary: 'approve the removals the safety rule holds for an appliance, with a reason',
  usage,
  run: async (args) => runApprove(parseApprove(args)),
};

/** Parses the command line; every mistake is a UsageError (printed with the usage, exit 2). */
function parseApprove(args: readonly string[]): ApproveArgs {
  let parsed: { values: Record<string, string | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({
      args: [...args],
      options: {
        reason: { type: 'string' },
        by: { type: 'string' },
        config: { type: 'string' },
        wait: { type: 'string' },
      },
      allowPositionals: true,
      strict: true,
    }) as typeof parsed;
  } catch (e) {
    usageErrorFrom(e);
  }
  const [appliance] = parsed.positionals;
  if (appliance === undefined) throw new UsageError('give an appliance');
  if (parsed.positionals.length !== 1)
    throw new UsageError('give only an appliance: an approval covers every removal held for it, not one snapshot');
  const reason = parsed.values.reason;
  if (reason === undefined || reason.trim() === '')
    throw new UsageError('--reason is required: approvals are part of the audit trail');
  const waitMs = parsed.values.wait === undefined ? 10_000 : Number(parsed.values.wait) * 1000;
  if (!Number.isFinite(waitMs) || waitMs < 0)
    throw new UsageError(`--wait "${parsed.values.wait}" is not a number of seconds`);
  return { appliance, reason, by: parsed.values.by, config: parsed.values.config ?? '.portolan/fleet.yaml', waitMs };
}

/** Publishes the approval when something is held, then reports the releases and the apply that followed. */
async function runApprove(args: ApproveArgs): Promise<number> {
  const [{ loadFleetConfig }, { openDatabase, PgApprovalProgress }] = await Promise.all([
    import('@portolan/fleet-config'),
    import('@portolan/store'),
  ]);
  const { config } = await loadFleetConfig(args.config);
  const entry = config.appliances.find((a) => a.name === args.appliance);
  if (entry === undefined) {
    process.stderr.write(
      `portolan approve: unknown appliance "${args.appliance}" (known: ${config.appliances.map((a) => a.name).join(', ')})\n`,
    );
    return 1;
  }
  const clusters = entry.clusters ?? config.clusters.map((c) => c.name);
  const db = openDatabase(config.store.url, { max: 1 });
  try {
    const progress = new PgApprovalProgress(db);
    const open = await progress.openHolds(clusters);
    if (open.length === 0) {
      process.stdout.write(`nothing is held for ${args.appliance} (clusters ${clusters.join(', ')})\n`);
      return 0;
    }
    const by = args.by ?? userInfo().username;
    const publishedAt = performance.now();
    const seq = await publishApproval(config, args.appliance, by, args.reason);
    process.stdout.write(
      `approval ${seq} by ${by} recorded in the event log: ${open.length} held removal(s) in ${[...new Set(open.map((h) => h.cluster))].join(', ')}\n`,
    );
    if (!(await reportReleases(progress, seq, args.waitMs))) return 1;
    await reportApply(progress, args.appliance, seq, args.waitMs, publishedAt);
    return 0;
  } finally {
    await db.destroy();
  }
}

/** Publishes a HoldApproved into the kube stream (so it is folded in order); returns its stream sequence. */
async function publishApproval(config: FleetConfig, appliance: string, by: string, reason: string): Promise<number> {
  const [bus, proto] = await Promise.all([import('@portolan/bus'), import('@portolan/proto')]);
  const approvalId = randomUUID();
  const message = proto.create(proto.HoldApprovedSchema, {
    appliance,
    approvedBy: by,
    reason,
    approvedAt: proto.timestampFromMs(Date.now()),
    approvalId,
  });
  const declaration = bus.busDeclaration({
    stream: config.bus.stream,
    replicas: config.bus.replicas,
    maxPayloadBytes: config.bus.maxPayloadBytes,
    subjectPrefix: config.bus.subjectPrefix,
  });
  const nats = await bus.NatsEventBus.open(config.bus.url, declaration, { name: 'portolan-approve' });
  try {
    const ack = await nats.publish(bus.holdApprovalSubject, proto.toBinary(proto.HoldApprovedSchema, message), {
      msgId: `approve:${approvalId}`,
    });
    return ack.seq;
  } finally {
    await nats.close();
  }
}

/** Waits for the planner to fold the approval and prints what it released; false when it did not in time. */
async function reportReleases(progress: ApprovalProgress, seq: number, waitMs: number): Promise<boolean> {
  const released = await waitFor(waitMs, async () => {
    const rows = await progress.releasedBy(seq);
    return rows.length > 0 ? rows : null;
  });
  if (released === null) {
    process.stderr.write(
      `portolan approve: the planner has not folded approval ${seq} within ${waitMs / 1000} s; it will when it catches up (see portolan status)\n`,
    );
    return false;
  }
  for (const h of released)
    process.stdout.write(`  released ${h.cluster} ${h.kind} ${h.objectKey}${h.removed === true ? ' (removed)' : ''}\n`);
  return true;
}

/** Waits for the leader to apply a snapshot that includes the approval, and prints how long after publishing. */
async function reportApply(
  progress: ApprovalProgress,
  appliance: string,
  seq: number,
  waitMs: number,
  publishedAt: number,
): Promise<void> {
  const applied = await waitFor(waitMs, () => progress.firstApplyFrom(appliance, seq));
  if (applied === null)
    process.stdout.write(`the leader has not applied it to ${appliance} yet; see portolan status\n`);
  else
    process.stdout.write(
      `applied to ${appliance} in snapshot ${applied.snapshotId} (${applied.status}), ${Math.round(performance.now() - publishedAt)} ms after the approval was published\n`,
    );
}

/** Polls `probe` every 100 ms until it returns a value or `ms` pass (then null). */
async function waitFor<T>(ms: number, probe: () => Promise<T | null>): Promise<T | null> {
  const deadline = performance.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== null || performance.now() >= deadline) return v;
    await sleep(100);
  }
}
