import { checkIngressHost } from './object-names.ts';
import { isJsonObject, type JsonObject } from './json-value.ts';
import type { KubeObject } from './resource-types.ts';

/** A field-level validation failure (becomes a 422 Invalid cause): the field, the error body, its cause type. */
export interface FieldProblem {
  readonly field: string;
  readonly message: string;
  /** The cause type (`FieldValueRequired`, …); FieldValueInvalid when not given. */
  readonly reason?: string;
}

/** Allocators the Service defaulting needs; injected so defaulting stays pure. */
export interface ServiceAllocators {
  allocateClusterIp(): string;
  allocateNodePort(): number;
}

const maxDataBytes = 1024 * 1024;

function utf8Base64(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function decodedLength(base64: string): number | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64) || base64.length % 4 !== 0) return null;
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return (base64.length / 4) * 3 - padding;
}

/** Folds Secret `stringData` into `data` (base64), defaults `type`, and validates keys, encoding and size. */
export function normalizeSecret(obj: KubeObject): FieldProblem[] {
  const data: JsonObject = isJsonObject(obj['data']) ? { ...obj['data'] } : {};
  if (isJsonObject(obj['stringData'])) {
    for (const [k, v] of Object.entries(obj['stringData'])) data[k] = utf8Base64(String(v));
    delete obj['stringData'];
  }
  obj['type'] ??= 'Opaque';
  const problems: FieldProblem[] = [];
  let total = 0;
  for (const [key, value] of Object.entries(data)) {
    const size = typeof value === 'string' ? decodedLength(value) : null;
    if (size === null) problems.push({ field: `data[${key}]`, message: 'Invalid value: illegal base64 data' });
    else total += size;
    if (!/^[-._a-zA-Z0-9]+$/.test(key))
      problems.push({
        field: `data[${key}]`,
        message: "Invalid value: a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
      });
  }
  if (Object.keys(data).length > 0 || obj['data'] !== undefined) obj['data'] = data;
  if (total > maxDataBytes)
    problems.push({ field: 'data', message: `Too long: must have at most ${maxDataBytes} bytes` });
  if (obj['type'] === 'kubernetes.io/tls') {
    for (const key of ['tls.crt', 'tls.key'])
      if (!Object.hasOwn(data, key)) problems.push({ field: `data[${key}]`, message: 'Required value' });
  }
  return problems;
}

/** Validates ConfigMap keys and the 1 MiB data limit. */
export function validateConfigMap(obj: KubeObject): FieldProblem[] {
  const size = JSON.stringify(obj['data'] ?? {}).length + JSON.stringify(obj['binaryData'] ?? {}).length;
  return size > maxDataBytes ? [{ field: 'data', message: `Too long: must have at most ${maxDataBytes} bytes` }] : [];
}

function defaultPorts(
  spec: JsonObject,
  oldSpec: JsonObject | undefined,
  alloc: ServiceAllocators,
  wantsNodePort: boolean,
): void {
  const oldPorts = Array.isArray(oldSpec?.['ports']) ? (oldSpec['ports'] as JsonObject[]) : [];
  const ports = Array.isArray(spec['ports']) ? (spec['ports'] as unknown[]) : [];
  spec['ports'] = ports.map((p) => {
    const port: JsonObject = isJsonObject(p) ? { ...p } : {};
    port['protocol'] ??= 'TCP';
    port['targetPort'] ??= port['port'];
    if (wantsNodePort && port['nodePort'] === undefined) {
      const previous = oldPorts.find((o) => o['port'] === port['port'] && o['nodePort'] !== undefined);
      port['nodePort'] = previous?.['nodePort'] ?? alloc.allocateNodePort();
    }
    if (!wantsNodePort) delete port['nodePort'];
    return port;
  });
}

/** Applies the Service defaults a real API server fills in (type, cluster IP, node ports, policies). */
export function defaultService(obj: KubeObject, old: KubeObject | undefined, alloc: ServiceAllocators): void {
  const spec: JsonObject = isJsonObject(obj['spec']) ? { ...obj['spec'] } : {};
  const oldSpec = isJsonObject(old?.['spec']) ? old['spec'] : undefined;
  spec['type'] ??= 'ClusterIP';
  const type = spec['type'];
  if (type !== 'ExternalName') {
    if (spec['clusterIP'] === undefined || spec['clusterIP'] === '')
      spec['clusterIP'] = oldSpec?.['clusterIP'] ?? alloc.allocateClusterIp();
    spec['clusterIPs'] ??= [spec['clusterIP']];
    spec['ipFamilies'] ??= ['IPv4'];
    spec['ipFamilyPolicy'] ??= 'SingleStack';
    spec['internalTrafficPolicy'] ??= 'Cluster';
  }
  spec['sessionAffinity'] ??= 'None';
  const wantsNodePort = type === 'NodePort' || type === 'LoadBalancer';
  if (wantsNodePort) spec['externalTrafficPolicy'] ??= 'Cluster';
  defaultPorts(spec, oldSpec, alloc, wantsNodePort);
  obj['spec'] = spec;
}

function validateIngressPaths(rule: JsonObject, i: number): FieldProblem[] {
  const http = rule['http'];
  const paths = isJsonObject(http) && Array.isArray(http['paths']) ? http['paths'] : [];
  const problems: FieldProblem[] = [];
  paths.forEach((p: unknown, j: number) => {
    const field = `spec.rules[${i}].http.paths[${j}]`;
    const path = isJsonObject(p) ? p : {};
    const pathType = path['pathType'];
    if (pathType === undefined)
      problems.push({ field: `${field}.pathType`, message: 'Required value: pathType must be specified' });
    else if (!['Exact', 'Prefix', 'ImplementationSpecific'].includes(String(pathType)))
      problems.push({ field: `${field}.pathType`, message: `Unsupported value: "${String(pathType)}"` });
    const value = path['path'];
    if ((pathType === 'Exact' || pathType === 'Prefix') && (typeof value !== 'string' || !value.startsWith('/'))) {
      problems.push({ field: `${field}.path`, message: `Invalid value: "${String(value)}": must be an absolute path` });
    }
    if (!isJsonObject(path['backend'])) problems.push({ field: `${field}.backend`, message: 'Required value' });
  });
  return problems;
}

/** Validates the Ingress fields the API server checks (hosts, path types, backends). */
export function validateIngress(obj: KubeObject): FieldProblem[] {
  const spec = isJsonObject(obj['spec']) ? obj['spec'] : {};
  const rules = Array.isArray(spec['rules']) ? spec['rules'] : [];
  const problems: FieldProblem[] = [];
  rules.forEach((r: unknown, i: number) => {
    const rule = isJsonObject(r) ? r : {};
    if (typeof rule['host'] === 'string' && rule['host'] !== '') {
      const bad = checkIngressHost(rule['host']);
      if (bad !== null)
        problems.push({ field: `spec.rules[${i}].host`, message: `Invalid value: "${rule['host']}": ${bad}` });
    }
    problems.push(...validateIngressPaths(rule, i));
  });
  if (rules.length === 0 && spec['defaultBackend'] === undefined) {
    problems.push({
      field: 'spec.rules',
      message: 'Required value: either `defaultBackend` or `rules` must be specified',
    });
  }
  return problems;
}

/** Validates an EndpointSlice's address type and addresses, and defaults port protocols. */
export function normalizeEndpointSlice(obj: KubeObject): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (!['IPv4', 'IPv6', 'FQDN'].includes(String(obj['addressType']))) {
    problems.push({
      field: 'addressType',
      message: `Unsupported value: "${String(obj['addressType'])}": supported values: "FQDN", "IPv4", "IPv6"`,
    });
  }
  const endpoints = Array.isArray(obj['endpoints']) ? obj['endpoints'] : [];
  endpoints.forEach((e: unknown, i: number) => {
    const addresses = isJsonObject(e) ? e['addresses'] : undefined;
    if (!Array.isArray(addresses) || addresses.length === 0)
      problems.push({ field: `endpoints[${i}].addresses`, message: 'Required value: must contain at least 1 address' });
  });
  if (Array.isArray(obj['ports'])) {
    obj['ports'] = obj['ports'].map((p: unknown) => (isJsonObject(p) ? { protocol: 'TCP', ...p } : p));
  }
  return problems;
}
