import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import type { CliCommand } from '../command.ts';
import { UsageError } from '../command.ts';

const usage = `Usage: portolan approve <appliance> <snapshot> --reason "<why>" [--by <name>] [--config .portolan/fleet.yaml]

Overrides the safety hold for one snapshot: a plan that removes more than safety.maxRemovalFraction of the hosts or
backend members the appliance last applied (or empties a pool) is held until approved. The approval is recorded
with who and why; the leader applies the snapshot on its next cycle.`;

/** `portolan approve`: operator override of a held snapshot. */
export const approve: CliCommand = {
  path: ['approve'],
  summary: 'approve a snapshot held by the safety rule, with a reason',
  usage,
  async run(args) {
    let parsed: { values: Record<string, string | undefined>; positionals: string[] };
    try {
      parsed = parseArgs({ args: [...args], options: { reason: { type: 'string' }, by: { type: 'string' }, config: { type: 'string' } }, allowPositionals: true, strict: true }) as typeof parsed;
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    const [appliance, snapshot] = parsed.positionals;
    if (appliance === undefined || snapshot === undefined || parsed.positionals.length !== 2) throw new UsageError('give an appliance and a snapshot id');
    if (!/^\d+$/.test(snapshot)) throw new UsageError(`snapshot "${snapshot}" is not a snapshot id`);
    const reason = parsed.values.reason;
    if (reason === undefined || reason.trim() === '') throw new UsageError('--reason is required: approvals are part of the audit trail');
    const [{ loadFleetConfig }, { openDatabase }] = await Promise.all([import('@portolan/fleet-config'), import('@portolan/store')]);
    const { config } = await loadFleetConfig(parsed.values.config ?? '.portolan/fleet.yaml');
    if (!config.appliances.some((a) => a.name === appliance)) {
      process.stderr.write(`portolan approve: unknown appliance "${appliance}" (known: ${config.appliances.map((a) => a.name).join(', ')})\n`);
      return 1;
    }
    const db = openDatabase(config.store.url, { max: 1 });
    try {
      const row = await db.selectFrom('snapshots').select(['id']).where('id', '=', snapshot).where('appliance', '=', appliance).executeTakeFirst();
      if (row === undefined) {
        process.stderr.write(`portolan approve: appliance "${appliance}" has no snapshot ${snapshot}\n`);
        return 1;
      }
      await db
        .insertInto('snapshot_approvals')
        .values({ appliance, snapshot_id: snapshot, approved_by: parsed.values.by ?? userInfo().username, reason })
        .onConflict((c) => c.columns(['appliance', 'snapshot_id']).doNothing())
        .execute();
      process.stdout.write(`approved snapshot ${snapshot} of ${appliance}; the leader applies it on its next cycle\n`);
      return 0;
    } finally {
      await db.destroy();
    }
  },
};
