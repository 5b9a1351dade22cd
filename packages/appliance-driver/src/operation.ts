import type { JsonObject } from '@portolan/desired-state';

/**
 * One vendor-level write, as pure data. Produced by a driver's pure `diff`, executed by its runner.
 * Payloads never hold secret material in clear: a certificate write names the Secret reference and
 * the runner resolves it through a SecretResolver just before the call.
 */
export interface Operation {
  /** Vendor object type, e.g. `pools`, `virtual_servers`, `backend`, `realserver`. */
  readonly objectType: string;
  /** Vendor object name or address, unique within its type. */
  readonly objectName: string;
  readonly action: 'create' | 'update' | 'delete';
  /** What the object should become (create/update) — vendor shape, secrets by reference only. */
  readonly payload: JsonObject | null;
  /** Human-readable one-line summary for the apply log and the CLI. */
  readonly summary: string;
}

/** What one executed operation returned. */
export type OperationResult =
  | { readonly ok: true; readonly detail: string }
  | { readonly ok: false; readonly code: string; readonly message: string; readonly retryable: boolean };

/** An operation with its outcome, as stored in the apply log. */
export interface OperationOutcome {
  readonly operation: Operation;
  readonly result: OperationResult;
  readonly durationMs: number;
}
