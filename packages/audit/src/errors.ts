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
