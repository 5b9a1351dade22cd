import { formatObject, type ObjectChange } from './archived-change.ts';
import { refString } from './desired-objects.ts';
import type { ExplainTarget, KubeInput } from './explain-target.ts';
import type { RequestMatch } from './request-route.ts';
import type { ApplyRecord, SnapshotRecord } from './history-report.ts';
import { formatTable, listCell, truncateCell } from './text-table.ts';

/** A Kubernetes object behind the explained target, with the archived state the snapshot was planned from. */
export interface ExplainedObject {
  readonly object: string;
  readonly role: string;
  /** The newest archived event of the object folded into the snapshot; null when the archive has none. */
  readonly resourceVersion: string | null;
  readonly event: string | null;
  readonly seq: number | null;
  readonly at: string | null;
  readonly traceId: string | null;
  /** Up to a few earlier events, newest first: `EVENT rv@seq`. */
  readonly history: readonly string[];
}

/** Where the target last changed on the chain, and what did it. */
export interface LastChange {
  readonly snapshot: string;
  readonly at: string;
  readonly origin: string;
  readonly reason: string | null;
  /** True when the target is unchanged since the appliance's first snapshot in the chain. */
  readonly sinceFirst: boolean;
  /** The archived changes of the target's objects folded into that snapshot. */
  readonly events: readonly {
    readonly object: string;
    readonly event: string;
    readonly resourceVersion: string;
    readonly seq: number;
    readonly at: string;
  }[];
  /** The first apply of that snapshot (when it reached the appliance), if any. */
  readonly applied: {
    readonly apply: string;
    readonly at: string;
    readonly epoch: number;
    readonly status: string;
  } | null;
  /** Snapshots examined while walking back. */
  readonly walked: number;
}

/** `portolan explain` as data. */
export interface ExplainReport {
  readonly appliance: string;
  readonly snapshot: string;
  readonly query: string;
  readonly target: ExplainTarget;
  readonly objects: readonly ExplainedObject[];
  readonly lastChange: LastChange | null;
  /** The snapshot's conditions on those objects (a shared host, a lost route, a refused certificate...). */
  readonly conditions: readonly {
    readonly object: string;
    readonly type: string;
    readonly reason: string;
    readonly message: string;
  }[];
}

/** An explained object from its input and its archived events (newest first). */
export function explainedObject(input: KubeInput, events: readonly ObjectChange[]): ExplainedObject {
  const newest = events[0];
  return {
    object: refString(input.ref),
    role: input.role,
    resourceVersion: newest?.resourceVersion ?? null,
    event: newest?.event ?? null,
    seq: newest?.seq ?? null,
    at: newest?.at ?? null,
    traceId: newest?.traceId ?? null,
    history: events.slice(1).map((e) => `${e.event} rv ${e.resourceVersion}@${e.seq}`),
  };
}

/** The last-change record of a snapshot found by walking back. */
export function lastChangeOf(
  s: SnapshotRecord,
  sinceFirst: boolean,
  changes: readonly ObjectChange[],
  objects: ReadonlySet<string>,
  applied: ApplyRecord | null,
  walked: number,
): LastChange {
  return {
    snapshot: s.id,
    at: s.createdAt.toISOString(),
    origin: s.origin,
    reason: s.reason,
    sinceFirst,
    walked,
    events: changes
      .filter((c) => objects.has(formatObject(c)))
      .map((c) => ({
        object: formatObject(c),
        event: c.event,
        resourceVersion: c.resourceVersion,
        seq: c.seq,
        at: c.at,
      })),
    applied:
      applied === null
        ? null
        : { apply: applied.id, at: applied.finishedAt.toISOString(), epoch: applied.epoch, status: applied.status },
  };
}

/** The explain report as text. */
export function formatExplainTable(r: ExplainReport): string {
  const t = r.target;
  let out = '';
  if (t.type === 'vendor')
    out += `${t.id} on ${r.appliance} (snapshot ${r.snapshot}) is rendered from ${listCell(
      t.neutral.map((n) => `${n.type} ${n.name}`),
      6,
    )}\n`;
  else if (t.type === 'route') {
    out += `${t.host || '*'}${t.path} on ${r.appliance} (snapshot ${r.snapshot}):\n`;
    for (const m of t.matches) out += `  ${m.vs}: ${matchLine(m)}\n`;
  }
  out += '\nKubernetes objects:\n';
  out +=
    r.objects.length === 0
      ? '(none)\n'
      : formatTable(
          ['OBJECT', 'RESOURCE VERSION', 'LAST EVENT', 'SEQ', 'AT', 'ROLE'],
          r.objects.map((o) => [
            o.object,
            o.resourceVersion ?? '-',
            o.event ?? '(not archived)',
            o.seq === null ? '-' : String(o.seq),
            o.at ?? '-',
            truncateCell(o.role, 50),
          ]),
        );
  if (r.conditions.length > 0) {
    out += '\nConditions:\n';
    out += formatTable(
      ['OBJECT', 'TYPE', 'REASON', 'MESSAGE'],
      r.conditions.map((x) => [x.object, x.type, x.reason, truncateCell(x.message, 110)]),
    );
  }
  const c = r.lastChange;
  if (c === null) return `${out}\nLast changed: unknown.\n`;
  out += `\nLast changed: snapshot ${c.snapshot} at ${c.at}${c.sinceFirst ? ' (unchanged since the first snapshot)' : ''}${c.origin === 'rollback' ? ` by an operator rollback${c.reason ? `: ${c.reason}` : ''}` : ''}`;
  out +=
    c.applied === null
      ? ', not applied yet\n'
      : `, applied by apply ${c.applied.apply} at ${c.applied.at} (epoch ${c.applied.epoch}, ${c.applied.status})\n`;
  if (c.events.length > 0)
    out += formatTable(
      ['CAUSED BY', 'EVENT', 'RESOURCE VERSION', 'SEQ', 'AT'],
      c.events.map((e) => [e.object, e.event, e.resourceVersion, String(e.seq), e.at]),
    );
  return out;
}

/** What one virtual service does with the explained request, naming a Gateway API route's rule and listener. */
function matchLine(m: RequestMatch): string {
  if (m.outcome === 'redirect') return 'redirect to https';
  if (m.route === null) return `default backend → pool ${m.pool ?? '-'}`;
  const r = m.route;
  const to = r.fixedStatus === undefined ? `pool ${m.pool || '-'}` : `answered ${r.fixedStatus}`;
  const line = `route ${r.host || '*'}${r.path || '/'} (${r.match}) → ${to}`;
  if (r.via === undefined) return line;
  const source = `${r.source.kind} ${r.source.namespace}/${r.source.name} rule ${r.via.rule}`;
  const g = m.listener?.gateway;
  return `${line}, from ${source}${g === undefined ? '' : ` via Gateway ${g.namespace}/${g.name} listener ${r.via.listener}`}`;
}
