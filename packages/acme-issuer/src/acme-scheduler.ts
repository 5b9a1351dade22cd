import type { CertificateRequest } from '@portolan/desired-state';
import type { AcmeIssuer, ReconcileReport } from './acme-issuer.ts';
import { nextPassDelayMs, type PassDelayBounds } from './core/next-pass-delay.ts';

/** What drives the issuer's passes. */
export interface AcmeSchedulerOptions {
  readonly issuer: AcmeIssuer;
  /** The current certificate requests (the planner's latest DesiredState.certificateRequests of every vTM). */
  readonly requests: () => readonly CertificateRequest[];
  /** Clock; default the system clock. */
  readonly now?: () => Date;
  /** Sleep between passes; default at least 5 s, at most 1 h (Secrets can change behind the issuer's back). */
  readonly bounds?: PassDelayBounds;
  readonly onPass?: (report: ReconcileReport) => void;
  /** A pass that could not run (Kubernetes unreachable); the next one comes after the longest sleep. Absent: rethrown. */
  readonly onError?: (error: unknown) => void;
}

const DEFAULT_BOUNDS: PassDelayBounds = { minMs: 5_000, maxMs: 3_600_000 };

/**
 * Runs issuer passes one at a time: at start, when triggered (new requests), and otherwise when the earliest
 * renewal or retry falls due — the vTM integration's documented "renews the certificates eight days before they expire".
 */
export class AcmeScheduler {
  readonly #options: AcmeSchedulerOptions;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #running: Promise<void> | null = null;
  #again = false;
  #stopped = true;

  constructor(options: AcmeSchedulerOptions) {
    this.#options = options;
  }

  /** Starts with a pass right away. */
  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#schedule(0);
  }

  /** Runs a pass as soon as possible (after the one in progress, if any); passes never overlap. */
  trigger(): void {
    if (this.#stopped) return;
    if (this.#running !== null) this.#again = true;
    else this.#schedule(0);
  }

  /** Stops scheduling and waits for a pass in progress to end. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#running;
  }

  #schedule(delayMs: number): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#running = this.#pass().finally(() => {
        this.#running = null;
      });
    }, delayMs);
  }

  async #pass(): Promise<void> {
    const now = this.#options.now ?? (() => new Date());
    const bounds = this.#options.bounds ?? DEFAULT_BOUNDS;
    let delay = bounds.maxMs;
    try {
      const report = await this.#options.issuer.reconcile(this.#options.requests(), now());
      this.#options.onPass?.(report);
      delay = nextPassDelayMs(report.plan.nextCheckAtMs, now().getTime(), bounds);
    } catch (error) {
      // Without a handler the error is not swallowed: it surfaces as an unhandled rejection.
      if (this.#options.onError === undefined) throw error;
      this.#options.onError(error);
    }
    if (this.#again) delay = 0;
    this.#again = false;
    if (!this.#stopped) this.#schedule(delay);
  }
}
