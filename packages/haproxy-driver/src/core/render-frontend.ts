import type { VirtualService } from '@portolan/desired-state';
import { ownerNote } from '@portolan/appliance-driver';
import type { BundleFile, MapContent } from './haproxy-bundle.ts';
import { type BackendMode, fileStem, frontendName } from './haproxy-names.ts';
import { REDIRECT_VALUE_PREFIX, httpRoutingMaps, renderMapFile, sniRoutingMaps } from './routing-maps.ts';
import { absolutePath, hostPort, section } from './config-text.ts';
import { ruleHosts } from './rule-hosts.ts';
import { sniWildcardLines, wildcardLookupLines } from './wildcard-lookup.ts';
import { type RouteRuleLines, type RuleListener, routeRuleLines } from './route-rules.ts';

/** What rendering one listener needs to know about the rest of the bundle. */
export interface FrontendContext {
  readonly appliance: string;
  readonly configDir: string;
  /** Listen address for services whose address is the appliance default. */
  readonly defaultAddress: string;
  /** Value of the `Server` header set on every HTTP response. */
  readonly serverHeader: string;
  /** Backend name of a pool in a mode, or null when the pool does not exist. */
  backendOf(pool: string, mode: BackendMode): string | null;
  /** Crt-list line for a certificate name (absolute PEM path plus SNI filters), or null when unknown. */
  crtListLine(certificate: string): string | null;
}

/** One rendered listener: its config section and the map / crt-list files it reads. */
export interface RenderedFrontend {
  readonly text: string;
  readonly files: readonly BundleFile[];
  readonly maps: readonly MapContent[];
}

/**
 * Renders one virtual service as a frontend, or null when it cannot be served (HTTPS without any known
 * certificate: HAProxy refuses an ssl bind with no certificate, and one such listener must not block the rest).
 */
export function renderFrontend(vs: VirtualService, ctx: FrontendContext): RenderedFrontend | null {
  const stem = fileStem(vs.name);
  const header = `frontend ${frontendName(vs.name)}`;
  const owner = `# ${ownerNote(ctx.appliance, `listener:${vs.name}`)}`;
  const address = vs.address.kind === 'default' ? ctx.defaultAddress : vs.address.ip;
  const bind = `bind ${hostPort(address, vs.port)}`;

  if (vs.redirectToHttpsPort !== null) {
    return {
      text: section(header, [owner, 'mode http', bind, ...redirectLines(vs.redirectToHttpsPort, ctx)]),
      files: [],
      maps: [],
    };
  }
  if (vs.protocol === 'tls-passthrough') return renderPassthrough(vs, ctx, stem, [owner, bind]);

  let bindLine = bind;
  const files: BundleFile[] = [];
  if (vs.protocol === 'https') {
    const lines = vs.certificates.map((name) => ctx.crtListLine(name)).filter((l): l is string => l !== null);
    if (lines.length === 0) return null;
    const crtList = `crt-lists/${stem}.crtlist`;
    files.push({ path: crtList, content: lines.map((l) => `${l}\n`).join('') });
    bindLine = `${bind} ssl crt-list ${absolutePath(ctx.configDir, crtList)} alpn h2,http/1.1`;
  }
  const backendOf = (pool: string): string | null => ctx.backendOf(pool, 'http');
  const hosts = ruleHosts(vs.routes);
  const rules = hosts.size === 0 ? NO_RULES : routeRuleLines(vs.routes, hosts, listenerOf(vs), backendOf);
  const maps = httpRoutingMaps(vs.routes, backendOf, hosts);
  const paths = { exact: `maps/${stem}.exact.map`, prefix: `maps/${stem}.prefix.map`, hosts: `maps/${stem}.hosts.map` };
  const mapContents: MapContent[] = [
    { path: paths.exact, entries: maps.exact },
    { path: paths.hosts, entries: maps.hosts },
    { path: paths.prefix, entries: maps.prefix },
  ];
  const defaultBackend = vs.defaultPool === null ? null : ctx.backendOf(vs.defaultPool, 'http');
  const lines = [
    owner,
    'mode http',
    bindLine,
    'option forwardfor',
    `http-request set-header X-Forwarded-Proto ${vs.protocol === 'https' ? 'https' : 'http'}`,
    ...httpRoutingLines(
      vs,
      absolutePath(ctx.configDir, paths.exact),
      absolutePath(ctx.configDir, paths.prefix),
      absolutePath(ctx.configDir, paths.hosts),
    ),
    ...rules.acls,
    ...rules.request,
    ...routeRedirectLines(),
    ...(defaultBackend === null
      ? ['http-request return status 404 content-type text/plain string "no route\\n" if !routed']
      : []),
    `http-after-response set-header Server ${ctx.serverHeader}`,
    ...rules.response,
    'use_backend %[var(txn.be)] if routed',
    ...(defaultBackend === null ? [] : [`default_backend ${defaultBackend}`]),
  ];
  for (const map of mapContents) files.push({ path: map.path, content: renderMapFile(map.entries) });
  return { text: section(header, lines), files, maps: mapContents };
}

/** The scheme and port a redirect keeps when its filter leaves them unset. */
function listenerOf(vs: VirtualService): RuleListener {
  return { protocol: vs.protocol === 'https' ? 'https' : 'http', port: vs.port };
}

/** A listener without rule hosts renders no rule lines (and exactly the map-only frontend). */
const NO_RULES: RouteRuleLines = { acls: [], request: [], response: [] };

/**
 * The lookup chain of `routing-maps.ts`: exact host (exact path, then longest prefix), then — unless that host
 * has routes — the wildcards (see `wildcard-lookup.ts`), then — unless a wildcard has routes — any host.
 */
function httpRoutingLines(vs: VirtualService, exact: string, prefix: string, hosts: string): string[] {
  const open = 'if !routed !host_known';
  return [
    'acl routed var(txn.be) -m found',
    'acl host_known var(txn.host_known) -m found',
    HOST_LINE,
    'http-request deny deny_status 400 if { var(txn.host) -m sub / }',
    'http-request set-var(txn.path) path',
    'http-request set-var(txn.key) var(txn.host),concat(,txn.path,)',
    `http-request set-var(txn.be) var(txn.key),map(${exact})`,
    `http-request set-var(txn.be) var(txn.key),map_beg(${prefix}) if !routed`,
    `http-request set-var(txn.host_known) var(txn.host),map(${hosts}) if !routed`,
    ...wildcardLookupLines(vs, (when) => [
      `http-request set-var(txn.key) var(txn.wildcard),concat(,txn.path,) ${when}`,
      `http-request set-var(txn.be) var(txn.key),map(${exact}) ${when}`,
      `http-request set-var(txn.be) var(txn.key),map_beg(${prefix}) ${when}`,
      `http-request set-var(txn.host_known) var(txn.wildcard),map(${hosts}) ${when}`,
    ]),
    `http-request set-var(txn.be) var(txn.path),map(${exact}) ${open}`,
    `http-request set-var(txn.be) var(txn.path),map_beg(${prefix}) ${open}`,
  ];
}

/** Request host for matching: without port and trailing dot, lower case (as the planner's reference matcher). */
const HOST_LINE = 'http-request set-var(txn.host) req.hdr(host),field(1,:),lower,regsub([.]$,)';

/** Per-route ssl-redirect: a route whose map value is `https-redirect:[:<port>]` answers 308 to https on that port. */
function routeRedirectLines(): string[] {
  const location = 'https://%[var(txn.host)]%[var(txn.redirect_port)]%[capture.req.uri]';
  return [
    `acl redirect_route var(txn.be) -m beg ${REDIRECT_VALUE_PREFIX}`,
    `http-request set-var(txn.redirect_port) var(txn.be),regsub(^${REDIRECT_VALUE_PREFIX},) if redirect_route`,
    `http-request redirect code 308 location ${location} if redirect_route`,
  ];
}

function redirectLines(httpsPort: number, ctx: FrontendContext): string[] {
  const port = httpsPort === 443 ? '' : `:${httpsPort}`;
  return [
    HOST_LINE,
    `http-request redirect code 308 location https://%[var(txn.host)]${port}%[capture.req.uri]`,
    `http-after-response set-header Server ${ctx.serverHeader}`,
  ];
}

function renderPassthrough(
  vs: VirtualService,
  ctx: FrontendContext,
  stem: string,
  head: readonly string[],
): RenderedFrontend {
  const maps = sniRoutingMaps(vs.routes, (pool) => ctx.backendOf(pool, 'tcp'));
  const exactPath = `maps/${stem}.sni-exact.map`;
  const wildPath = `maps/${stem}.sni-wildcard.map`;
  const exact = absolutePath(ctx.configDir, exactPath);
  const wild = absolutePath(ctx.configDir, wildPath);
  const anyHost = vs.routes.find((r) => r.host === '');
  const fallbackPool = anyHost?.pool ?? vs.defaultPool;
  const defaultBackend = fallbackPool === null ? null : ctx.backendOf(fallbackPool, 'tcp');
  const lines = [
    ...head.slice(0, 1),
    'mode tcp',
    ...head.slice(1),
    'tcp-request inspect-delay 5s',
    'tcp-request content accept if { req.ssl_hello_type 1 }',
    `use_backend %[req.ssl_sni,lower,map(${exact})] if { req.ssl_sni,lower,map(${exact}) -m found }`,
    ...sniWildcardLines(vs, wild),
    ...(defaultBackend === null ? [] : [`default_backend ${defaultBackend}`]),
  ];
  const mapContents: MapContent[] = [
    { path: exactPath, entries: maps.exact },
    { path: wildPath, entries: maps.wildcard },
  ];
  return {
    text: section(`frontend ${frontendName(vs.name)}`, lines),
    files: mapContents.map((m) => ({ path: m.path, content: renderMapFile(m.entries) })),
    maps: mapContents,
  };
}
