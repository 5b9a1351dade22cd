/** A command-line mistake (unknown flag, missing argument): the CLI prints it with the command's usage, exit 2. */
export class AuditUsageError extends Error {
  readonly code = 'AUDIT_USAGE';
  constructor(message: string) {
    super(message);
    this.name = 'AuditUsageError';
  }
}

/** Replay could not reach or configure its target (emulator URL, HAProxy directory). */
export class ReplayTargetError extends Error {
  readonly code = 'AUDIT_REPLAY_TARGET';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ReplayTargetError';
  }
}

/** Postgres did not answer: `portolan status` reports it instead of failing (exit 1). */
export class StoreUnreachableError extends Error {
  readonly code = 'AUDIT_STORE_UNREACHABLE';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'StoreUnreachableError';
  }
}
