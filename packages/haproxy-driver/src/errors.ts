/**
 * Infrastructure failures of the HAProxy driver (one class per failure, stable `code`, `cause` kept).
 * Appliance-side refusals are not errors: they come back as failed `OperationResult`s.
 */

/** A Runtime API or master CLI socket could not be reached, closed early, or did not answer in time. */
export class HaproxySocketError extends Error {
  readonly code = 'HAPROXY_SOCKET';
  override readonly name = 'HaproxySocketError';
  readonly socketPath: string;

  constructor(message: string, socketPath: string, options?: { cause?: unknown }) {
    super(`${message} (${socketPath})`, options);
    this.socketPath = socketPath;
  }
}

/** The HAProxy process did not start, or did not become ready in time. */
export class HaproxyStartError extends Error {
  readonly code = 'HAPROXY_START';
  override readonly name = 'HaproxyStartError';
}

/** HAProxy answered something the driver cannot parse (a bug or an unsupported HAProxy version). */
export class HaproxyProtocolError extends Error {
  readonly code = 'HAPROXY_PROTOCOL';
  override readonly name = 'HaproxyProtocolError';
}
