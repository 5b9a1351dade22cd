import type { DesiredState } from '@portolan/desired-state';
import type { Progress } from '../adapters/command-io.ts';
import { APPLIED_STATUSES } from '../adapters/pg-audit-store.ts';
import { formatObject, type ObjectChange } from '../core/archived-change.ts';
import { refString } from '../core/desired-objects.ts';
import {
  explainedObject,
  lastChangeOf,
  type ExplainedObject,
  type ExplainReport,
  type LastChange,
} from '../core/explain-report.ts';
import {
  explainFingerprint,
  kubeInputsOf,
  resolveExplainTarget,
  type ExplainTarget,
  type KubeInput,
} from '../core/explain-target.ts';
import type { SnapshotRecord } from '../core/history-report.ts';
import { listVendorObjects } from '../core/vendor-objects.ts';
import { vendorRenderer, type VendorRenderer } from '../core/vendor-renderer.ts';
import { CommandFailed } from '../errors.ts';
import {
  desiredOf,
  noProgress,
  requireAppliance,
  requireHead,
  requireSnapshot,
  type AuditContext,
  type ProgressFactory,
} from './audit-context.ts';

/** What to explain: a vendor object or `host/path` on an appliance, as of a snapshot (default: the head). */
export interface ExplainParams {
  readonly appliance: string;
  readonly query: string;
  readonly snapshot?: string;
  /** With a method or headers, routes are judged as for that request (method GET by default). */
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Where a vendor object or a request's route comes from (Kubernetes objects, conditions) and when it last changed. */
export async function explainReport(
  ctx: AuditContext,
  params: ExplainParams,
  options: { readonly progress?: ProgressFactory } = {},
): Promise<ExplainReport> {
  const { appliance, query } = params;
  const renderer = vendorRenderer(requireAppliance(ctx, appliance));
  const s =
    params.snapshot === undefined
      ? await requireHead(ctx, appliance)
      : await requireSnapshot(ctx, params.snapshot, appliance);
  const desired = await desiredOf(ctx, s);
  const request =
    params.method === undefined && params.headers === undefined
      ? undefined
      : { method: params.method ?? 'GET', headers: { ...params.headers } };
  const target = resolveExplainTarget(
    query,
    renderer.kind,
    desired,
    listVendorObjects(renderer.kind, renderer.render(desired)),
    request,
  );
  if (target.type === 'unknown') throw new CommandFailed('not-found', target.message);
  const objects = await explainObjects(ctx, kubeInputsOf(target, desired), s.lastEventSeq);
  const named = new Set(objects.map((o) => o.object));
  const bar = (options.progress ?? noProgress)('walking snapshots');
  const lastChange = await walkBack(ctx, bar, renderer, s, desired, target, named);
  const conditions = desired.conditions
    .filter((c) => c.type !== 'Accepted' && named.has(refString(c.object)))
    .map((c) => ({ object: refString(c.object), type: c.type, reason: c.reason, message: c.message }));
  return { appliance, snapshot: s.id, query, target, objects, lastChange, conditions };
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
  bar: Progress,
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
