import type { ExecutionContext, Operation, SecretResolver } from '@portolan/appliance-driver';
import type { DesiredState, JsonObject } from '@portolan/desired-state';
import { vtmName, type VtmDriver, type VtmObject, type VtmObjects } from '@portolan/vtm-driver';
import { PortolanError } from '@portolan/errors';

/** Makes the data plane answer the current set of challenges (called after every change of the set). */
export interface ChallengePublisher {
  publish(): Promise<void>;
}

/** Pushing the challenge rule to the traffic manager failed (an operation was refused or the appliance is unreachable). */
export class ChallengePublishError extends PortolanError {
  readonly code = 'ACME_CHALLENGE_PUBLISH_FAILED';
}

/** What the publisher needs to bring one vTM in line. */
export interface VtmChallengePublisherOptions {
  /** A driver built with `acmeChallenges: () => challengeStore.list()`. */
  readonly driver: VtmDriver;
  /** The appliance's current desired state (the last committed snapshot). */
  readonly desired: () => DesiredState;
  /** Needed by the driver's execute contract; challenge operations never touch SSL keys. */
  readonly secrets: SecretResolver;
  /** Fencing epoch written with every operation (the applier's, when run inside it). */
  readonly epoch?: number;
}

const ACME_RULE = vtmName('acme', 'http-01');
/** Challenge-only services and their 404 rules (see the driver's renderAcmeChallenges); names may be hashed, never cut at the start. */
const CHALLENGE_ONLY_VS = vtmName('vs', 'acme-challenges.');
const CHALLENGE_ONLY_RULE = vtmName('route', 'acme-challenges.');

/**
 * Publishes challenges through the vTM driver: render with the pending challenges → read back → diff, then runs
 * only the operations challenges cause — the challenge rule, the port-80 services that list (or listed) it, and
 * challenge-only services — so an issuer never pushes anything else of the desired state (that is the applier's
 * job, under its lease) and a certificate still missing elsewhere cannot block its own validation.
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
    let observed: VtmObjects;
    try {
      observed = await driver.readBack(signal);
    } catch (cause) {
      throw new ChallengePublishError('reading the traffic manager back failed', { cause });
    }
    const rendered = driver.render(this.#options.desired());
    for (const operation of challengeOperations(driver.diff(rendered, observed), rendered, observed)) {
      let result;
      try {
        result = await driver.execute(operation, context);
      } catch (cause) {
        throw new ChallengePublishError(`${operation.summary} failed`, { cause });
      }
      if (!result.ok) throw new ChallengePublishError(`${operation.summary} failed: ${result.code} ${result.message}`);
    }
  }
}

/** The operations (in diff order) that add, change or remove challenge answering. */
export function challengeOperations(
  operations: readonly Operation[],
  rendered: VtmObjects,
  observed: VtmObjects,
): Operation[] {
  const listsRule = new Set<string>();
  for (const o of [...rendered.objects, ...observed.objects]) if (listsAcmeRule(o)) listsRule.add(o.name);
  return operations.filter((op) => {
    if (op.objectType === 'rules') return op.objectName === ACME_RULE || op.objectName.startsWith(CHALLENGE_ONLY_RULE);
    if (op.objectType === 'virtual_servers')
      return listsRule.has(op.objectName) || op.objectName.startsWith(CHALLENGE_ONLY_VS);
    return false;
  });
}

function listsAcmeRule(object: VtmObject): boolean {
  if (object.type !== 'virtual_servers') return false;
  // Rendered and read-back virtual servers always have a `basic` section (the driver writes it, vTM defaults it).
  const rules = (object.properties['basic'] as JsonObject | undefined)?.['request_rules'];
  return Array.isArray(rules) && rules.includes(ACME_RULE);
}
