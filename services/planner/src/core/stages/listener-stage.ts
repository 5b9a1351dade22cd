import { worldKeyString } from '@portolan/kube-model';
import type { IngressIntent } from '../translate/ingress-intent.ts';
import { allocateGroup, type ListenerSpec, type MemberOutcome } from './allocate-listeners.ts';
import { buildVirtualService } from './assemble-parts.ts';
import type { IntentStage } from './intent-stage.ts';
import type { PlanWork } from './plan-work.ts';
import type { PlanPass, Stage, StageContext } from './stage.ts';

/** The Ingresses asking for one address group, in creation order, and what allocation last decided for them. */
interface Group {
  readonly members: IngressIntent[];
  outcomes: ReadonlyMap<string, MemberOutcome>;
  listeners: readonly ListenerSpec[];
}

/**
 * Stage 2, listeners: Ingresses grouped by the address they ask for, each group allocated to listeners in creation
 * order. Keeps groups, per-Ingress outcomes and listeners (an incremental engine's cache: a group is re-allocated
 * only when a member's allocation inputs change), writes listener headers and removals, and marks the Ingresses
 * whose outcome changed for re-claiming.
 */
export class ListenerStage implements Stage {
  private readonly ctx: StageContext;
  private readonly intents: IntentStage;
  private readonly groups = new Map<string, Group>();
  private readonly outcomes = new Map<string, MemberOutcome>();
  private readonly listeners = new Map<string, ListenerSpec>();

  constructor(ctx: StageContext, intents: IntentStage) {
    this.ctx = ctx;
    this.intents = intents;
  }

  /** What allocation decided for an Ingress (undefined: it asks for no listener). */
  outcomeOf(key: string): MemberOutcome | undefined {
    return this.outcomes.get(key);
  }

  /** The listener of that name, if one is allocated. */
  listener(name: string): ListenerSpec | undefined {
    return this.listeners.get(name);
  }

  run({ work }: PlanPass): void {
    for (const change of work.intentChanges) this.regroup(change.prev, change.next, work);
    if (work.groups.size > 0) for (const g of work.groups) this.reallocate(g, work);
  }

  /** Moves an Ingress between groups (or keeps its place when its allocation inputs are unchanged). */
  private regroup(prev: IngressIntent | null, next: IngressIntent | null, work: PlanWork): void {
    if (prev?.listener && next?.listener && allocationKey(prev) === allocationKey(next)) {
      const members = this.groups.get(prev.listener.group)!.members;
      members[members.indexOf(prev)] = next;
      return;
    }
    if (prev?.listener) {
      const g = this.groups.get(prev.listener.group)!;
      g.members.splice(g.members.indexOf(prev), 1);
      work.groups.add(prev.listener.group);
    }
    if (next?.listener) {
      let g = this.groups.get(next.listener.group);
      if (g === undefined)
        this.groups.set(next.listener.group, (g = { members: [], outcomes: new Map(), listeners: [] }));
      g.members.splice(sortedIndex(g.members, next.order), 0, next);
      work.groups.add(next.listener.group);
    }
  }

  private reallocate(name: string, work: PlanWork): void {
    const { profile, encoder } = this.ctx;
    const g = this.groups.get(name)!;
    const alloc = allocateGroup(g.members, profile);
    const changed = (key: string, next: MemberOutcome | undefined): void => {
      if (next === undefined) this.outcomes.delete(key);
      else this.outcomes.set(key, next);
      work.reclaim.add(key);
      work.conditions.add(key);
    };
    // Linear in the group, but only pointer and string-equality checks per member.
    for (const [key, next] of alloc.outcomes) if (!sameOutcome(g.outcomes.get(key), next)) changed(key, next);
    // An Ingress that left for another group gets its outcome there, whichever group this plan re-allocates first.
    for (const key of g.outcomes.keys())
      if (!alloc.outcomes.has(key) && (this.intents.intentOf(key)?.listener?.group ?? name) === name)
        changed(key, undefined);
    const wanted = new Map(alloc.listeners.map((l) => [l.name, l] as const));
    for (const l of g.listeners) {
      if (wanted.has(l.name)) continue;
      this.listeners.delete(l.name);
      encoder.deleteVirtualService(l.name);
    }
    for (const l of alloc.listeners) {
      if (sameListener(this.listeners.get(l.name), l)) continue;
      if (!this.listeners.has(l.name)) {
        const { owners: _o, certificates: _c, routes: _r, ...header } = buildVirtualService(l, [], null, null, []);
        encoder.setVsHeader(header);
      }
      this.listeners.set(l.name, l);
      work.vs.add(l.name);
      work.owners.add(l.name);
    }
    g.outcomes = alloc.outcomes;
    g.listeners = alloc.listeners;
    if (g.members.length === 0) this.groups.delete(name);
  }
}

/** The inputs of listener allocation: when they are unchanged, an edit needs no re-allocation of its group. */
function allocationKey(i: IngressIntent): string {
  return JSON.stringify([i.listener, i.app, i.order, i.requestScript, i.responseScript, i.vsCustomization]);
}

/** Whether re-allocation changed what a listener's group decided for one Ingress (then it is claimed again). */
function sameOutcome(a: MemberOutcome | undefined, b: MemberOutcome | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a.ok && b.ok)
    return (
      a.vs === b.vs &&
      a.redirectVs === b.redirectVs &&
      a.httpVs === b.httpVs &&
      a.httpIssue?.message === b.httpIssue?.message
    );
  if (!a.ok && !b.ok) return a.issue.reason === b.issue.reason && a.issue.message === b.issue.message;
  return false;
}

/** Whether a re-allocated listener is the one already held (owners compared by identity, then by key). */
function sameListener(a: ListenerSpec | undefined, b: ListenerSpec): boolean {
  if (a === undefined || a.owners.length !== b.owners.length) return false;
  const { owners: ao, ...ah } = a;
  const { owners: bo, ...bh } = b;
  if (JSON.stringify(ah) !== JSON.stringify(bh)) return false;
  return ao.every((o, i) => o === bo[i] || worldKeyString(o) === worldKeyString(bo[i]!));
}

/** Where an Ingress of creation order `order` goes in a group kept in creation order (binary search). */
function sortedIndex(members: readonly IngressIntent[], order: string): number {
  let lo = 0;
  let hi = members.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (members[mid]!.order < order) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
