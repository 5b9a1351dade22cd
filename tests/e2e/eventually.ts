import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Retries `check` (which throws, e.g. an assertion, until the pipeline has converged) until it passes or
 * `timeoutMs` runs out; then rethrows its last error, prefixed with what was awaited. A bound on convergence,
 * not a performance assertion.
 */
export async function eventually<T>(
  what: string,
  check: () => Promise<T> | T,
  options: { timeoutMs?: number; everyMs?: number; context?: () => string } = {},
): Promise<T> {
  const deadline = performance.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (performance.now() > deadline) {
        const extra = options.context?.() ?? '';
        throw new Error(
          `timed out waiting for ${what}: ${(error as Error).message}${extra === '' ? '' : `\n${extra}`}`,
          { cause: error },
        );
      }
    }
    await sleep(options.everyMs ?? 150);
  }
}
