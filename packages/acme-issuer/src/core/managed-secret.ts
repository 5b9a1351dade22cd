import type { CertificateRequest, ObjectRef } from '@portolan/desired-state';

/**
 * The Secrets the issuer writes: kubernetes.io/tls, labelled as ours (so they can be found and renewed without
 * any Ingress asking, as the vTM integration's controller "monitors all Secrets created by the Traffic Manager"), with the
 * hosts and the requesting Ingress recorded as annotations.
 */

/** Label marking a Secret as written (and renewed) by the ACME issuer. */
export const MANAGED_BY_LABEL = 'portolan.dev/managed-by';
/** Value of MANAGED_BY_LABEL on the issuer's Secrets. */
export const MANAGED_BY_VALUE = 'acme';
/** Annotation: the certificate's DNS names, comma-separated, sorted. */
export const HOSTS_ANNOTATION = 'portolan.dev/acme-hosts';
/** Annotation: `namespace/name` of the Ingress that asked for the certificate. */
export const INGRESS_ANNOTATION = 'portolan.dev/acme-ingress';
/** Annotation: the certificate's expiry (ISO 8601), for people reading the Secret. */
export const NOT_AFTER_ANNOTATION = 'portolan.dev/acme-not-after';

/** What the issuer knows about one existing Secret (read by the Kubernetes adapter; no key material). */
export interface ObservedTlsSecret {
  readonly ref: ObjectRef;
  /** Labelled MANAGED_BY_LABEL=MANAGED_BY_VALUE: the issuer may overwrite and renew it. */
  readonly managed: boolean;
  /** From HOSTS_ANNOTATION (empty when absent). */
  readonly hosts: readonly string[];
  /** From INGRESS_ANNOTATION, in the Secret's cluster; null when absent or malformed. */
  readonly ingress: ObjectRef | null;
  /** Expiry (ms since the epoch) of the first certificate in tls.crt; null when missing or unreadable. */
  readonly notAfterMs: number | null;
  readonly resourceVersion: string;
}

/** A certificate obtained from the ACME server, with its private key (never logged). */
export interface IssuedCertificate {
  /** Leaf first, then the chain, PEM. */
  readonly certificatePem: string;
  readonly privateKeyPem: string;
  readonly notAfterMs: number;
}

/** The Secret manifest the issuer writes (a create or a replace of the whole object). */
export interface TlsSecretManifest {
  readonly apiVersion: 'v1';
  readonly kind: 'Secret';
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    readonly labels: Readonly<Record<string, string>>;
    readonly annotations: Readonly<Record<string, string>>;
    readonly resourceVersion?: string;
  };
  readonly type: 'kubernetes.io/tls';
  readonly data: { readonly 'tls.crt': string; readonly 'tls.key': string };
}

/** The Secret holding an issued certificate; `resourceVersion` of the Secret it replaces makes the write conditional. */
export function tlsSecretManifest(
  request: CertificateRequest,
  issued: IssuedCertificate,
  resourceVersion: string | null,
): TlsSecretManifest {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: request.secret.name,
      namespace: request.secret.namespace,
      labels: { [MANAGED_BY_LABEL]: MANAGED_BY_VALUE },
      annotations: {
        [HOSTS_ANNOTATION]: request.hosts.join(','),
        // Renewals of a Secret no request names carry no Ingress (name ''): keep the annotation out then.
        ...(request.ingress.name === ''
          ? {}
          : { [INGRESS_ANNOTATION]: `${request.ingress.namespace}/${request.ingress.name}` }),
        [NOT_AFTER_ANNOTATION]: new Date(issued.notAfterMs).toISOString(),
      },
      ...(resourceVersion === null ? {} : { resourceVersion }),
    },
    type: 'kubernetes.io/tls',
    // PEM is ASCII, so btoa's Latin-1 restriction never bites.
    data: { 'tls.crt': btoa(issued.certificatePem), 'tls.key': btoa(issued.privateKeyPem) },
  };
}

/** Parses HOSTS_ANNOTATION. */
export function parseHostsAnnotation(value: string | undefined): string[] {
  return normalizeHosts((value ?? '').split(','));
}

/** Parses INGRESS_ANNOTATION (`namespace/name`) into a reference in `cluster`; null when malformed. */
export function parseIngressAnnotation(value: string | undefined, cluster: string): ObjectRef | null {
  const match = /^([a-z0-9][a-z0-9.-]*)\/([a-z0-9][a-z0-9.-]*)$/.exec(value ?? '');
  return match === null ? null : { cluster, kind: 'Ingress', namespace: match[1] as string, name: match[2] as string };
}

/** Lower-cased, trimmed, deduplicated, sorted, empty entries dropped. */
export function normalizeHosts(hosts: readonly string[]): string[] {
  return [...new Set(hosts.map((h) => h.trim().toLowerCase()).filter((h) => h !== ''))].sort();
}

/** `cluster/namespace/name`: the key of a Secret across clusters. */
export function secretKey(ref: ObjectRef): string {
  return `${ref.cluster}/${ref.namespace}/${ref.name}`;
}
