import { PortolanError } from '@portolan/errors';

/** A command-line mistake (unknown flag, missing argument): the CLI prints it with the command's usage, exit 2. */
export class AuditUsageError extends PortolanError {
  readonly code = 'AUDIT_USAGE';
}

/** Replay could not reach or configure its target (emulator URL, HAProxy directory). */
export class ReplayTargetError extends PortolanError {
  readonly code = 'AUDIT_REPLAY_TARGET';
}

/** Postgres did not answer: `portolan status` reports it instead of failing (exit 1). */
export class StoreUnreachableError extends PortolanError {
  readonly code = 'AUDIT_STORE_UNREACHABLE';
}

/** What kind of failure a CommandFailed is, for a caller that maps it (an HTTP API: 404, 400, 409). */
export type FailureKind = 'not-found' | 'invalid' | 'conflict';

/**
 * A user-facing failure of an audit function: `not-found` (unknown appliance, snapshot or apply), `invalid` (a bad
 * time, a snapshot of another appliance, a missing reason) or `conflict` (the head kept moving). The CLI prints
 * it (exit 1); the console answers with the status its kind maps to.
 */
export class CommandFailed extends PortolanError {
  readonly code = 'AUDIT_COMMAND_FAILED';
  readonly kind: FailureKind;

  constructor(kind: FailureKind, message: string, options?: ErrorOptions) {
    super(message, options);
    this.kind = kind;
  }
}
