import type { JsonValue, TrimmedGatewayObject } from '@portolan/kube-model';
import {
  GATEWAY_GROUP,
  type BackendReference,
  type GatewayClassInput,
  type GatewayInput,
  type HttpRouteInput,
  type HttpRouteMatch,
  type HttpRouteRule,
  type ListenerInput,
  type ListenerProtocol,
  type ObjectReference,
  type ParentReference,
  type ReferenceGrantInput,
} from './gateway-types.ts';

/**
 * Reads trimmed Gateway API objects into the translation's inputs. The API server has validated the specs against
 * the CRDs and filled their defaults, but an object may come from an older CRD or be edited by hand in a test, so
 * every field is read by type and the CRD's default stands in for what is missing. A value of the wrong type reads
 * as absent; nothing here throws.
 */

type Json = { readonly [k: string]: JsonValue };

const obj = (x: JsonValue | undefined): Json =>
  typeof x === 'object' && x !== null && !Array.isArray(x) ? (x as Json) : {};
const arr = (x: JsonValue | undefined): readonly JsonValue[] => (Array.isArray(x) ? x : []);
const text = (x: JsonValue | undefined, fallback = ''): string => (typeof x === 'string' ? x : fallback);
const num = (x: JsonValue | undefined, fallback = 0): number =>
  typeof x === 'number' && Number.isSafeInteger(x) ? x : fallback;
const labelMap = (x: JsonValue | undefined): Record<string, string> =>
  Object.fromEntries(Object.entries(obj(x)).filter((e): e is [string, string] => typeof e[1] === 'string'));

export function readGatewayClass(o: TrimmedGatewayObject<'GatewayClass'>): GatewayClassInput {
  return {
    name: o.metadata.name,
    controllerName: text(o.spec['controllerName']),
    generation: o.metadata.generation ?? 0,
  };
}

export function readGateway(o: TrimmedGatewayObject<'Gateway'>): GatewayInput {
  return {
    namespace: o.metadata.namespace,
    name: o.metadata.name,
    generation: o.metadata.generation ?? 0,
    creationTimestamp: o.metadata.creationTimestamp ?? '',
    parametersRef: obj(o.spec['infrastructure'])['parametersRef'] !== undefined,
    gatewayClassName: text(o.spec['gatewayClassName']),
    listeners: arr(o.spec['listeners']).map((l) => readListener(obj(l))),
    // Only IP addresses can be programmed; a hostname or named address is reported by the caller.
    addresses: arr(o.spec['addresses'])
      .map((a) => obj(a))
      .filter((a) => text(a['type'], 'IPAddress') === 'IPAddress')
      .map((a) => text(a['value'])),
  };
}

function readListener(l: Json): ListenerInput {
  const tls = obj(l['tls']);
  const allowed = obj(l['allowedRoutes']);
  const namespaces = obj(allowed['namespaces']);
  return {
    name: text(l['name']),
    hostname: text(l['hostname']).toLowerCase(),
    port: num(l['port']),
    protocol: text(l['protocol']) as ListenerProtocol,
    tls:
      l['tls'] === undefined
        ? null
        : {
            mode: text(tls['mode'], 'Terminate') === 'Passthrough' ? 'Passthrough' : 'Terminate',
            certificateRefs: arr(tls['certificateRefs']).map((r) => reference(obj(r), '', 'Secret')),
          },
    allowedRoutes: {
      from: text(namespaces['from'], 'Same') as 'Same' | 'All' | 'Selector',
      selector: labelMap(obj(namespaces['selector'])['matchLabels']),
      kinds: arr(allowed['kinds']).map((k) => ({
        group: text(obj(k)['group'], GATEWAY_GROUP),
        kind: text(obj(k)['kind']),
      })),
    },
  };
}

function reference(r: Json, group: string, kind: string): ObjectReference {
  return {
    group: text(r['group'], group),
    kind: text(r['kind'], kind),
    namespace: text(r['namespace']),
    name: text(r['name']),
  };
}

export function readHttpRoute(o: TrimmedGatewayObject<'HTTPRoute'>): HttpRouteInput {
  return {
    namespace: o.metadata.namespace,
    name: o.metadata.name,
    generation: o.metadata.generation ?? 0,
    creationTimestamp: o.metadata.creationTimestamp ?? '',
    parentRefs: arr(o.spec['parentRefs']).map((p) => parentRef(obj(p))),
    hostnames: arr(o.spec['hostnames']).map((h) => text(h).toLowerCase()),
    rules: arr(o.spec['rules']).map((r) => readRule(obj(r))),
  };
}

function parentRef(p: Json): ParentReference {
  return {
    ...reference(p, GATEWAY_GROUP, 'Gateway'),
    sectionName: text(p['sectionName']),
    port: num(p['port']),
  };
}

function readRule(r: Json): HttpRouteRule {
  return {
    matches: arr(r['matches']).map((m) => readMatch(obj(m))),
    backendRefs: arr(r['backendRefs']).map((b): BackendReference => {
      const ref = obj(b);
      return { ...reference(ref, '', 'Service'), port: num(ref['port']), weight: num(ref['weight'], 1) };
    }),
    filters: arr(r['filters']).map((f) => ({ ...obj(f), type: text(obj(f)['type']) })),
  };
}

function readMatch(m: Json): HttpRouteMatch {
  const path = obj(m['path']);
  const values = (x: JsonValue | undefined) =>
    arr(x).map((v) => ({
      type: text(obj(v)['type'], 'Exact') === 'RegularExpression' ? ('RegularExpression' as const) : ('Exact' as const),
      name: text(obj(v)['name']),
      value: text(obj(v)['value']),
    }));
  return {
    path: {
      type: text(path['type'], 'PathPrefix') as HttpRouteMatch['path']['type'],
      value: text(path['value'], '/'),
    },
    headers: values(m['headers']),
    queryParams: values(m['queryParams']),
    method: text(m['method']),
  };
}

export function readReferenceGrant(o: TrimmedGatewayObject<'ReferenceGrant'>): ReferenceGrantInput {
  return {
    namespace: o.metadata.namespace,
    from: arr(o.spec['from']).map((f) => ({
      group: text(obj(f)['group']),
      kind: text(obj(f)['kind']),
      namespace: text(obj(f)['namespace']),
    })),
    to: arr(o.spec['to']).map((t) => ({
      group: text(obj(t)['group']),
      kind: text(obj(t)['kind']),
      name: text(obj(t)['name']),
    })),
  };
}

/** A TLSRoute as a route of kind TLSRoute: parents, hostnames (SNI) and rules of backendRefs only. */
export function readTlsRoute(o: TrimmedGatewayObject<'TLSRoute'>): HttpRouteInput {
  return {
    kind: 'TLSRoute',
    namespace: o.metadata.namespace,
    name: o.metadata.name,
    generation: o.metadata.generation ?? 0,
    creationTimestamp: o.metadata.creationTimestamp ?? '',
    parentRefs: arr(o.spec['parentRefs']).map((p) => parentRef(obj(p))),
    hostnames: arr(o.spec['hostnames']).map((h) => text(h).toLowerCase()),
    rules: arr(o.spec['rules']).map((r) => ({ ...readRule(obj(r)), matches: [], filters: [] })),
  };
}

/** Whether a listener of this Gateway names the Secret (namespace/name) among its certificateRefs. */
export function gatewayNamesSecret(o: TrimmedGatewayObject<'Gateway'>, namespace: string, name: string): boolean {
  return readGateway(o).listeners.some((l) =>
    (l.tls?.certificateRefs ?? []).some(
      (r) => r.name === name && (r.namespace === '' ? o.metadata.namespace : r.namespace) === namespace,
    ),
  );
}
