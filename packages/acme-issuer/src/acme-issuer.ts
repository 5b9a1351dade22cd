import type { CertificateRequest, ObjectRef } from '@portolan/desired-state';
import { AcmeOrderError, type CertificateAuthority, type ChallengePresenter } from './adapters/acme-order-client.ts';
import { SecretStoreError, type TlsSecretStore } from './adapters/kube-tls-secret-store.ts';
import { ChallengePublishError, type ChallengePublisher } from './adapters/vtm-challenge-publisher.ts';
import type { ChallengeStore } from './challenge-store.ts';
import { secretKey, tlsSecretManifest, type ObservedTlsSecret } from './core/managed-secret.ts';
import {
  planCertificateActions,
  type CertificateAction,
  type CertificatePlan,
  type IssuanceFailure,
  type IssueReason,
} from './core/plan-certificate-actions.ts';

/** What the issuer is built from. */
export interface AcmeIssuerOptions {
  readonly authority: CertificateAuthority;
  /** The Secret store of each cluster, by cluster name. */
  readonly secretStores: Readonly<Record<string, TlsSecretStore>>;
  readonly challenges: ChallengeStore;
  readonly publisher: ChallengePublisher;
  /** Renew this many days before expiry (fleet config `vtm.acme.renewBeforeDays`; the vTM integration documents 8). */
  readonly renewBeforeDays?: number;
  /** Structured events (no key material ever); default: none. */
  readonly log?: (event: IssuerEvent) => void;
}

/** One event of a pass, for logs and Kubernetes Events. */
export type IssuerEvent =
  | {
      readonly event: 'CertificateIssued';
      readonly secret: string;
      readonly reason: IssueReason;
      readonly hosts: readonly string[];
      readonly notAfter: string;
    }
  | {
      readonly event: 'CertificateFailed';
      readonly secret: string;
      readonly code: string;
      readonly message: string;
      readonly attempts: number;
    }
  | {
      readonly event: 'CertificateRefused';
      readonly secret: string;
      readonly reason: string;
      readonly message: string;
    };

/** What became of one Secret the pass acted on. */
export type CertificateOutcome =
  | {
      readonly kind: 'issued';
      readonly secret: ObjectRef;
      readonly reason: IssueReason;
      readonly hosts: readonly string[];
      readonly notAfterMs: number;
    }
  | {
      readonly kind: 'failed';
      readonly secret: ObjectRef;
      readonly code: string;
      readonly message: string;
      readonly attempts: number;
    };

/** The result of one reconcile pass. */
export interface ReconcileReport {
  readonly plan: CertificatePlan;
  readonly outcomes: readonly CertificateOutcome[];
}

/**
 * Requests and renews ACME certificates for kubernetes.io/tls Secrets (the vTM integration's use-lets-encrypt): each pass
 * reads the Secrets, decides with the pure planCertificateActions, and obtains what is due one order at a time,
 * answering HTTP-01 through the traffic manager. Failures are remembered and retried with backoff.
 */
export class AcmeIssuer {
  readonly #options: AcmeIssuerOptions;
  readonly #failures = new Map<string, IssuanceFailure>();

  constructor(options: AcmeIssuerOptions) {
    this.#options = options;
  }

  /** One pass: obtain every certificate that is missing or due at `now`. */
  async reconcile(requests: readonly CertificateRequest[], now: Date): Promise<ReconcileReport> {
    const plan = planCertificateActions({
      requests,
      secrets: await this.#observe(requests),
      failures: [...this.#failures.values()],
      nowMs: now.getTime(),
      renewBeforeDays: this.#options.renewBeforeDays ?? 8,
    });
    const outcomes: CertificateOutcome[] = [];
    for (const action of plan.actions) {
      if (action.kind === 'refuse')
        this.#options.log?.({
          event: 'CertificateRefused',
          secret: secretKey(action.secret),
          reason: action.reason,
          message: action.message,
        });
      if (action.kind === 'issue') outcomes.push(await this.#issue(action, now));
    }
    return { plan, outcomes };
  }

  /** The issuer's own Secrets in every cluster it has a store for, and every Secret a request names. */
  async #observe(requests: readonly CertificateRequest[]): Promise<ObservedTlsSecret[]> {
    const seen = new Map<string, ObservedTlsSecret>();
    for (const store of Object.values(this.#options.secretStores))
      for (const s of await store.listManaged()) seen.set(secretKey(s.ref), s);
    for (const r of requests) {
      const store = this.#options.secretStores[r.secret.cluster];
      if (store === undefined || seen.has(secretKey(r.secret))) continue;
      const found = await store.read(r.secret);
      if (found !== null) seen.set(secretKey(found.ref), found);
    }
    return [...seen.values()];
  }

  async #issue(action: Extract<CertificateAction, { kind: 'issue' }>, now: Date): Promise<CertificateOutcome> {
    const { request } = action;
    const key = secretKey(request.secret);
    const store = this.#options.secretStores[request.secret.cluster];
    // The fleet config and the issuer's wiring disagree: reported like any failure, retried with backoff.
    if (store === undefined)
      return this.#failed(
        request.secret,
        now,
        'ACME_NO_SECRET_STORE',
        `no Secret store for cluster ${request.secret.cluster}`,
      );
    try {
      const issued = await this.#options.authority.obtain(request.hosts, this.#presenter(key));
      await store.write(tlsSecretManifest(request, issued, action.resourceVersion));
      this.#failures.delete(key);
      const notAfter = new Date(issued.notAfterMs).toISOString();
      this.#options.log?.({
        event: 'CertificateIssued',
        secret: key,
        reason: action.reason,
        hosts: request.hosts,
        notAfter,
      });
      return {
        kind: 'issued',
        secret: request.secret,
        reason: action.reason,
        hosts: request.hosts,
        notAfterMs: issued.notAfterMs,
      };
    } catch (error) {
      if (!(
        error instanceof AcmeOrderError ||
        error instanceof SecretStoreError ||
        error instanceof ChallengePublishError
      ))
        throw error;
      return this.#failed(request.secret, now, error.code, error.message);
    }
  }

  #failed(secret: ObjectRef, now: Date, code: string, message: string): CertificateOutcome {
    const key = secretKey(secret);
    const attempts = (this.#failures.get(key)?.attempts ?? 0) + 1;
    this.#failures.set(key, { secret, attempts, lastAttemptMs: now.getTime() });
    this.#options.log?.({ event: 'CertificateFailed', secret: key, code, message, attempts });
    return { kind: 'failed', secret, code, message, attempts };
  }

  /** Puts one order's challenges into the store and publishes the whole set, and takes them out again. */
  #presenter(order: string): ChallengePresenter {
    const { challenges, publisher } = this.#options;
    return {
      present: async (list) => {
        challenges.set(order, list);
        await publisher.publish();
      },
      withdraw: async () => {
        challenges.set(order, []);
        await publisher.publish();
      },
    };
  }
}
