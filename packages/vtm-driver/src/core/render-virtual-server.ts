import { ownerNote } from '@portolan/appliance-driver';
import type { Certificate, JsonObject, ObjectRef, VirtualService } from '@portolan/desired-state';
import { deepMerge, vendorProperties } from './deep-merge.ts';
import { responseRule } from './response-rule.ts';
import { redirectRule, routingRule, sniRule, userRule } from './traffic-script.ts';
import { vtmName } from './vtm-names.ts';
import type { VtmObject } from './vtm-objects.ts';

/** What rendering one virtual service needs beyond the service itself. */
export interface VirtualServerContext {
  readonly appliance: string;
  /** The traffic IP group the service listens on (ours, or the appliance's default group). */
  readonly trafficIpGroup: string;
  readonly certificates: ReadonlyMap<string, Certificate>;
  /** Name of the ACME HTTP-01 rule while challenges are pending (placed first on port-80 HTTP services); else null. */
  readonly acmeRule?: string | null;
}

/** Whether a service answers ACME HTTP-01 validation: plain HTTP on port 80, where ACME servers connect. */
export function servesAcmeChallenges(vs: Pick<VirtualService, 'port' | 'protocol'>): boolean {
  return vs.port === 80 && vs.protocol === 'http';
}

/** `Kind/cluster/namespace/name`: the source written into ownership notes. */
export function formatRef(ref: ObjectRef): string {
  return `${ref.kind}/${ref.cluster}/${ref.namespace}/${ref.name}`;
}

/** Renders one virtual service: the `virtual_servers` object and the rules it names (user scripts first). */
export function renderVirtualServer(vs: VirtualService, ctx: VirtualServerContext): VtmObject[] {
  const note = ownerNote(
    ctx.appliance,
    vs.owners[0] === undefined ? `VirtualService/${vs.name}` : formatRef(vs.owners[0]),
  );
  const rules: VtmObject[] = [];
  const requestRules: string[] = [];
  const responseRules: string[] = [];
  if (vs.requestScript !== null) {
    rules.push({ type: 'rules', name: vtmName('request', vs.name), text: userRule(note, vs.requestScript) });
    requestRules.push(vtmName('request', vs.name));
  }
  if (vs.responseScript !== null) {
    rules.push({ type: 'rules', name: vtmName('response', vs.name), text: userRule(note, vs.responseScript) });
    responseRules.push(vtmName('response', vs.name));
  }
  const generated = generatedRule(vs, note);
  if (generated !== null) {
    rules.push({ type: 'rules', name: vtmName('route', vs.name), text: generated });
    requestRules.push(vtmName('route', vs.name));
    const response =
      vs.protocol === 'tls-passthrough' || vs.redirectToHttpsPort !== null
        ? null
        : responseRule(note, vs.name, vs.routes);
    if (response !== null) {
      rules.push({ type: 'rules', name: vtmName('routeResponse', vs.name), text: response });
      responseRules.push(vtmName('routeResponse', vs.name));
    }
  }
  const basic: JsonObject = {
    enabled: true,
    listen_on_any: false,
    listen_on_traffic_ips: [ctx.trafficIpGroup],
    note,
    pool: defaultPoolName(vs),
    port: vs.port,
    protocol: vs.protocol === 'tls-passthrough' ? 'ssl' : 'http',
    request_rules: requestRules,
    response_rules: responseRules,
    ssl_decrypt: vs.protocol === 'https',
  };
  let properties: JsonObject = { basic };
  if (vs.protocol === 'https') properties = { ...properties, ssl: sslSection(vs, ctx) };
  if (vs.customization !== null) properties = deepMerge(properties, vendorProperties(vs.customization));
  // The note is re-applied after customization: ownership must survive any user JSON.
  properties = deepMerge(properties, { basic: { note } });
  // The challenge rule goes before everything, user scripts included: a script that redirects or rejects every
  // request must not break certificate validation. Applied last so customizations cannot drop it.
  const acmeRule = ctx.acmeRule ?? null;
  if (acmeRule !== null && servesAcmeChallenges(vs)) {
    const basicNow = properties['basic'] as JsonObject;
    const existing = Array.isArray(basicNow['request_rules']) ? basicNow['request_rules'] : [];
    properties = {
      ...properties,
      basic: { ...basicNow, request_rules: [acmeRule, ...existing.filter((r) => r !== acmeRule)] },
    };
  }
  return [...rules, { type: 'virtual_servers', name: vtmName('vs', vs.name), properties }];
}

/** The VS default pool: the Ingress default backend, a passthrough service's only pool, else the built-in `discard`. */
function defaultPoolName(vs: VirtualService): string {
  if (vs.redirectToHttpsPort !== null) return 'discard';
  if (vs.defaultPool !== null) return vtmName('pool', vs.defaultPool);
  const only = singlePassthroughPool(vs);
  return only === null ? 'discard' : vtmName('pool', only);
}

/** A passthrough service whose routes all go to one pool for any host needs no rule. */
function singlePassthroughPool(vs: VirtualService): string | null {
  if (vs.protocol !== 'tls-passthrough' || vs.routes.length === 0) return null;
  const pools = new Set(vs.routes.map((r) => r.pool));
  const first = vs.routes[0];
  return pools.size === 1 && first !== undefined && vs.routes.some((r) => r.host === '') ? first.pool : null;
}

function generatedRule(vs: VirtualService, note: string): string | null {
  if (vs.redirectToHttpsPort !== null) return redirectRule(note, vs.redirectToHttpsPort);
  if (vs.protocol === 'tls-passthrough') {
    if (vs.routes.length === 0 || singlePassthroughPool(vs) !== null) return null;
    // SNI carries no path: the first route per host (precedence order) decides.
    const byHost = new Map<string, string>();
    for (const r of vs.routes) if (!byHost.has(r.host)) byHost.set(r.host, vtmName('pool', r.pool));
    return sniRule(
      note,
      [...byHost].map(([host, pool]) => ({ host, pool })),
      vs.defaultPool !== null,
      vs.wildcardLabels ?? 'one',
    );
  }
  if (vs.routes.length === 0 && vs.defaultPool !== null) return null;
  return routingRule({
    ownerComment: note,
    virtualService: vs.name,
    routes: vs.routes.map((route) => ({ route, pool: vtmName('pool', route.pool) })),
    hasDefaultPool: vs.defaultPool !== null,
    wildcardLabels: vs.wildcardLabels ?? 'one',
    listener: { protocol: vs.protocol === 'https' ? 'https' : 'http', port: vs.port },
  });
}

/** TLS termination: the first certificate is the default, every certificate's hosts map to it by SNI. */
function sslSection(vs: VirtualService, ctx: VirtualServerContext): JsonObject {
  const mapping: JsonObject[] = [];
  const mapped = new Set<string>();
  for (const certName of vs.certificates) {
    for (const host of ctx.certificates.get(certName)?.hosts ?? []) {
      if (mapped.has(host)) continue;
      mapped.add(host);
      mapping.push({ host, certificate: vtmName('key', certName), alt_certificates: [] });
    }
  }
  const first = vs.certificates[0];
  return { server_cert_default: first === undefined ? '' : vtmName('key', first), server_cert_host_mapping: mapping };
}
