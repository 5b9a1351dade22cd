// Equality tests the engine uses to stop a change from spreading: when a recomputed part equals the held one, what
// depends on it is not revisited.
import { worldKeyString } from '@portolan/kube-model';
import type { ListenerSpec, MemberOutcome } from './allocate-listeners.ts';
import type { IngressIntent } from '../translate/ingress-intent.ts';
import type { Resolution } from './resolve-members.ts';
import type { TlsClaim } from './route-claims.ts';

/** Whether re-allocation changed what a listener's group decided for one Ingress. */
export function sameOutcome(a: MemberOutcome | undefined, b: MemberOutcome | undefined): boolean {
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

/** The inputs of listener allocation: when they are unchanged, an edit needs no re-allocation of its group. */
export function allocationKey(i: IngressIntent): string {
  return JSON.stringify([i.listener, i.app, i.order, i.requestScript, i.responseScript, i.vsCustomization]);
}

/** Whether a re-allocated listener is the one already held (owners compared by identity, then by key). */
export function sameListener(a: ListenerSpec | undefined, b: ListenerSpec): boolean {
  if (a === undefined || a.owners.length !== b.owners.length) return false;
  const { owners: ao, ...ah } = a;
  const { owners: bo, ...bh } = b;
  if (JSON.stringify(ah) !== JSON.stringify(bh)) return false;
  return ao.every((o, i) => o === bo[i] || worldKeyString(o) === worldKeyString(bo[i]!));
}

/** Whether two resolutions report the same issues (then the users' conditions need no rewrite). */
export function sameIssues(a: Resolution['issues'], b: Resolution['issues']): boolean {
  // Clean resolutions share one empty list: the usual call is decided here, with no callback allocated.
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i]!.reason !== b[i]!.reason || a[i]!.message !== b[i]!.message) return false;
  return true;
}

/** What identifies a TLS claim's win: a change of it rewrites the listener and certificates. */
export function tlsKey(c: TlsClaim | null): string {
  return c === null ? '' : JSON.stringify([c.ingressKey, c.order, c.certificate]);
}
