/**
 * Keeps API calls under the appliance's limit (it drops the connection above 30 calls in 3 s): at most
 * `maxCalls` call starts in any `windowMs` sliding window. Callers queue in order; waiting honours the signal.
 */
export class CallThrottle {
  readonly maxCalls: number;
  readonly windowMs: number;
  readonly #starts: number[] = [];
  readonly #now: () => number;
  #queue: Promise<void> = Promise.resolve();

  constructor(maxCalls: number, windowMs = 3000, now: () => number = () => performance.now()) {
    this.maxCalls = maxCalls;
    this.windowMs = windowMs;
    this.#now = now;
  }

  /** Resolves when one more call may start (and counts it as started). */
  acquire(signal?: AbortSignal): Promise<void> {
    const turn = this.#queue.then(() => this.#wait(signal));
    this.#queue = turn.catch(() => undefined);
    return turn;
  }

  async #wait(signal?: AbortSignal): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      const now = this.#now();
      while (this.#starts.length > 0 && (this.#starts[0] ?? 0) <= now - this.windowMs) this.#starts.shift();
      if (this.#starts.length < this.maxCalls) {
        this.#starts.push(now);
        return;
      }
      // A small margin keeps client and appliance clocks' view of the window boundary on the safe side.
      await sleep((this.#starts[0] ?? now) + this.windowMs - now + 25, signal);
    }
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
