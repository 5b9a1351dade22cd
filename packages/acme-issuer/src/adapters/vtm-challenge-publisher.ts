import type { ExecutionContext, SecretResolver } from '@portolan/appliance-driver';
import type { DesiredState } from '@portolan/desired-state';
import type { VtmDriver } from '@portolan/vtm-driver';

/** Makes the data plane answer the current set of challenges (called after every change of the set). */
export interface ChallengePublisher {
  publish(): Promise<void>;
}

/** Pushing the challenge rule to the traffic manager failed (an operation was refused or the appliance is unreachable). */
export class ChallengePublishError extends Error {
  readonly code = 'ACME_CHALLENGE_PUBLISH_FAILED';
  constructor(message: string, options?: { cause: unknown }) {
    super(message, options);
    this.name = 'ChallengePublishError';
  }
}

/** What the publisher needs to bring one vTM in line. */
export interface VtmChallengePublisherOptions {
  /** A driver built with `acmeChallenges: () => challengeStore.list()`. */
  readonly driver: VtmDriver;
  /** The appliance's current desired state (the last committed snapshot). */
  readonly desired: () => DesiredState;
  /** Resolves TLS Secrets should the apply also have to (re)write SSL server keys. */
  readonly secrets: SecretResolver;
  /** Fencing epoch written with every operation (the applier's, when run inside it). */
  readonly epoch?: number;
}

/**
 * Publishes challenges by applying the desired state through the vTM driver (render with the pending
 * challenges → read back → diff → execute): the challenge rule and the port-80 services that list it are the
 * only changes when the appliance was otherwise up to date. For a standalone issuer and tests; inside the
 * pipeline the applier's own driver should render with the same challenge store and apply on publish.
 */
export class VtmChallengePublisher implements ChallengePublisher {
  readonly #options: VtmChallengePublisherOptions;

  constructor(options: VtmChallengePublisherOptions) {
    this.#options = options;
  }

  async publish(): Promise<void> {
    const { driver } = this.#options;
    const signal = AbortSignal.timeout(30_000);
    const context: ExecutionContext = { epoch: this.#options.epoch ?? 0, secrets: this.#options.secrets, signal };
    let observed;
    try {
      observed = await driver.readBack(signal);
    } catch (cause) {
      throw new ChallengePublishError('reading the traffic manager back failed', { cause });
    }
    for (const operation of driver.diff(driver.render(this.#options.desired()), observed)) {
      const result = await driver.execute(operation, context);
      if (!result.ok) throw new ChallengePublishError(`${operation.summary} failed: ${result.code} ${result.message}`);
    }
  }
}
