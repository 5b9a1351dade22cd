// Every error Portolan throws on purpose is a PortolanError: callers branch on `code` (stable, upper snake case)
// rather than on message text, and `cause` carries the error underneath so nothing is lost when context is added.

/** Base class of the project's errors. Subclasses fix `code`; the message names the object and the reason. */
export abstract class PortolanError extends Error {
  abstract readonly code: string;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A fault with no more specific class yet: still coded, still carrying its cause. */
export class InternalError extends PortolanError {
  readonly code: string;

  constructor(code: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}

/** The message of anything thrown, for logs and user-facing lines; never the stack. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The `code` of an error when it has one (Node system errors, PortolanErrors), else undefined. */
export function errorCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null || !('code' in err)) return undefined;
  const code = (err as { code: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** True when `err` is a Node system error with one of `codes` (ENOENT, ECONNREFUSED…). */
export function isSystemError(err: unknown, ...codes: string[]): err is NodeJS.ErrnoException {
  const code = errorCode(err);
  return err instanceof Error && code !== undefined && codes.includes(code);
}
