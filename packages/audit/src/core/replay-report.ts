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
  /**
   * True when the target's read-back equals the recorded state exactly (indexes aside). The applier records the
   * rendered state when every operation succeeded, which lacks the appliance's defaults: then only `remaining`
   * (the driver's own convergence check) can be 0 and this false.
   */
  readonly identical: boolean | null;
  /** Vendor objects whose read-back differs from the replayed state (empty when identical). */
  readonly differences: readonly string[];
  /** HAProxy files mode: `haproxy -c` on the written configuration. */
  readonly validation: string | null;
}

/** True when the replay reached the recorded state. */
export function replaySucceeded(r: ReplayReport): boolean {
  if (r.operations.some((o) => !o.ok)) return false;
  if (r.mode === 'files') return r.validation === 'valid';
  return r.remaining === 0;
}

/** The replay report as text. */
export function formatReplayTable(r: ReplayReport): string {
  let out = `Replaying ${r.appliance} as read back after apply ${r.apply} (snapshot ${r.snapshot}, in effect at ${r.time}) onto ${r.target}\n\n`;
  out +=
    r.operations.length === 0
      ? 'No operations were needed: the target already held that configuration.\n'
      : formatTable(
          ['#', 'RESULT', 'OPERATION', 'DETAIL'],
          r.operations.map((o, i) => [
            String(i + 1),
            o.ok ? 'ok' : 'FAILED',
            truncateCell(o.summary, 70),
            truncateCell(o.detail, 80),
          ]),
        );
  if (r.mode === 'files')
    out += `\nWrote the configuration files; haproxy -c: ${r.validation}. Start it with: haproxy -W -f ${r.target}/haproxy.cfg\n`;
  else if (!replaySucceeded(r))
    out += `\nThe target does NOT match: ${r.remaining ?? '?'} operation(s) still needed${r.differences.length > 0 ? `; differing objects: ${r.differences.join(', ')}` : ''}.\n`;
  else
    out +=
      r.identical === true
        ? '\nThe target now holds exactly the configuration recorded at that time.\n'
        : '\nThe target now holds the configuration recorded at that time (the driver finds nothing to change; the appliance adds its own defaults).\n';
  return out;
}
