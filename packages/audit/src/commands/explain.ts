import type { DesiredState } from '@portolan/desired-state';
import { progress, type CommandIo } from '../adapters/command-io.ts';
import { formatObject, type ObjectChange } from '../core/archived-change.ts';
import { refString } from '../core/desired-objects.ts';
import {
  explainedObject,
  formatExplainTable,
  lastChangeOf,
  type ExplainedObject,
  type LastChange,
} from '../core/explain-report.ts';
import {
  explainFingerprint,
  kubeInputsOf,
  resolveExplainTarget,
  type ExplainTarget,
  type KubeInput,
} from '../core/explain-target.ts';
import type { ExplainedRequest } from '../core/request-route.ts';
import type { SnapshotRecord } from '../core/history-report.ts';
import { listVendorObjects } from '../core/vendor-objects.ts';
import { vendorRenderer, type VendorRenderer } from '../core/vendor-renderer.ts';
import {
  CommandFailed,
  commonOptions,
  desiredOf,
  outputFormat,
  parseCommand,
  printReport,
  requireAppliance,
  requireSnapshot,
  withContext,
  type AuditContext,
} from './audit-context.ts';
import { APPLIED_STATUSES } from '../adapters/pg-audit-store.ts';

/** `portolan explain <appliance> <vendor object | host/path> [--snapshot id]`: where it comes from and when it last changed. */
export async function runExplain(args: readonly string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommand(
    args,
    {
      ...commonOptions,
      snapshot: { type: 'string' },
      header: { type: 'string', multiple: true },
      method: { type: 'string' },
    },
    { min: 2, max: 2, names: 'appliance and a vendor object or host/path' },
  );
  const format = outputFormat(values.output);
  const [appliance, query] = [positionals[0]!, positionals[1]!];
  return withContext(io, 'explain', values.config, async (ctx) => {
    const renderer = vendorRenderer(requireAppliance(ctx, appliance));
    const s =
      typeof values.snapshot === 'string'
        ? await requireSnapshot(ctx, values.snapshot, appliance)
        : await ctx.store.head(appliance);
    if (s === null) throw new CommandFailed(`appliance "${appliance}" has no snapshot yet`);
    const desired = await desiredOf(ctx, s);
    const target = resolveExplainTarget(
      query,
      renderer.kind,
      desired,
      listVendorObjects(renderer.kind, renderer.render(desired)),
      explainedRequest(values.method, values.header),
    );
    if (target.type === 'unknown') throw new CommandFailed(target.message);
    const inputs = kubeInputsOf(target, desired);
    const objects = await explainObjects(ctx, inputs, s.lastEventSeq);
    const lastChange = await walkBack(ctx, io, renderer, s, desired, target, new Set(objects.map((o) => o.object)));
    const named = new Set(objects.map((o) => o.object));
    const conditions = desired.conditions
      .filter((c) => c.type !== 'Accepted' && named.has(refString(c.object)))
      .map((c) => ({ object: refString(c.object), type: c.type, reason: c.reason, message: c.message }));
    printReport(
      io,
      format,
      { appliance, snapshot: s.id, query, target, objects, lastChange, conditions },
      formatExplainTable,
    );
    return 0;
  });
}

/** The archived state of each input as of the snapshot, plus the EndpointSlices of each Service. */
async function explainObjects(
  ctx: AuditContext,
  inputs: readonly KubeInput[],
  maxSeq: number,
): Promise<ExplainedObject[]> {
  const out: ExplainedObject[] = [];
  for (const input of inputs) {
    out.push(explainedObject(input, await ctx.store.objectEvents(input.ref, maxSeq, 4)));
    if (input.ref.kind !== 'Service') continue;
    for (const slice of await ctx.store.slicesOf(input.ref.cluster, input.ref.namespace, input.ref.name, maxSeq)) {
      const ref = {
        cluster: slice.cluster,
        kind: 'EndpointSlice' as const,
        namespace: slice.namespace,
        name: slice.name,
      };
      out.push(
        explainedObject(
          { ref, role: `endpoints of ${refString(input.ref)}` },
          await ctx.store.objectEvents(ref, maxSeq, 4),
        ),
      );
    }
  }
  return out;
}

/**
 * Walks the chain back from `s` to the oldest snapshot from which the target is unchanged (same rendered object, or
 * same routes and pools for a request). Snapshots with the same content hash as their successor are not decoded.
 */
async function walkBack(
  ctx: AuditContext,
  io: CommandIo,
  renderer: VendorRenderer,
  s: SnapshotRecord,
  desired: DesiredState,
  target: ExplainTarget,
  objects: ReadonlySet<string>,
): Promise<LastChange | null> {
  const fingerprintOf = (d: DesiredState): string | null =>
    explainFingerprint(target, d, listVendorObjects(renderer.kind, renderer.render(d)));
  const wanted = fingerprintOf(desired);
  if (wanted === null) return null;
  const chain = await ctx.store.snapshots(s.appliance, { maxId: s.id, newestFirst: true });
  const bar = progress(io, 'walking snapshots');
  let changed = s;
  let sinceFirst = true;
  let walked = 1;
  try {
    for (const older of chain.slice(1)) {
      bar.tick(walked, chain.length);
      walked++;
      if (older.contentHash !== changed.contentHash && fingerprintOf(await desiredOf(ctx, older)) !== wanted) {
        sinceFirst = false;
        break;
      }
      changed = older;
    }
  } finally {
    bar.done();
  }
  const parent = changed.parentId === null ? null : await ctx.store.snapshot(changed.parentId);
  const { changes } =
    changed.origin === 'rollback'
      ? { changes: [] as ObjectChange[] }
      : await ctx.store.changes(parent?.lastEventSeq ?? 0, changed.lastEventSeq);
  const sliceServices = new Set([...objects].filter((o) => o.includes('/Service/')));
  const relevant = new Set([
    ...objects,
    ...changes
      .filter(
        (c) =>
          c.kind === 'EndpointSlice' &&
          c.service !== null &&
          sliceServices.has(`${c.cluster}/Service/${c.namespace}/${c.service}`),
      )
      .map(formatObject),
  ]);
  const applied =
    (await ctx.store.appliesOf(changed.id)).find((a) => (APPLIED_STATUSES as readonly string[]).includes(a.status)) ??
    null;
  return lastChangeOf(changed, sinceFirst, changes, relevant, applied, walked);
}

/**
 * The request `--method` and `--header 'Name: value'` describe: with neither, undefined (routes are judged by host and
 * path alone, as before); with either, a request whose conditions the routes must meet (method GET by default).
 */
function explainedRequest(
  method: string | undefined,
  headers: readonly string[] | undefined,
): ExplainedRequest | undefined {
  if (method === undefined && headers === undefined) return undefined;
  const out: Record<string, string> = {};
  for (const h of headers ?? []) {
    const colon = h.indexOf(':');
    if (colon <= 0) throw new CommandFailed(`--header ${JSON.stringify(h)}: expected 'Name: value'`);
    out[h.slice(0, colon).trim()] = h.slice(colon + 1).trim();
  }
  return { method: method ?? 'GET', headers: out };
}
