import { runTrafficScript, type ScriptRequest } from '@portolan/vtm-emulator';

/**
 * Runs a generated rule against a request so routing semantics are checked on the generated text itself, not on
 * a copy of the logic. The interpreter lives in the emulator (its data plane executes rules); this keeps the
 * outcome shape the driver's render tests compare against.
 */

export type { ScriptRequest } from '@portolan/vtm-emulator';

/** How a rule ended. `none` means it fell through to the virtual server's default pool. */
export type ScriptOutcome =
  | { readonly kind: 'pool'; readonly pool: string }
  | { readonly kind: 'response'; readonly status: string; readonly headers: string }
  | { readonly kind: 'discard' }
  | { readonly kind: 'none' };

/** Runs a generated rule against a request. Throws on syntax it does not know (a generator bug). */
export function evaluateTrafficScript(source: string, request: ScriptRequest): ScriptOutcome {
  const outcome = runTrafficScript(source, request);
  switch (outcome.kind) {
    case 'pool':
      return { kind: 'pool', pool: outcome.pool };
    case 'response':
      return { kind: 'response', status: outcome.status, headers: outcome.headers };
    case 'redirect':
      return { kind: 'response', status: '302 Found', headers: `Location: ${outcome.location}` };
    default:
      return outcome;
  }
}
