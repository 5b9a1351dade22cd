import { KubeConfig } from '@kubernetes/client-node';
import type { CertificateRequest, DesiredState, ObjectRef } from '@portolan/desired-state';
import type { ApplianceConfig, ClusterConfig } from '@portolan/fleet-config';
import type { ChallengeStore } from '@portolan/acme-issuer';
import {
  AcmeIssuer,
  AcmeOrderClient,
  AcmeScheduler,
  ChallengePublishError,
  KubeTlsSecretStore,
  acmeClientOptions,
} from '@portolan/acme-issuer';
import type { ApplierLogger } from '../applier.ts';
import { AcmeConfigError } from '../errors.ts';

/**
 * Certificate requests of a desired state: one per ACME-managed certificate (the planner marks `acme`), for the
 * hosts of the routes of every virtual service that serves it. Uses the planner's own `certificateRequests` when set.
 */
export function certificateRequestsOf(desired: DesiredState | null): CertificateRequest[] {
  if (desired === null) return [];
  if (desired.certificateRequests !== undefined) return [...desired.certificateRequests];
  const out: CertificateRequest[] = [];
  for (const cert of desired.certificates) {
    if (cert.acme !== true) continue;
    const serving = desired.virtualServices.filter((v) => v.certificates.includes(cert.name));
    const hosts = [...new Set([...cert.hosts, ...serving.flatMap((v) => v.routes.map((r) => r.host))])]
      .filter((h) => h !== '' && !h.startsWith('*.'))
      .sort();
    const ingress: ObjectRef | undefined = serving.flatMap((v) => v.owners)[0];
    if (hosts.length > 0 && ingress !== undefined) out.push({ secret: cert.secret, hosts, ingress });
  }
  return out.sort((a, b) => (a.secret.namespace + a.secret.name < b.secret.namespace + b.secret.name ? -1 : 1));
}

/** What the applier hands the ACME wiring. */
export interface AcmeWiringOptions {
  readonly appliance: ApplianceConfig;
  readonly baseDir: string;
  readonly clusters: readonly ClusterConfig[];
  readonly challenges: ChallengeStore;
  /** Pushes pending challenges to the appliance now (an apply cycle that re-renders with them); rejects when refused. */
  readonly publish: () => Promise<void>;
  readonly desired: () => DesiredState | null;
  readonly isLeader: () => boolean;
  readonly logger: ApplierLogger;
}

/**
 * Runs the ACME issuer for a vTM appliance with `vtm.acme` (the vTM integration's use-lets-encrypt): certificates come from
 * the ACME server through HTTP-01 answered by the appliance's data plane, are stored as kubernetes.io/tls Secrets
 * in the Ingress's cluster (the watcher then brings them in like any Secret), and are renewed before expiry.
 * Only the group's leader orders certificates (two issuers would order twice).
 */
export async function startAcme(o: AcmeWiringOptions): Promise<{ stop(): void; trigger(): void }> {
  const acme = o.appliance.vtm?.acme;
  if (acme === undefined) throw new AcmeConfigError(`appliance ${o.appliance.name} has no vtm.acme section`);
  const secretStores: Record<string, KubeTlsSecretStore> = {};
  for (const c of o.clusters) {
    const kc = new KubeConfig();
    if (c.kubeconfig === undefined) kc.loadFromCluster();
    else kc.loadFromFile(c.kubeconfig);
    if (c.context !== undefined) kc.setCurrentContext(c.context);
    secretStores[c.name] = new KubeTlsSecretStore(c.name, kc);
  }
  const issuer = new AcmeIssuer({
    authority: new AcmeOrderClient(await acmeClientOptions(acme, o.baseDir)),
    secretStores,
    challenges: o.challenges,
    publisher: {
      publish: async () => {
        try {
          await o.publish();
        } catch (cause) {
          throw new ChallengePublishError('the apply carrying the HTTP-01 challenges failed', { cause });
        }
      },
    },
    renewBeforeDays: acme.renewBeforeDays,
    log: (event) => o.logger.info({ acme: event }, 'acme'),
  });
  const makeScheduler = (): AcmeScheduler =>
    new AcmeScheduler({
      issuer,
      requests: () => certificateRequestsOf(o.desired()),
      onError: (e) => o.logger.warn({ err: (e as Error).message }, 'ACME pass failed; retrying later'),
    });
  // The scheduler runs only while this replica leads (followers neither order nor renew).
  let running: AcmeScheduler | null = null;
  const follow = (): void => {
    if (o.isLeader() && running === null) {
      running = makeScheduler();
      running.start();
    } else if (!o.isLeader() && running !== null) {
      void running.stop();
      running = null;
    }
  };
  const timer = setInterval(follow, 1000);
  follow();
  return {
    stop: () => {
      clearInterval(timer);
      if (running !== null) void running.stop();
    },
    trigger: () => running?.trigger(),
  };
}
