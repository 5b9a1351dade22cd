import type {
  Certificate,
  JsonObject,
  ListenAddress,
  ListenProtocol,
  Monitor,
  ObjectRef,
  PathMatch,
  Persistence,
} from '@portolan/desired-state';
import { canonicalJson, sha256Text } from '@portolan/desired-state';
import type { TrimmedIngress, TrimmedSecret } from '@portolan/kube-model';
import { worldKeyString } from '@portolan/kube-model';
import type { ApplianceProfile } from './appliance-profile.ts';
import { creationOrderKey } from './creation-order.ts';
import { readIngressOptions, type IngressOptions } from './ingress-options.ts';
import { issue, type Issue } from './issue.ts';
import { validateIngress, type BackendRef, type NormalizedIngress } from './validate-ingress.ts';

/** Pool settings an Ingress asks for; part of the pool's identity, so different settings never collide. */
export interface PoolSettings {
  readonly monitor: Monitor | null;
  readonly persistence: Persistence | null;
  readonly tlsToBackend: boolean;
  readonly customization: JsonObject | null;
}

/** A pool one Ingress needs: a Service port in its namespace, with its settings. */
export interface PoolSpec {
  readonly name: string;
  readonly namespace: string;
  readonly service: string;
  readonly port: number | string;
  readonly settings: PoolSettings;
}

/** The listener an Ingress asks for. `group` is the address it competes for (an IP, or "default"). */
export interface ListenerRequest {
  readonly group: string;
  readonly address: ListenAddress;
  readonly port: number;
  readonly protocol: ListenProtocol;
  readonly sslRedirect: boolean;
  readonly letsEncrypt: boolean;
}

/** A certificate an Ingress offers for some hosts ('' = any host: a TLS entry without hosts). */
export interface TlsIntent {
  readonly hosts: readonly string[];
  readonly certificate: Certificate;
}

/**
 * Everything one Ingress asks of one appliance, computed from that Ingress alone (plus its class and Secrets):
 * the unit of incremental planning. `signature` is its JSON, so an unchanged intent costs nothing.
 */
export interface IngressIntent {
  readonly key: string;
  readonly ref: ObjectRef;
  /** namespace/name: copies of one Ingress in several clusters are one application. */
  readonly app: string;
  readonly order: string;
  readonly errors: readonly Issue[];
  readonly warnings: readonly Issue[];
  /** Null exactly when the Ingress is rejected on its own. */
  readonly listener: ListenerRequest | null;
  readonly routes: readonly {
    readonly host: string;
    readonly path: string;
    readonly match: PathMatch;
    readonly pool: string;
  }[];
  readonly defaultPool: string | null;
  readonly tls: readonly TlsIntent[];
  /** Hosts listed under `spec.tls` ('' = an entry without hosts: any host), whether or not their Secret is usable. */
  readonly tlsHosts: readonly string[];
  readonly pools: readonly PoolSpec[];
  readonly requestScript: string | null;
  readonly responseScript: string | null;
  readonly vsCustomization: JsonObject | null;
  readonly signature: string;
}

/** Looks up a Secret in the Ingress's cluster. */
export type SecretLookup = (namespace: string, name: string) => TrimmedSecret | undefined;

/** The deterministic name of a pool: namespace~service~port, plus a settings digest when settings are not the defaults. */
export function poolNameOf(namespace: string, backend: BackendRef, settings: PoolSettings): string {
  const base = `${namespace}~${backend.service}~${backend.port}`;
  const plain =
    settings.monitor === null &&
    settings.persistence === null &&
    !settings.tlsToBackend &&
    settings.customization === null;
  return plain ? base : `${base}~${sha256Text(canonicalJson(settings), 'base64url').slice(0, 10)}`;
}

/** The deterministic name of a listener. */
export function listenerNameOf(address: ListenAddress, port: number): string {
  return `${address.kind === 'default' ? 'default' : address.ip}~${port}`;
}

/** Builds the intent of one selected Ingress: validate, annotate, look up TLS Secrets. Never throws. */
export function buildIntent(
  ingress: TrimmedIngress,
  cluster: string,
  profile: ApplianceProfile,
  secrets: SecretLookup,
  selectionWarning: Issue | null,
  refusal: Issue | null = null,
): IngressIntent {
  const { name, namespace, creationTimestamp } = ingress.metadata;
  const ref: ObjectRef = { cluster, kind: 'Ingress', namespace, name };
  const base = {
    key: worldKeyString(ref),
    ref,
    app: `${namespace}/${name}`,
    order: creationOrderKey(creationTimestamp, namespace, name, cluster),
  };
  const validation = validateIngress(ingress);
  const reading = validation.ok
    ? readIngressOptions(ingress.metadata.annotations ?? {}, profile, validation.ingress)
    : null;
  const errors = validation.ok ? [...reading!.errors] : [...validation.errors];
  if (refusal !== null) errors.push(refusal);
  const warnings = [
    ...(selectionWarning === null ? [] : [selectionWarning]),
    ...(validation.ok ? validation.warnings : []),
    ...(reading?.warnings ?? []),
  ];
  if (!validation.ok || reading === null || errors.length > 0) return seal({ ...base, ...EMPTY, errors, warnings });
  const spec = validation.ingress;
  const o = reading.options;
  const settings = poolSettingsOf(o);
  const pools = new Map<string, PoolSpec>();
  const poolFor = (b: BackendRef): string => {
    const pool = poolNameOf(namespace, b, settings);
    pools.set(pool, { name: pool, namespace, service: b.service, port: b.port, settings });
    return pool;
  };
  const routes = spec.routes.map((r) => ({ host: r.host, path: r.path, match: r.match, pool: poolFor(r.backend) }));
  const defaultPool = spec.defaultBackend === null ? null : poolFor(spec.defaultBackend);
  const tls = tlsIntents(spec, ref, o, secrets, warnings);
  const listener = listenerRequestOf(spec, o, profile);
  return seal({
    ...base,
    errors,
    warnings,
    listener,
    routes,
    defaultPool,
    tls,
    tlsHosts: tlsHostsOf(spec),
    pools: [...pools.values()].sort((a, b) => (a.name < b.name ? -1 : 1)),
    requestScript: o.requestScript,
    responseScript: o.responseScript,
    vsCustomization: o.vsCustomization,
  });
}

/** What the annotations ask of every pool of an Ingress (its pool names hash them). */
function poolSettingsOf(o: IngressOptions): PoolSettings {
  return {
    monitor: o.monitor,
    persistence: o.persistence,
    tlsToBackend: o.tlsToBackend,
    customization: o.poolCustomization,
  };
}

/** The listener an accepted Ingress asks for: its address group, port and protocol. */
function listenerRequestOf(spec: NormalizedIngress, o: IngressOptions, profile: ApplianceProfile): ListenerRequest {
  // vTM's documented rule: 80 without TLS, 443 with a TLS section; passthrough carries HTTPS, so it defaults to the HTTPS port too.
  const port = o.port ?? (spec.hasTls || o.passthrough ? profile.httpsPort : profile.httpPort);
  return {
    group: o.address.kind === 'default' ? 'default' : o.address.ip,
    address: o.address,
    port,
    protocol: o.passthrough ? 'tls-passthrough' : spec.hasTls ? 'https' : 'http',
    sslRedirect: o.sslRedirect,
    letsEncrypt: o.letsEncrypt,
  };
}

const EMPTY = {
  listener: null,
  routes: [],
  defaultPool: null,
  tls: [],
  tlsHosts: [],
  pools: [],
  requestScript: null,
  responseScript: null,
  vsCustomization: null,
} as const;

/** The hosts a TLS section names, sorted and once each ('' for an entry that names none). */
function tlsHostsOf(spec: NormalizedIngress): string[] {
  const hosts = new Set<string>();
  for (const t of spec.tls) for (const h of t.hosts.length === 0 ? [''] : t.hosts) hosts.add(h);
  return [...hosts].sort();
}

/** Warnings a usable certificate still deserves: expired when read, or not covering a host it is used for. */
function certificateWarnings(
  tls: { readonly names: readonly string[]; readonly notAfter: string; readonly expiredWhenRead: boolean },
  hosts: readonly string[],
  secret: string,
  warnings: Issue[],
): void {
  if (tls.expiredWhenRead)
    warnings.push(
      issue(
        'CertificateExpired',
        `Secret ${secret}: the certificate is not valid now (it expires ${tls.notAfter}); clients will refuse it`,
      ),
    );
  const uncovered = hosts.filter((h) => h !== '' && !tls.names.some((n) => certificateNameCovers(n, h)));
  if (uncovered.length > 0)
    warnings.push(
      issue(
        'CertificateHostMismatch',
        `Secret ${secret}: the certificate does not name ${uncovered.slice(0, 3).join(', ')}${uncovered.length > 3 ? ` and ${uncovered.length - 3} more` : ''}; clients will refuse it for those hosts`,
      ),
    );
}

/** Whether a certificate name (`a.example.com` or `*.example.com`) covers a host (a wildcard covers one label). */
function certificateNameCovers(name: string, host: string): boolean {
  const h = host.toLowerCase();
  if (name === h) return true;
  if (!name.startsWith('*.')) return false;
  const dot = h.indexOf('.');
  return dot > 0 && h.slice(dot) === name.slice(1);
}

/** Whether a rule's host is served by a TLS entry: listed, covered by a listed `*.` wildcard, or any host. */
export function isTlsHost(tlsHosts: readonly string[], host: string): boolean {
  if (tlsHosts.includes('') || tlsHosts.includes(host)) return true;
  const dot = host.indexOf('.');
  return !host.startsWith('*.') && dot > 0 && tlsHosts.includes(`*${host.slice(dot)}`);
}

/** TLS entries → certificates by reference. Missing or unusable Secrets are warnings: those hosts lose TLS, nothing else. */
function tlsIntents(
  spec: NormalizedIngress,
  ref: ObjectRef,
  o: IngressOptions,
  secrets: SecretLookup,
  warnings: Issue[],
): TlsIntent[] {
  const out: TlsIntent[] = [];
  spec.tls.forEach((t, i) => {
    const hosts = t.hosts.length === 0 ? [''] : t.hosts;
    if (t.secretName === null)
      return void warnings.push(
        issue('TlsWithoutSecret', `spec.tls[${i}] names no Secret; its hosts use the listener's default certificate`),
      );
    const secretRef: ObjectRef = { cluster: ref.cluster, kind: 'Secret', namespace: ref.namespace, name: t.secretName };
    const name = `${ref.cluster}~${ref.namespace}~${t.secretName}`;
    const secret = secrets(ref.namespace, t.secretName);
    if (o.letsEncrypt) {
      // Unusable material counts as none: the issuer obtains a certificate anew.
      const usable = secret?.type === 'kubernetes.io/tls' && secret.fingerprint !== null && secret.tls?.ok !== false;
      const fingerprint = usable ? secret.fingerprint! : '';
      return void out.push({ hosts, certificate: { name, secret: secretRef, fingerprint, hosts: [], acme: true } });
    }
    if (secret === undefined)
      return void warnings.push(
        issue(
          'SecretNotFound',
          `Secret ${ref.namespace}/${t.secretName} (spec.tls[${i}]) does not exist or is not of type kubernetes.io/tls (only TLS Secrets are watched); its hosts are served without this certificate`,
        ),
      );
    if (secret.type !== 'kubernetes.io/tls')
      return void warnings.push(
        issue(
          'SecretWrongType',
          `Secret ${ref.namespace}/${t.secretName} is of type ${secret.type.slice(0, 60)}, not kubernetes.io/tls`,
        ),
      );
    if (secret.fingerprint === null)
      return void warnings.push(
        issue('SecretNotSealed', `Secret ${ref.namespace}/${t.secretName} carries no sealed certificate`),
      );
    // Material an appliance would refuse never reaches one (HAProxy would refuse its whole configuration over it).
    if (secret.tls?.ok === false)
      return void warnings.push(
        issue(
          'InvalidCertificate',
          `Secret ${ref.namespace}/${t.secretName}: ${secret.tls.reason}; its hosts are served without this certificate`,
        ),
      );
    if (secret.tls?.ok === true) certificateWarnings(secret.tls, hosts, `${ref.namespace}/${t.secretName}`, warnings);
    out.push({ hosts, certificate: { name, secret: secretRef, fingerprint: secret.fingerprint, hosts: [] } });
  });
  return out;
}

/**
 * The signature only decides whether an Ingress's intent changed. Plain JSON, not canonical: buildIntent writes every
 * intent's fields in one order, and equal JSON means equal intents whatever the order, so an order difference (an
 * annotation's customization JSON with its keys reordered) can only re-plan an unchanged Ingress, never miss a
 * change. canonicalJson (sorting every object's keys) was a tenth of planning 10k Ingresses from empty.
 */
function seal(intent: Omit<IngressIntent, 'signature'>): IngressIntent {
  return { ...intent, signature: JSON.stringify(intent) };
}
