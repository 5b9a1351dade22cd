import type { DesiredState, PoolMember, Route, VirtualService } from '@portolan/desired-state';
import { compareCodeUnits } from '@portolan/desired-state';
import type {
  LmCertSpec,
  LmRealServerSpec,
  LmRuleSpec,
  LmSubVsSpec,
  LmVendorState,
  LmVsSpec,
} from './lm-vendor-state.ts';
import { ownerMark } from './owner-mark.ts';
import { renderRouteRules } from './route-rules.ts';
import { renderEditRules, subVsKey } from './header-edits.ts';
import { LoadMasterRouteRefusedError } from './route-refused.ts';

/** What render needs besides the desired state. */
export interface LmRenderConfig {
  readonly appliance: string;
  /** VS address for listeners whose address is `default` (fleet config `loadmaster.defaultAddress`). */
  readonly defaultAddress: string | null;
}

/**
 * Renders the neutral desired state into LoadMaster objects (pure). Ingress mode: one VS per VirtualService,
 * one SubVS per pool it routes to, one exact content rule per route, real servers per member, certificates
 * named by fingerprint. Service mode: each binding's members as real servers of its pre-existing VS.
 */
export function renderVendorState(desired: DesiredState, config: LmRenderConfig): LmVendorState {
  const pools = new Map(desired.pools.map((p) => [p.name, p.members] as const));
  const certNames = new Map(
    desired.certificates.map((c) => [c.name, certificateName(config.appliance, c.name, c.fingerprint)] as const),
  );
  const virtualServices: LmVsSpec[] = [];
  const rules: LmRuleSpec[] = [];
  const certificates = new Map<string, LmCertSpec>();
  const skipped: { name: string; reason: string }[] = [];
  for (const vs of desired.virtualServices) {
    const address = vs.address.kind === 'default' ? config.defaultAddress : vs.address.ip;
    if (address === null || address === '') {
      skipped.push({
        name: vs.name,
        reason: 'no address: the listener uses the default address and loadmaster.defaultAddress is not set',
      });
      continue;
    }
    const rendered = renderVs(vs, address, pools, certNames, config.appliance);
    virtualServices.push(rendered.vs);
    rules.push(...rendered.rules);
    for (const name of vs.certificates) {
      const cert = desired.certificates.find((c) => c.name === name);
      const lmName = certNames.get(name);
      if (cert !== undefined && lmName !== undefined) certificates.set(lmName, { name: lmName, secret: cert.secret });
    }
  }
  return {
    virtualServices: virtualServices.sort((a, b) => compareCodeUnits(a.nickname, b.nickname)),
    rules: rules.sort((a, b) => compareCodeUnits(a.name, b.name)),
    certificates: [...certificates.values()].sort((a, b) => compareCodeUnits(a.name, b.name)),
    bindings: desired.bindings
      .map((b) => ({
        target: b.target,
        service: `${b.service.cluster}/${b.service.namespace}/${b.service.name}`,
        realServers: realServersOf(b.members),
      }))
      .sort((a, b) => compareCodeUnits(a.target, b.target) || compareCodeUnits(a.service, b.service)),
    targets: [],
    skipped,
  };
}

/** The appliance certificate name: owned mark whose key includes the material's fingerprint. */
export function certificateName(appliance: string, name: string, fingerprint: string): string {
  return ownerMark(appliance, 'ct', `${name}@${fingerprint}`);
}

function renderVs(
  vs: VirtualService,
  address: string,
  pools: ReadonlyMap<string, readonly PoolMember[]>,
  certNames: ReadonlyMap<string, string>,
  appliance: string,
): { vs: LmVsSpec; rules: LmRuleSpec[] } {
  const nickname = ownerMark(appliance, 'vs', vs.name);
  const base = { nickname, address, port: vs.port, protocol: 'tcp' as const };
  const members = (pool: string | null): LmRealServerSpec[] =>
    realServersOf(pool === null ? [] : (pools.get(pool) ?? []));
  if (vs.redirectToHttpsPort !== null) {
    const params = { ...vsParams(vs, []), ErrorCode: '302', ErrorUrl: `https://%h:${vs.redirectToHttpsPort}%s` };
    return { vs: { ...base, params, subVss: [], realServers: [] }, rules: [] };
  }
  if (vs.protocol === 'tls-passthrough') {
    const realServers = members(vs.defaultPool ?? vs.routes[0]?.pool ?? null);
    return {
      vs: { ...base, params: { ...vsParams(vs, []), ...scheduleParams(realServers) }, subVss: [], realServers },
      rules: [],
    };
  }
  const certs = vs.certificates.map((c) => certNames.get(c)).filter((c): c is string => c !== undefined);
  const switching = renderSwitching(vs, appliance, members);
  const params = vsParams(vs, certs);
  const preRules = switching.preRules.length === 0 ? {} : { preRules: switching.preRules };
  return { vs: { ...base, params, subVss: switching.subVss, realServers: [], ...preRules }, rules: switching.rules };
}

/**
 * Content switching of an HTTP(S) VS: one SubVS per pool, or per pool and header edits (edit rules apply per
 * SubVS), with the route rules (route-rules.ts) and the edit rules (header-edits.ts); a rule-less SubVS for the
 * default pool takes what no rule matched.
 */
function renderSwitching(
  vs: VirtualService,
  appliance: string,
  members: (pool: string | null) => LmRealServerSpec[],
): { subVss: LmSubVsSpec[]; rules: LmRuleSpec[]; preRules: readonly string[] } {
  for (const route of vs.routes) refuseUnsupported(route);
  const targets = vs.routes.map(subVsKey);
  const routeRules = renderRouteRules(appliance, vs.name, vs.routes, targets, vs.wildcardLabels ?? 'one');
  const rules: LmRuleSpec[] = [...routeRules.rules];
  const byTarget = new Map<string, { route: Route; names: string[] }>();
  vs.routes.forEach((route, i) => {
    const entry = byTarget.get(targets[i] ?? '') ?? { route, names: [] };
    entry.names.push(routeRules.urlRules[i] ?? '');
    byTarget.set(targets[i] ?? '', entry);
  });
  const subVs = (key: string, pool: string, names: readonly string[]): LmSubVsSpec => {
    const realServers = members(pool);
    const params = scheduleParams(realServers);
    const sub = {
      nickname: ownerMark(appliance, 'sv', key),
      rules: [...new Set(names)].sort(compareCodeUnits),
      realServers,
    };
    return Object.keys(params).length === 0 ? sub : { ...sub, params };
  };
  const subVss: LmSubVsSpec[] = [...byTarget].map(([key, { route, names }]) => {
    const edits = renderEditRules(appliance, vs.name, key, route);
    rules.push(...edits.rules);
    return {
      ...subVs(key, route.pool, names),
      ...(edits.request.length === 0 ? {} : { requestRules: edits.request }),
      ...(edits.response.length === 0 ? {} : { responseRules: edits.response }),
    };
  });
  if (vs.defaultPool !== null) {
    // A SubVS without rules takes what no rule matched; a pool that also has routes gets a second, rule-less SubVS.
    const key = byTarget.has(vs.defaultPool) ? `default:${vs.defaultPool}` : vs.defaultPool;
    subVss.push(subVs(key, vs.defaultPool, []));
  }
  subVss.sort((a, b) => compareCodeUnits(a.nickname, b.nickname));
  return { subVss, rules, preRules: routeRules.preRules };
}

/** What content rules cannot express exactly is refused by name, never rendered approximately. */
function refuseUnsupported(route: Route): void {
  const refuse = (what: string): never => {
    throw new LoadMasterRouteRefusedError(route, `${what} cannot be expressed exactly by LoadMaster content rules`);
  };
  if (route.match === 'Regex') refuse('a RegularExpression path');
  if ((route.queryParams ?? []).length > 0) refuse('a query parameter match');
  if (route.filters?.redirect !== undefined) refuse('a RequestRedirect filter');
  if (route.filters?.rewrite !== undefined) refuse('a URLRewrite filter');
}

function vsParams(vs: VirtualService, certs: readonly string[]): Record<string, string> {
  const tls = vs.protocol === 'https' && certs.length > 0;
  return {
    VStype: vs.protocol === 'tls-passthrough' ? 'gen' : 'http',
    ForceL7: vs.protocol === 'tls-passthrough' ? '0' : '1',
    SSLAcceleration: tls ? '1' : '0',
    CertFile: tls ? certs.join(' ') : '',
    ErrorCode: '0',
    ErrorUrl: '',
  };
}

/**
 * The scheduling parameter for a set of real servers: `wrr` when their weights differ (a Gateway API canary), since
 * the appliance's default `rr` ignores weights; none when they are equal, so such services render as they always
 * did. Going back to equal weights leaves `wrr` on the appliance, which then schedules as `rr` would.
 */
export function scheduleParams(realServers: readonly LmRealServerSpec[]): Record<string, string> {
  return realServers.some((rs) => rs.weight !== realServers[0]?.weight) ? { Schedule: 'wrr' } : {};
}

/** Members as real servers: draining ones disabled, weights clamped to the appliance's 1..65535, sorted. */
export function realServersOf(members: readonly PoolMember[]): LmRealServerSpec[] {
  const byKey = new Map<string, LmRealServerSpec>();
  for (const m of members) {
    // Multi-cluster pools can list one address twice; the appliance holds one real server per (address, port).
    const key = `${m.address}|${m.port}`;
    const prev = byKey.get(key);
    byKey.set(key, {
      address: m.address,
      port: m.port,
      weight: Math.min(65535, Math.max(1, Math.round(m.weight))) + (prev?.weight ?? 0),
      enable: m.state === 'active' || prev?.enable === true,
    });
  }
  return [...byKey.values()]
    .map((rs) => ({ ...rs, weight: Math.min(65535, rs.weight) }))
    .sort((a, b) => compareCodeUnits(a.address, b.address) || a.port - b.port);
}
