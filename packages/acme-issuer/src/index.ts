// ACME (Let's Encrypt) issuer: requests and renews TLS certificates for use-lets-encrypt Ingresses and stores them as Secrets.
export {
  AcmeIssuer,
  type AcmeIssuerOptions,
  type IssuerEvent,
  type CertificateOutcome,
  type ReconcileReport,
} from './acme-issuer.ts';
export { AcmeScheduler, type AcmeSchedulerOptions } from './acme-scheduler.ts';
export { ChallengeStore } from './challenge-store.ts';
export { acmeClientOptions, AcmeConfigError, type VtmAcmeConfig } from './acme-config.ts';
export {
  AcmeOrderClient,
  AcmeOrderError,
  type AcmeOrderClientOptions,
  type CertificateAuthority,
  type ChallengePresenter,
} from './adapters/acme-order-client.ts';
export { KubeTlsSecretStore, SecretStoreError, type TlsSecretStore } from './adapters/kube-tls-secret-store.ts';
export {
  VtmChallengePublisher,
  ChallengePublishError,
  type ChallengePublisher,
  type VtmChallengePublisherOptions,
} from './adapters/vtm-challenge-publisher.ts';
export { readCertificate, splitPemChain, type CertificateSummary } from './adapters/read-certificate.ts';
export {
  planCertificateActions,
  retryDelayMs,
  type CertificateAction,
  type CertificatePlan,
  type CertificatePlanInput,
  type IssuanceFailure,
  type IssueReason,
  type RefuseReason,
} from './core/plan-certificate-actions.ts';
export {
  tlsSecretManifest,
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  HOSTS_ANNOTATION,
  INGRESS_ANNOTATION,
  NOT_AFTER_ANNOTATION,
  type ObservedTlsSecret,
  type IssuedCertificate,
  type TlsSecretManifest,
} from './core/managed-secret.ts';
export type { PendingChallenge } from './core/challenge-set.ts';
export { nextPassDelayMs, type PassDelayBounds } from './core/next-pass-delay.ts';
