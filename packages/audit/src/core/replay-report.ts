import { formatTable, truncateCell } from './text-table.ts';

/** `portolan replay apply` as data. */
export interface ReplayReport {
  readonly appliance: string;
  readonly time: string;
  readonly target: string;
  /** The apply whose read-back was replayed, and its snapshot. */
  readonly apply: string;
  readonly snapshot: string;
  /** `driver` when the operations went through the target's read-back and diff; `files` for an idle HAProxy directory. */
  readonly mode: 'driver' | 'files';
  readonly operations: readonly { readonly summary: string; readonly ok: boolean; readonly detail: string }[];
  /** Operations still needed after the replay (driver mode); 0 means the target converged. */
  readonly remaining: number | null;
  /** True when the target's read-back now equals the replayed read-back (indexes aside). */
  readonly identical: boolean | null;
  /** HAProxy files mode: `haproxy -c` on the written configuration. */
  readonly validation: string | null;
}

/** True when the replay reached the recorded state. */
export function replaySucceeded(r: ReplayReport): boolean {
  if (r.operations.some((o) => !o.ok)) return false;
  if (r.mode === 'files') return r.validation === 'valid';
  return r.remaining === 0 && r.identical === true;
}

/** The replay report as text. */
export function formatReplayTable(r: ReplayReport): string {
  let out = `Replaying ${r.appliance} as read back after apply ${r.apply} (snapshot ${r.snapshot}, in effect at ${r.time}) onto ${r.target}\n\n`;
  out += r.operations.length === 0 ? 'No operations were needed: the target already held that configuration.\n' : formatTable(['#', 'RESULT', 'OPERATION', 'DETAIL'], r.operations.map((o, i) => [String(i + 1), o.ok ? 'ok' : 'FAILED', truncateCell(o.summary, 70), truncateCell(o.detail, 80)]));
  if (r.mode === 'files') out += `\nWrote the configuration files; haproxy -c: ${r.validation}. Start it with: haproxy -W -f ${r.target}/haproxy.cfg\n`;
  else out += `\n${replaySucceeded(r) ? 'The target now holds exactly the configuration read back at that time.' : `The target does NOT match: ${r.remaining ?? '?'} operation(s) still needed${r.identical === false ? ', read-back differs' : ''}.`}\n`;
  return out;
}
