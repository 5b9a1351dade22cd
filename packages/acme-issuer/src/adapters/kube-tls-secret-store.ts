import { ApiException, CoreV1Api, type KubeConfig, type V1Secret } from '@kubernetes/client-node';
import type { ObjectRef } from '@portolan/desired-state';
import {
  HOSTS_ANNOTATION,
  INGRESS_ANNOTATION,
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  parseHostsAnnotation,
  parseIngressAnnotation,
  type ObservedTlsSecret,
  type TlsSecretManifest,
} from '../core/managed-secret.ts';
import { readCertificate } from './read-certificate.ts';
import { PortolanError } from '@portolan/errors';

/** Where the issuer reads and writes the Secrets of one cluster. */
export interface TlsSecretStore {
  /** One Secret by name; null when it does not exist. */
  read(ref: ObjectRef): Promise<ObservedTlsSecret | null>;
  /** Every Secret labelled as the issuer's, in all namespaces. */
  listManaged(): Promise<ObservedTlsSecret[]>;
  /** Creates the Secret, or replaces it when the manifest carries the resourceVersion it saw. */
  write(manifest: TlsSecretManifest): Promise<void>;
}

/** A Kubernetes API call about Secrets failed (transport, authorisation, a conflicting concurrent write). */
export class SecretStoreError extends PortolanError {
  readonly code = 'ACME_SECRET_STORE_FAILED';
  /** HTTP status of the API answer; 0 when there was none. */
  readonly status: number;
  constructor(message: string, status: number, options: { cause: unknown }) {
    super(message, options);
    this.status = status;
  }
}

/** TlsSecretStore over the Kubernetes API (@kubernetes/client-node), for one cluster. */
export class KubeTlsSecretStore implements TlsSecretStore {
  readonly #cluster: string;
  readonly #api: CoreV1Api;

  constructor(cluster: string, kubeConfig: KubeConfig) {
    this.#cluster = cluster;
    this.#api = kubeConfig.makeApiClient(CoreV1Api);
  }

  async read(ref: ObjectRef): Promise<ObservedTlsSecret | null> {
    try {
      return this.#observe(await this.#api.readNamespacedSecret({ name: ref.name, namespace: ref.namespace }));
    } catch (error) {
      if (error instanceof ApiException && error.code === 404) return null;
      throw wrap(error, `reading Secret ${ref.namespace}/${ref.name}`);
    }
  }

  async listManaged(): Promise<ObservedTlsSecret[]> {
    try {
      const list = await this.#api.listSecretForAllNamespaces({
        labelSelector: `${MANAGED_BY_LABEL}=${MANAGED_BY_VALUE}`,
      });
      return list.items.map((s) => this.#observe(s));
    } catch (error) {
      throw wrap(error, "listing the issuer's Secrets");
    }
  }

  async write(manifest: TlsSecretManifest): Promise<void> {
    const { name, namespace } = manifest.metadata;
    const body = manifest as unknown as V1Secret;
    try {
      if (manifest.metadata.resourceVersion === undefined) await this.#api.createNamespacedSecret({ namespace, body });
      else await this.#api.replaceNamespacedSecret({ name, namespace, body });
    } catch (error) {
      // Only names and statuses go into the message: the body holds the private key.
      throw wrap(error, `writing Secret ${namespace}/${name}`);
    }
  }

  #observe(secret: V1Secret): ObservedTlsSecret {
    const meta = secret.metadata ?? {};
    const crt = secret.data?.['tls.crt'];
    const summary = crt === undefined ? null : readCertificate(Buffer.from(crt, 'base64').toString('utf8'));
    return {
      ref: { cluster: this.#cluster, kind: 'Secret', namespace: meta.namespace ?? '', name: meta.name ?? '' },
      managed: meta.labels?.[MANAGED_BY_LABEL] === MANAGED_BY_VALUE,
      hosts: parseHostsAnnotation(meta.annotations?.[HOSTS_ANNOTATION]),
      ingress: parseIngressAnnotation(meta.annotations?.[INGRESS_ANNOTATION], this.#cluster),
      notAfterMs: summary?.notAfterMs ?? null,
      resourceVersion: meta.resourceVersion ?? '',
    };
  }
}

function wrap(error: unknown, what: string): SecretStoreError {
  const status = error instanceof ApiException ? error.code : 0;
  const detail =
    error instanceof ApiException
      ? `API answered ${error.code}`
      : error instanceof Error
        ? error.message
        : String(error);
  return new SecretStoreError(`${what}: ${detail}`, status, { cause: error });
}
