import {
  LAST_APPLIED_ANNOTATION,
  SERVICE_NAME_LABEL,
  type IngressBackend,
  type IngressPath,
  type IngressRule,
  type IngressTls,
  type KubeKind,
  type SealedBox,
  type SecretTlsSummary,
  type ServicePort,
  type SliceEndpoint,
  type SlicePort,
  type TrimmedEndpointSlice,
  type TrimmedMeta,
  type TrimmedObjectOf,
} from './objects.ts';
import { defined, held, int, jsonValue, keyCount, list, record, str, strMap } from './trim-values.ts';

/** Result of trimming: the trimmed object, or why the input cannot be an object of that kind. */
export type TrimResult<K extends KubeKind> =
  | { readonly ok: true; readonly object: TrimmedObjectOf<K> }
  | { readonly ok: false; readonly reason: 'MissingName' | 'NotAnObject'; readonly message: string };

const NAMESPACED: Readonly<Record<KubeKind, boolean>> = {
  Ingress: true,
  IngressClass: false,
  Service: true,
  EndpointSlice: true,
  Secret: true,
  Node: false,
  Namespace: false,
  GatewayClass: false,
  Gateway: true,
  HTTPRoute: true,
  TLSRoute: true,
  ReferenceGrant: true,
};

/**
 * Trims an API object (or an already-trimmed one: trimming is idempotent) to what the planner needs: drops
 * managedFields, status (except a Node's addresses and Ready condition), the last-applied annotation, and every
 * field of the wrong type. Secret plaintext is never kept: only the watcher's sealed box and fingerprint. Total:
 * never throws, whatever the input.
 *
 * `previous` (any trimmed object of the kind, typically the version being replaced) lets the result share the parts
 * that trim to equal values — today an EndpointSlice's endpoints and ports — so a one-endpoint change allocates one
 * endpoint, not the whole slice. Sharing is decided by comparing values, so the result is the same whatever is passed.
 */
export function trimObject<K extends KubeKind>(kind: K, input: unknown, previous?: TrimmedObjectOf<K>): TrimResult<K> {
  const obj = record(input);
  if (obj === undefined) return { ok: false, reason: 'NotAnObject', message: `${kind} is not a JSON object` };
  const meta = trimMeta(kind, record(obj['metadata']), (previous as { metadata?: TrimmedMeta } | undefined)?.metadata);
  if (meta === undefined) return { ok: false, reason: 'MissingName', message: `${kind} has no metadata.name` };
  if (kind === 'EndpointSlice')
    return {
      ok: true,
      object: trimSlice(obj, meta, previous as TrimmedEndpointSlice | undefined) as TrimmedObjectOf<K>,
    };
  return { ok: true, object: trimBody(kind, obj, meta) as TrimmedObjectOf<K> };
}

function trimSlice(
  obj: Record<string, unknown>,
  metadata: TrimmedMeta,
  previous: TrimmedEndpointSlice | undefined,
): unknown {
  const before = previous?.endpoints;
  const rawPorts = obj['ports'];
  // Ports that trim to the previous ones are taken as they are (compared in place, nothing built).
  const ports =
    previous?.ports !== undefined && portsTrimTo(rawPorts, previous.ports)
      ? previous.ports
      : list(rawPorts, trimSlicePort);
  const addressType = str(obj['addressType']);
  // An empty slice's endpoints arrive as null or not at all (Go's nil slice): an empty list, as the type says.
  const endpoints =
    (before === undefined ? list(obj['endpoints'], trimEndpoint) : sharedEndpoints(obj['endpoints'], before)) ?? [];
  // The usual slice has every field: one literal (the same keys, in the same order, as `defined` gives).
  if (addressType !== undefined && endpoints !== undefined && ports !== undefined)
    return { kind: 'EndpointSlice', metadata, addressType, endpoints, ports };
  return defined({ kind: 'EndpointSlice', metadata, addressType, endpoints, ports });
}

/** Whether `x` trims to exactly `e` (compared field by field, nothing allocated). */
function trimsTo(x: unknown, e: SliceEndpoint): boolean {
  const r = record(x);
  if (r === undefined || (typeof r['nodeName'] === 'string' ? r['nodeName'] : undefined) !== e.nodeName) return false;
  const addresses = r['addresses'];
  if (!Array.isArray(addresses) || addresses.length !== e.addresses.length) return false;
  for (let i = 0; i < addresses.length; i++) if (addresses[i] !== e.addresses[i]) return false;
  const c = record(r['conditions']);
  const ec = e.conditions;
  if (c === undefined || ec === undefined) return c === undefined && ec === undefined;
  return (
    bool(c['ready']) === ec.ready && bool(c['serving']) === ec.serving && bool(c['terminating']) === ec.terminating
  );
}

function bool(v: unknown): boolean | undefined {
  return typeof v === 'boolean' ? v : undefined;
}

/** The endpoints of `x`, each one that trims to the previous endpoint at its index being that very object. */
function sharedEndpoints(x: unknown, before: readonly SliceEndpoint[]): SliceEndpoint[] | undefined {
  return list(x, (item, i) => (i < before.length && trimsTo(item, before[i]!) ? before[i]! : trimEndpoint(item)));
}

/**
 * Whether the raw list `x` trims to exactly `ports`: as many elements, each an object whose name, port and protocol
 * trim to the held port's (a trimmed port holds only those three, each present only when of the right type).
 */
function portsTrimTo(x: unknown, ports: readonly SlicePort[]): boolean {
  if (!Array.isArray(x) || x.length !== ports.length) return false;
  for (let i = 0; i < ports.length; i++) {
    const r = record(x[i]);
    const p = ports[i]!;
    if (r === undefined || str(r['name']) !== p.name || int(r['port']) !== p.port || str(r['protocol']) !== p.protocol)
      return false;
  }
  return true;
}

function trimBody(kind: KubeKind, obj: Record<string, unknown>, metadata: TrimmedMeta): unknown {
  const spec = record(obj['spec']) ?? {};
  switch (kind) {
    case 'Ingress':
      return { kind, metadata, spec: trimIngressSpec(spec) };
    case 'IngressClass':
      return { kind, metadata, spec: defined({ controller: str(spec['controller']) }) };
    case 'Service':
      return { kind, metadata, spec: trimServiceSpec(spec) };
    case 'EndpointSlice':
      return defined({
        kind,
        metadata,
        addressType: str(obj['addressType']),
        endpoints: list(obj['endpoints'], trimEndpoint) ?? [],
        ports: list(obj['ports'], trimSlicePort),
      });
    case 'Secret':
      return { kind, metadata, type: str(obj['type']) ?? 'Opaque', ...trimSealed(obj) };
    case 'Node':
      return { kind, metadata, status: trimNodeStatus(record(obj['status']) ?? {}) };
    case 'Namespace':
      return { kind, metadata };
    case 'GatewayClass':
    case 'Gateway':
    case 'HTTPRoute':
    case 'TLSRoute':
    case 'ReferenceGrant':
      return { kind, metadata, spec: record(jsonValue(spec, 0)) ?? {} };
  }
}

function trimMeta(
  kind: KubeKind,
  m: Record<string, unknown> | undefined,
  previous?: TrimmedMeta,
): TrimmedMeta | undefined {
  const name = str(m?.['name']);
  if (m === undefined || name === undefined || name === '') return undefined;
  let labels: Record<string, string> | undefined;
  let annotations: Record<string, string> | undefined;
  if (kind === 'EndpointSlice') {
    labels = sliceLabels(m['labels'], previous?.labels);
  } else if (kind === 'Namespace') {
    labels = strMap(m['labels']);
  } else if (kind !== 'Node') {
    labels = strMap(m['labels']);
    annotations = strMap(m['annotations']);
    if (annotations !== undefined && LAST_APPLIED_ANNOTATION in annotations) {
      const { [LAST_APPLIED_ANNOTATION]: _dropped, ...rest } = annotations;
      annotations = rest;
    }
  }
  // Strings equal to the previous version's are taken from it, so the event's copies die young instead of being kept.
  const namespace = NAMESPACED[kind] ? held(str(m['namespace']) ?? '', previous?.namespace) : '';
  const uidRaw = str(m['uid']);
  const uid = uidRaw === undefined ? undefined : held(uidRaw, previous?.uid);
  const resourceVersion = str(m['resourceVersion']);
  const generation = int(m['generation']);
  const createdRaw = str(m['creationTimestamp']);
  const creationTimestamp = createdRaw === undefined ? undefined : held(createdRaw, previous?.creationTimestamp);
  const deletionTimestamp = str(m['deletionTimestamp']);
  if (labels !== undefined && keyCount(labels) === 0) labels = undefined;
  if (annotations !== undefined && keyCount(annotations) === 0) annotations = undefined;
  const nm = held(name, previous?.name);
  // A live object as the API server writes it (uid, resourceVersion and creation time set; an EndpointSlice
  // with its label): one literal, every field in the object itself. Fields added one by one after a literal go to
  // an out-of-object property array, one more allocation kept per event and one more pointer on every read.
  if (
    uid !== undefined &&
    resourceVersion !== undefined &&
    creationTimestamp !== undefined &&
    deletionTimestamp === undefined &&
    labels !== undefined &&
    annotations === undefined
  ) {
    return generation === undefined
      ? { name: nm, namespace, uid, resourceVersion, creationTimestamp, labels }
      : { name: nm, namespace, uid, resourceVersion, generation, creationTimestamp, labels };
  }
  // Otherwise built field by field in a fixed order, leaving out what is absent (what `defined` would give, without
  // its generic keyed stores: metadata is trimmed for every event).
  const out: { -readonly [K in keyof TrimmedMeta]: TrimmedMeta[K] } = { name: nm, namespace };
  if (uid !== undefined) out.uid = uid;
  if (resourceVersion !== undefined) out.resourceVersion = resourceVersion;
  if (generation !== undefined) out.generation = generation;
  if (creationTimestamp !== undefined) out.creationTimestamp = creationTimestamp;
  if (deletionTimestamp !== undefined) out.deletionTimestamp = deletionTimestamp;
  if (labels !== undefined) out.labels = labels;
  if (annotations !== undefined) out.annotations = annotations;
  return out;
}

/** An EndpointSlice keeps only its service-name label (the previous version's labels object when it is the same). */
function sliceLabels(
  x: unknown,
  previous: Readonly<Record<string, string>> | undefined,
): Record<string, string> | undefined {
  const r = record(x);
  if (r === undefined || !Object.prototype.propertyIsEnumerable.call(r, SERVICE_NAME_LABEL)) return undefined;
  const service = r[SERVICE_NAME_LABEL];
  if (typeof service !== 'string') return undefined;
  if (previous !== undefined && previous[SERVICE_NAME_LABEL] === service && keyCount(previous) === 1)
    return previous as Record<string, string>;
  return { [SERVICE_NAME_LABEL]: service };
}

function trimIngressSpec(spec: Record<string, unknown>): unknown {
  return defined({
    ingressClassName: str(spec['ingressClassName']),
    defaultBackend: trimBackend(spec['defaultBackend']),
    tls: list(spec['tls'], (t): IngressTls | undefined => {
      const r = record(t);
      return r && defined({ hosts: list(r['hosts'], str), secretName: str(r['secretName']) });
    }),
    rules: list(spec['rules'], (x): IngressRule | undefined => {
      const r = record(x);
      if (r === undefined) return undefined;
      const http = record(r['http']);
      return defined({ host: str(r['host']), http: http && { paths: list(http['paths'], trimPath) ?? [] } });
    }),
  });
}

function trimPath(x: unknown): IngressPath | undefined {
  const p = record(x);
  return p && defined({ path: str(p['path']), pathType: str(p['pathType']), backend: trimBackend(p['backend']) });
}

function trimBackend(x: unknown): IngressBackend | undefined {
  const b = record(x);
  if (b === undefined) return undefined;
  const service = record(b['service']);
  const port = record(service?.['port']);
  const resource = record(b['resource']);
  return defined({
    service:
      service &&
      defined({
        name: str(service['name']),
        port: port && defined({ number: int(port['number']), name: str(port['name']) }),
      }),
    resource:
      resource &&
      defined({ apiGroup: str(resource['apiGroup']), kind: str(resource['kind']), name: str(resource['name']) }),
  });
}

function trimServiceSpec(spec: Record<string, unknown>): unknown {
  return defined({
    type: str(spec['type']),
    ports: list(spec['ports'], (x): ServicePort | undefined => {
      const p = record(x);
      if (p === undefined) return undefined;
      const target = p['targetPort'];
      return defined({
        name: str(p['name']),
        protocol: str(p['protocol']),
        port: int(p['port']),
        targetPort: typeof target === 'string' ? target : int(target),
        nodePort: int(p['nodePort']),
        appProtocol: str(p['appProtocol']),
      });
    }),
    externalTrafficPolicy: str(spec['externalTrafficPolicy']),
    externalName: str(spec['externalName']),
  });
}

// The hottest trim (every endpoint of every slice event): built field by field, no intermediate objects.
function trimEndpoint(x: unknown): SliceEndpoint | undefined {
  const e = record(x);
  if (e === undefined) return undefined;
  const addresses = list(e['addresses'], str) ?? [];
  const c = record(e['conditions']);
  const conditions =
    c === undefined
      ? undefined
      : ENDPOINT_CONDITIONS[3 * (3 * tri(c['ready']) + tri(c['serving'])) + tri(c['terminating'])]!;
  const nodeName = typeof e['nodeName'] === 'string' ? e['nodeName'] : undefined;
  // One literal per combination of present fields (same keys, same order): a field added after a literal goes to an
  // out-of-object property array, one more allocation kept per endpoint and one more pointer to follow on every read.
  if (conditions !== undefined)
    return nodeName !== undefined ? { addresses, conditions, nodeName } : { addresses, conditions };
  return nodeName !== undefined ? { addresses, nodeName } : { addresses };
}

type EndpointConditions = NonNullable<SliceEndpoint['conditions']>;

/** A condition flag as 0 (absent or not a boolean), 1 (false) or 2 (true). */
function tri(v: unknown): number {
  return v === true ? 2 : v === false ? 1 : 0;
}

/**
 * Every trimmed `conditions` value (27: each of ready, serving and terminating absent, false or true), frozen and
 * shared by all endpoints, indexed by 9·tri(ready) + 3·tri(serving) + tri(terminating). Each holds only its present
 * flags, in that order, as building one per endpoint gave; sharing them saves an object per endpoint (100k at 10k
 * Services) and keeps the few that endpoint resolution reads in cache.
 */
const ENDPOINT_CONDITIONS: readonly EndpointConditions[] = Array.from({ length: 27 }, (_, code) => {
  const flag = (t: number): boolean | undefined => (t === 0 ? undefined : t === 2);
  const out: { ready?: boolean; serving?: boolean; terminating?: boolean } = {};
  const ready = flag(Math.floor(code / 9));
  const serving = flag(Math.floor(code / 3) % 3);
  const terminating = flag(code % 3);
  if (ready !== undefined) out.ready = ready;
  if (serving !== undefined) out.serving = serving;
  if (terminating !== undefined) out.terminating = terminating;
  return Object.freeze(out);
});

function trimSlicePort(x: unknown): SlicePort | undefined {
  const p = record(x);
  return p && defined({ name: str(p['name']), port: int(p['port']), protocol: str(p['protocol']) });
}

function trimNodeStatus(status: Record<string, unknown>): unknown {
  const addresses =
    list(status['addresses'], (x) => {
      const a = record(x);
      const type = str(a?.['type']);
      const address = str(a?.['address']);
      return type !== undefined && address !== undefined ? { type, address } : undefined;
    }) ?? [];
  const ready = (list(status['conditions'], record) ?? []).find((c) => c['type'] === 'Ready');
  return defined({ addresses, ready: str(ready?.['status']) });
}

/** Accepts the watcher's replacement `data: {sealed, fingerprint}` or the already-trimmed top-level fields. */
/** The watcher's TLS summary, kept only when well formed (bounded names, a short reason). */
function trimTlsSummary(x: unknown): { tls?: SecretTlsSummary } {
  const t = record(x);
  if (t === undefined) return {};
  if (t['ok'] === false && typeof t['reason'] === 'string')
    return { tls: { ok: false, reason: t['reason'].slice(0, 200) } };
  const names = Array.isArray(t['names'])
    ? t['names'].filter((n): n is string => typeof n === 'string' && n.length <= 253).slice(0, 100)
    : undefined;
  const notAfter = str(t['notAfter']);
  if (t['ok'] !== true || names === undefined || notAfter === undefined) return {};
  return { tls: { ok: true, names, notAfter: notAfter.slice(0, 40), expiredWhenRead: t['expiredWhenRead'] === true } };
}

function trimSealed(obj: Record<string, unknown>): {
  sealed: SealedBox | null;
  fingerprint: string | null;
  tls?: SecretTlsSummary;
} {
  const data = record(obj['data']);
  const from = data !== undefined && ('sealed' in data || 'fingerprint' in data) ? data : obj;
  const box = record(from['sealed']);
  const keyId = str(box?.['keyId']);
  const iv = str(box?.['iv']);
  const ciphertext = str(box?.['ciphertext']);
  const tag = str(box?.['tag']);
  const sealed =
    keyId !== undefined && iv !== undefined && ciphertext !== undefined && tag !== undefined
      ? { keyId, iv, ciphertext, tag }
      : null;
  const fingerprint = str(from['fingerprint']);
  return {
    sealed,
    fingerprint: fingerprint !== undefined && /^[0-9a-f]{16,128}$/.test(fingerprint) ? fingerprint : null,
    ...trimTlsSummary(from['tls']),
  };
}
