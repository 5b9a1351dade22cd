import { compareCodeUnits, type CertificateRequest, type ObjectRef } from '@portolan/desired-state';
import { normalizeHosts, secretKey, type ObservedTlsSecret } from './managed-secret.ts';

/** A failed attempt to obtain a certificate, remembered by the shell so retries back off. */
export interface IssuanceFailure {
  readonly secret: ObjectRef;
  /** Consecutive failures so far (≥ 1). */
  readonly attempts: number;
  readonly lastAttemptMs: number;
}

/** Why a certificate is (re)issued. */
export type IssueReason = 'SecretMissing' | 'HostsChanged' | 'CertificateUnreadable' | 'Expiring';

/** Why a request is not served: reported as a condition on the Ingress, never retried until the input changes. */
export type RefuseReason = 'SecretNotManaged' | 'NoHosts' | 'WildcardNeedsDns01';

/** What to do for one Secret. Expected outcomes, all of them: the shell acts on `issue` only. */
export type CertificateAction =
  | {
      readonly kind: 'issue';
      readonly reason: IssueReason;
      readonly request: CertificateRequest;
      /** The replaced Secret's resourceVersion (conditional write), null when it does not exist. */
      readonly resourceVersion: string | null;
    }
  | { readonly kind: 'keep'; readonly secret: ObjectRef; readonly renewAtMs: number }
  | { readonly kind: 'wait'; readonly secret: ObjectRef; readonly retryAtMs: number; readonly attempts: number }
  | {
      readonly kind: 'refuse';
      readonly secret: ObjectRef;
      readonly ingress: ObjectRef | null;
      readonly reason: RefuseReason;
      readonly message: string;
    };

/** Everything a decision depends on. */
export interface CertificatePlanInput {
  /** From the planner (DesiredState.certificateRequests), any order; several for one Secret are merged. */
  readonly requests: readonly CertificateRequest[];
  /** Every existing Secret a request names, and every Secret labelled as the issuer's. */
  readonly secrets: readonly ObservedTlsSecret[];
  readonly failures: readonly IssuanceFailure[];
  readonly nowMs: number;
  /** Renew when the certificate expires within this many days (the vTM integration documents 8). */
  readonly renewBeforeDays: number;
}

/** The decision of one pass: one action per Secret (sorted by Secret), and when to look again. */
export interface CertificatePlan {
  readonly actions: readonly CertificateAction[];
  /** The earliest renewal or retry time among `keep` and `wait`; null when nothing is scheduled. */
  readonly nextCheckAtMs: number | null;
}

const DAY_MS = 86_400_000;
const RETRY_BASE_MS = 60_000;
const RETRY_MAX_MS = 6 * 3_600_000;

/** Delay before retrying after `attempts` consecutive failures: 1 min doubling to at most 6 h. */
export function retryDelayMs(attempts: number): number {
  return Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** Math.max(0, attempts - 1));
}

/**
 * Decides, per Secret, whether to obtain a certificate now: requested Secrets that are missing, cover other hosts,
 * are unreadable or expire within `renewBeforeDays`; and the issuer's own Secrets (labelled), renewed from their
 * recorded hosts even when no request names them. A Secret someone else made is never overwritten.
 */
export function planCertificateActions(input: CertificatePlanInput): CertificatePlan {
  const observed = new Map(input.secrets.map((s) => [secretKey(s.ref), s]));
  const failures = new Map(input.failures.map((f) => [secretKey(f.secret), f]));
  const targets = mergeRequests(input.requests);
  for (const secret of input.secrets) {
    const key = secretKey(secret.ref);
    if (!secret.managed || targets.has(key)) continue;
    const ingress = secret.ingress ?? {
      cluster: secret.ref.cluster,
      kind: 'Ingress',
      namespace: secret.ref.namespace,
      name: '',
    };
    targets.set(key, { secret: secret.ref, hosts: [...secret.hosts], ingress });
  }
  const actions: CertificateAction[] = [];
  for (const key of [...targets.keys()].sort(compareCodeUnits)) {
    const request = targets.get(key) as CertificateRequest;
    actions.push(decide(request, observed.get(key) ?? null, failures.get(key) ?? null, input));
  }
  const times = actions.flatMap((a) => (a.kind === 'keep' ? [a.renewAtMs] : a.kind === 'wait' ? [a.retryAtMs] : []));
  return { actions, nextCheckAtMs: times.length === 0 ? null : Math.min(...times) };
}

function decide(
  request: CertificateRequest,
  secret: ObservedTlsSecret | null,
  failure: IssuanceFailure | null,
  input: CertificatePlanInput,
): CertificateAction {
  const refuse = (reason: RefuseReason, message: string): CertificateAction => ({
    kind: 'refuse',
    secret: request.secret,
    ingress: request.ingress.name === '' ? null : request.ingress,
    reason,
    message,
  });
  const where = `${request.secret.namespace}/${request.secret.name}`;
  if (request.hosts.length === 0)
    return refuse('NoHosts', `no host names to request a certificate for Secret ${where}`);
  const wildcard = request.hosts.find((h) => h.startsWith('*.'));
  if (wildcard !== undefined)
    return refuse(
      'WildcardNeedsDns01',
      `${wildcard} needs a DNS-01 challenge; only HTTP-01 through the traffic manager is supported`,
    );
  if (secret !== null && !secret.managed)
    return refuse(
      'SecretNotManaged',
      `Secret ${where} exists and was not created by the ACME issuer; it is left alone`,
    );
  const reason = issueReason(request, secret, input);
  if (reason === null) {
    const notAfterMs = secret?.notAfterMs as number;
    return { kind: 'keep', secret: request.secret, renewAtMs: notAfterMs - input.renewBeforeDays * DAY_MS };
  }
  if (failure !== null) {
    const retryAtMs = failure.lastAttemptMs + retryDelayMs(failure.attempts);
    if (input.nowMs < retryAtMs) return { kind: 'wait', secret: request.secret, retryAtMs, attempts: failure.attempts };
  }
  return { kind: 'issue', reason, request, resourceVersion: secret?.resourceVersion ?? null };
}

function issueReason(
  request: CertificateRequest,
  secret: ObservedTlsSecret | null,
  input: CertificatePlanInput,
): IssueReason | null {
  if (secret === null) return 'SecretMissing';
  if (secret.notAfterMs === null) return 'CertificateUnreadable';
  if (secret.hosts.join(',') !== request.hosts.join(',')) return 'HostsChanged';
  return input.nowMs >= secret.notAfterMs - input.renewBeforeDays * DAY_MS ? 'Expiring' : null;
}

/** One request per Secret: hosts normalised and united when several Ingresses name the same Secret (the first Ingress is recorded). */
function mergeRequests(requests: readonly CertificateRequest[]): Map<string, CertificateRequest> {
  const merged = new Map<string, CertificateRequest>();
  for (const r of requests) {
    const key = secretKey(r.secret);
    const prior = merged.get(key);
    merged.set(
      key,
      prior === undefined
        ? { secret: r.secret, hosts: normalizeHosts(r.hosts), ingress: r.ingress }
        : { ...prior, hosts: normalizeHosts([...prior.hosts, ...r.hosts]) },
    );
  }
  return merged;
}
