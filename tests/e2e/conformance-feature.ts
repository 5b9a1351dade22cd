import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

/** Ingress conformance features as data (tests/e2e/ingress-conformance/*.yaml): loading, checking, outline expansion. */

/** One request of a scenario, with upstream's defaults filled in. */
export interface ConformanceRequest {
  readonly method: string;
  readonly scheme: 'http' | 'https';
  /** The Host header; '' sends the address itself, as upstream's client does for a URL without a host. */
  readonly host: string;
  /** Always starts with '/' (upstream joins the URL as `<scheme>://<address>/<path without leading slash>`). */
  readonly path: string;
  readonly count: number;
  readonly headers: Readonly<Record<string, string>>;
}

/** What a scenario asserts of its response(s); absent fields are not checked. */
export interface ConformanceExpectation {
  readonly status: number;
  readonly service?: string;
  readonly requestHost?: string;
  readonly requestMethod?: string;
  readonly requestPath?: string;
  readonly requestProto?: string;
  readonly responseProto?: string;
  /** Header name → value, or '*' for any value. */
  readonly requestHeaders?: Readonly<Record<string, string>>;
  readonly responseHeaders?: Readonly<Record<string, string>>;
  readonly certificateHost?: string;
  readonly distinctPods?: number;
}

/** One scenario (an outline yields one per example row). */
export interface ConformanceScenario {
  readonly name: string;
  /** 'portolan' marks a check of ours beside upstream's. */
  readonly origin: 'upstream' | 'portolan';
  readonly request: ConformanceRequest;
  readonly expect: ConformanceExpectation;
}

/** A Service an Ingress references, with the port as referenced: by number or by name. */
export interface ConformanceBackend {
  readonly service: string;
  readonly port: { readonly number: number } | { readonly name: string };
}

/** One feature file, checked and expanded. */
export interface ConformanceFeature {
  readonly file: string;
  readonly feature: string;
  /** The Ingress manifest (no namespace; the class is filled in by the runner when absent). */
  readonly ingress: { readonly metadata: { readonly name: string }; readonly spec: Record<string, unknown> };
  readonly secrets: readonly { readonly name: string; readonly hosts: readonly string[] }[];
  readonly exposed: boolean;
  /** The upstream scenario whose assertion the status check is, when it is one (not a Background step). */
  readonly statusScenario: string | null;
  readonly scale: { readonly service: string; readonly replicas: number } | null;
  readonly scenarios: readonly ConformanceScenario[];
  /** Every Service the Ingress references, once each, in order of first reference (upstream's DeploymentsFromIngress). */
  readonly backends: readonly ConformanceBackend[];
}

type Json = Record<string, unknown>;

/** Loads every `*.yaml` feature of `dir`, in file name order. */
export function loadFeatures(dir: string): ConformanceFeature[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => parseFeature(f, readFileSync(path.join(dir, f), 'utf8')));
}

/** Parses and checks one feature file; unknown keys are errors, so a typo in the data cannot silently skip a check. */
export function parseFeature(file: string, text: string): ConformanceFeature {
  const doc = object(parse(text), file);
  const where = (s: string): string => `${file}: ${s}`;
  only(doc, ['feature', 'description', 'ingress', 'secrets', 'exposed', 'statusScenario', 'scale', 'scenarios'], file);
  const ingress = object(doc.ingress, where('ingress'));
  only(ingress, ['metadata', 'spec'], where('ingress'));
  const name = string(object(ingress.metadata, where('ingress.metadata')).name, where('ingress.metadata.name'));
  const spec = object(ingress.spec, where('ingress.spec'));
  const secrets = list(doc.secrets ?? [], where('secrets')).map((s, i) => {
    const o = object(s, where(`secrets[${i}]`));
    only(o, ['name', 'hosts'], where(`secrets[${i}]`));
    return {
      name: string(o.name, where(`secrets[${i}].name`)),
      hosts: list(o.hosts, where(`secrets[${i}].hosts`)).map((h) => string(h, where(`secrets[${i}].hosts`))),
    };
  });
  const scale =
    doc.scale === undefined
      ? null
      : (() => {
          const o = object(doc.scale, where('scale'));
          only(o, ['service', 'replicas'], where('scale'));
          return {
            service: string(o.service, where('scale.service')),
            replicas: number(o.replicas, where('scale.replicas')),
          };
        })();
  if (typeof doc.exposed !== 'boolean') throw new Error(where('exposed must be true or false'));
  const scenarios = list(doc.scenarios, where('scenarios')).flatMap((s, i) =>
    expandScenario(object(s, where(`scenarios[${i}]`)), where(`scenarios[${i}]`)),
  );
  const backends = backendsOf(spec);
  if (scale !== null && !backends.some((b) => b.service === scale.service))
    throw new Error(where(`scale: the Ingress references no Service ${scale.service}`));
  return {
    file,
    feature: string(doc.feature, where('feature')),
    ingress: { metadata: { name }, spec },
    secrets,
    exposed: doc.exposed,
    statusScenario: doc.statusScenario === undefined ? null : string(doc.statusScenario, where('statusScenario')),
    scale,
    scenarios,
    backends,
  };
}

/** Every Service of the default backend and the rules, once each, as the Ingress references it. */
function backendsOf(spec: Json): ConformanceBackend[] {
  const refs: unknown[] = [];
  if (spec.defaultBackend !== undefined) refs.push(spec.defaultBackend);
  for (const rule of list(spec.rules ?? [], 'spec.rules')) {
    const http = object(rule, 'rule').http;
    if (http === undefined) continue;
    for (const p of list(object(http, 'rule.http').paths, 'rule.http.paths')) refs.push(object(p, 'path').backend);
  }
  const out = new Map<string, ConformanceBackend>();
  for (const ref of refs) {
    const svc = object(object(ref, 'backend').service, 'backend.service');
    const name = string(svc.name, 'backend.service.name');
    const port = object(svc.port, `backend ${name}: port`);
    if (out.has(name)) continue;
    out.set(name, {
      service: name,
      port:
        port.name !== undefined
          ? { name: string(port.name, `backend ${name}: port.name`) }
          : { number: number(port.number, `backend ${name}: port.number`) },
    });
  }
  return [...out.values()];
}

function expandScenario(s: Json, where: string): ConformanceScenario[] {
  only(s, ['name', 'origin', 'request', 'expect', 'examples'], where);
  const rows =
    s.examples === undefined
      ? [null]
      : list(s.examples, `${where}.examples`).map((r) => object(r, `${where}.examples`));
  return rows.map((row) => {
    // Gherkin outline semantics: `<key>` in any string is replaced by the row's value.
    const fill = (v: unknown): unknown => {
      if (typeof v === 'string' && row !== null)
        return v.replace(/<([a-z]+)>/gi, (m, k: string) => (k in row ? String(row[k]) : m));
      if (Array.isArray(v)) return v.map(fill);
      if (v !== null && typeof v === 'object')
        return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x)]));
      return v;
    };
    const filled = fill(s) as Json;
    const name = string(filled.name, `${where}.name`);
    if (/<[a-z]+>/i.test(JSON.stringify(filled)))
      throw new Error(`${where}: unreplaced placeholder in ${JSON.stringify(filled)}`);
    const origin = filled.origin ?? 'upstream';
    if (origin !== 'upstream' && origin !== 'portolan')
      throw new Error(`${where}: origin must be upstream or portolan`);
    return {
      name,
      origin,
      request: requestOf(object(filled.request, `${where}.request`), `${where}.request`),
      expect: expectationOf(object(filled.expect, `${where}.expect`), `${where}.expect`),
    };
  });
}

function requestOf(r: Json, where: string): ConformanceRequest {
  only(r, ['method', 'scheme', 'host', 'path', 'count', 'headers'], where);
  const scheme = r.scheme ?? 'http';
  if (scheme !== 'http' && scheme !== 'https') throw new Error(`${where}: scheme must be http or https`);
  const rawPath = r.path === undefined ? '' : string(r.path, `${where}.path`);
  return {
    method: r.method === undefined ? 'GET' : string(r.method, `${where}.method`),
    scheme,
    host: r.host === undefined ? '' : string(r.host, `${where}.host`),
    path: `/${rawPath.replace(/^\//, '')}`,
    count: r.count === undefined ? 1 : number(r.count, `${where}.count`),
    headers: stringMap(r.headers ?? {}, `${where}.headers`),
  };
}

function expectationOf(e: Json, where: string): ConformanceExpectation {
  const strings = [
    'service',
    'requestHost',
    'requestMethod',
    'requestPath',
    'requestProto',
    'responseProto',
    'certificateHost',
  ] as const;
  only(e, ['status', 'distinctPods', 'requestHeaders', 'responseHeaders', ...strings], where);
  const out: Record<string, unknown> = { status: number(e.status, `${where}.status`) };
  for (const k of strings) if (e[k] !== undefined) out[k] = string(e[k], `${where}.${k}`);
  // Upstream compares the request path with a leading slash added.
  if (typeof out.requestPath === 'string') out.requestPath = `/${out.requestPath.replace(/^\//, '')}`;
  if (e.distinctPods !== undefined) out.distinctPods = number(e.distinctPods, `${where}.distinctPods`);
  if (e.requestHeaders !== undefined) out.requestHeaders = stringMap(e.requestHeaders, `${where}.requestHeaders`);
  if (e.responseHeaders !== undefined) out.responseHeaders = stringMap(e.responseHeaders, `${where}.responseHeaders`);
  return out as unknown as ConformanceExpectation;
}

function only(o: Json, keys: readonly string[], where: string): void {
  const unknown = Object.keys(o).filter((k) => !keys.includes(k));
  if (unknown.length > 0) throw new Error(`${where}: unknown key(s) ${unknown.join(', ')} (known: ${keys.join(', ')})`);
}

function object(v: unknown, where: string): Json {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new Error(`${where}: expected a mapping`);
  return v as Json;
}

function list(v: unknown, where: string): unknown[] {
  if (!Array.isArray(v)) throw new Error(`${where}: expected a list`);
  return v;
}

function string(v: unknown, where: string): string {
  if (typeof v !== 'string') throw new Error(`${where}: expected a string`);
  return v;
}

function number(v: unknown, where: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0)
    throw new Error(`${where}: expected a non-negative integer`);
  return v;
}

function stringMap(v: unknown, where: string): Record<string, string> {
  const o = object(v, where);
  for (const [k, x] of Object.entries(o)) string(x, `${where}.${k}`);
  return o as Record<string, string>;
}
