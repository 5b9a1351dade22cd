import { checkReason } from '../core/operator-reason.ts';
import { CommandFailed } from '../errors.ts';

/** Who makes a write and why: every approve, rollback and resume records both. */
export interface OperatorWrite {
  /** Why (required, at most 1000 characters). */
  readonly reason: string;
  /** The authenticated identity, as `actorOf(identity)` from @portolan/access spells it, e.g. `alice (token)`. */
  readonly actor: string;
}

/** The checked reason and actor of a write; a missing reason or actor is invalid, and nothing is written. */
export function requireOperatorWrite(w: OperatorWrite): OperatorWrite {
  const r = checkReason(w.reason);
  if (!r.ok) throw new CommandFailed('invalid', r.message);
  const actor = w.actor.trim();
  if (actor === '') throw new CommandFailed('invalid', 'an actor is required: writes record who made them');
  return { reason: r.reason, actor };
}
