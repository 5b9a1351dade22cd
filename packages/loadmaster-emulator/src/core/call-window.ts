/**
 * The appliance's API rate limit: a call is refused (connection dropped) when `limit` calls were already
 * accepted in the last `windowMs`. Time is passed in, so this stays pure and testable. Mutable by design: it is
 * the emulated appliance's own record of recent calls.
 */
export class CallWindow {
  readonly limit: number;
  readonly windowMs: number;
  readonly #accepted: number[] = [];

  constructor(limit: number, windowMs: number) {
    this.limit = limit;
    this.windowMs = windowMs;
  }

  /** Records a call at `now` if the window has room and returns true; false means the call must be dropped. */
  admit(now: number): boolean {
    while (this.#accepted.length > 0 && (this.#accepted[0] ?? 0) <= now - this.windowMs) this.#accepted.shift();
    if (this.#accepted.length >= this.limit) return false;
    this.#accepted.push(now);
    return true;
  }
}
