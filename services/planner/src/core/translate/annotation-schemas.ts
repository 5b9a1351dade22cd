import type { JsonObject, Monitor, Persistence } from '@portolan/desired-state';
import { s, type Schema } from './json-schema.ts';

/**
 * Allowlist schemas for JSON annotations. Only fields that tune behaviour are allowed; fields that name other
 * appliance objects, fetch URLs, carry credentials or move the listener (tenant isolation, SSRF)
 * are absent, so they are rejected as unknown keys.
 */

const regexText = s.regex(256);
/** A request path (and query) of RFC 3986 characters only: no quotes, "#" or "\\" a config line could misread. */
const urlPath = s.str(1024, /^\/[A-Za-z0-9\-._~!$&()*+,;=:@%/?]*$/);
const hostHeader = s.str(253, /^[A-Za-z0-9.-]*$/);
const cookieName = s.str(64, /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/);

/** vTM monitor (REST 8.3 `monitors` properties, a safe subset; no `machine`: monitors never target other hosts). */
export const vtmMonitorSchema: Schema = s.obj(
  {
    properties: s.obj({
      basic: s.obj({
        type: s.oneOf('connect', 'http', 'tcp_transaction'),
        timeout: s.int(1, 60),
        delay: s.int(1, 3600),
        failures: s.int(1, 100),
        use_ssl: s.bool,
        back_off: s.bool,
        verbose: s.bool,
      }),
      http: s.obj({ path: urlPath, host_header: hostHeader, status_regex: regexText, body_regex: regexText }),
      tcp: s.obj({
        write_string: s.str(1024, /^[\x20-\x7e]*$/),
        response_regex: regexText,
        close_string: s.str(1024, /^[\x20-\x7e]*$/),
        max_response_len: s.int(0, 65536),
      }),
    }),
  },
  ['properties'],
);

/** vTM session persistence class (no failure `url`: the appliance must not be told to send users elsewhere). */
export const vtmPersistenceSchema: Schema = s.obj(
  {
    properties: s.obj(
      {
        basic: s.obj(
          {
            type: s.oneOf('ip', 'cookie', 'transparent', 'j2ee', 'asp'),
            cookie: cookieName,
            failure_mode: s.oneOf('close', 'new_node'),
            delete: s.bool,
          },
          ['type'],
        ),
      },
      ['basic'],
    ),
  },
  ['properties'],
);

/** vTM pool customisation: tuning only (no nodes, monitors, persistence classes or notes: those are Portolan's). */
export const vtmPoolCustomizationSchema: Schema = s.obj(
  {
    properties: s.obj({
      basic: s.obj({
        passive_monitoring: s.bool,
        max_connection_attempts: s.int(0, 1000),
        max_idle_connections_pernode: s.int(0, 100000),
        max_timed_out_connection_attempts: s.int(0, 1000),
        node_close_with_rst: s.bool,
        node_connection_attempts: s.int(1, 100),
        node_delete_behavior: s.oneOf('immediate', 'drain'),
        node_drain_to_delete_timeout: s.int(0, 86400),
      }),
      load_balancing: s.obj({
        algorithm: s.oneOf(
          'fastest_response_time',
          'least_connections',
          'perceptive',
          'random',
          'round_robin',
          'weighted_least_connections',
          'weighted_round_robin',
        ),
        priority_enabled: s.bool,
        priority_nodes: s.int(1, 1000),
      }),
      connection: s.obj({
        max_connect_time: s.int(0, 3600),
        max_connections_per_node: s.int(0, 100000),
        max_queue_size: s.int(0, 100000),
        max_reply_time: s.int(0, 3600),
        queue_timeout: s.int(0, 3600),
      }),
      http: s.obj({ keepalive: s.bool, keepalive_non_idempotent: s.bool }),
      ssl: s.obj({ enable_sni: s.bool, strict_verify: s.bool }),
      tcp: s.obj({ nagle: s.bool }),
    }),
  },
  ['properties'],
);

/** vTM virtual-server customisation: tuning only (no listen addresses, ports, pools, rules or SSL keys). */
export const vtmVirtualServerCustomizationSchema: Schema = s.obj(
  {
    properties: s.obj({
      basic: s.obj({
        add_x_forwarded_for: s.bool,
        add_x_forwarded_proto: s.bool,
        close_with_rst: s.bool,
        connect_timeout: s.int(0, 3600),
        max_concurrent_connections: s.int(0, 1000000),
        so_nagle: s.bool,
      }),
      connection: s.obj({
        keepalive: s.bool,
        keepalive_timeout: s.int(0, 3600),
        max_client_buffer: s.int(1024, 16777216),
        max_server_buffer: s.int(1024, 16777216),
        timeout: s.int(0, 86400),
      }),
      web_cache: s.obj({
        enabled: s.bool,
        max_time: s.int(0, 31536000),
        refresh_time: s.int(0, 31536000),
        control_out: s.str(256, /^[\x20-\x7e]*$/),
      }),
      gzip: s.obj({
        enabled: s.bool,
        compress_level: s.int(1, 9),
        min_size: s.int(0, 1000000000),
        max_size: s.int(0, 1000000000),
        include_mime: s.list(s.str(128, /^[\x21-\x7e]+$/), 64),
      }),
      http: s.obj({
        location_rewrite: s.oneOf('always', 'if_host_matches', 'never'),
        mime_default: s.str(128, /^[\x21-\x7e]+$/),
      }),
      http2: s.obj({ enabled: s.bool }),
    }),
  },
  ['properties'],
);

/** `portolan.dev/monitor`: the neutral monitor fields. */
export const neutralMonitorSchema: Schema = s.obj(
  {
    type: s.oneOf('tcp', 'http', 'https'),
    path: urlPath,
    hostHeader,
    expectStatus: regexText,
    intervalSeconds: s.int(1, 3600),
    timeoutSeconds: s.int(1, 60),
    failures: s.int(1, 100),
  },
  ['type'],
);

/** `portolan.dev/persistence`: cookie or source-IP stickiness. */
export const neutralPersistenceSchema: Schema = s.obj({ type: s.oneOf('cookie', 'source-ip'), cookie: cookieName }, [
  'type',
]);

/** `loadmaster.portolan.dev/check`: LoadMaster health-check parameters (CheckType, CheckUrl, CheckHost, CheckCodes, CheckPort). */
export const loadmasterCheckSchema: Schema = s.obj(
  {
    type: s.oneOf('tcp', 'http', 'https'),
    url: s.str(126, /^\/[\x21-\x7e]*$/),
    host: hostHeader,
    codes: s.str(128, /^\d{3}( \d{3})*$/),
    port: s.int(1, 65535),
  },
  ['type'],
);

/** `loadmaster.portolan.dev/persistence`: Persist mode and cookie name. */
export const loadmasterPersistenceSchema: Schema = s.obj(
  { type: s.oneOf('cookie', 'src'), cookie: cookieName, timeout: s.int(0, 86400) },
  ['type'],
);

const DEFAULTS = {
  path: '/',
  hostHeader: '',
  expectStatus: '^[234][0-9][0-9]$',
  intervalSeconds: 3,
  timeoutSeconds: 3,
  failures: 3,
};

/** vTM's default when no monitor is asked for (as documented): a plain TCP connect monitor. */
export const VTM_DEFAULT_MONITOR: Monitor = {
  type: 'tcp',
  path: '',
  hostHeader: '',
  expectStatus: '',
  intervalSeconds: 3,
  timeoutSeconds: 3,
  failures: 3,
  vendor: null,
};

function obj(x: unknown): Record<string, unknown> {
  return typeof x === 'object' && x !== null ? (x as Record<string, unknown>) : {};
}

/** Maps a schema-checked vTM monitor to the neutral Monitor, keeping the vendor properties. */
export function vtmMonitor(json: JsonObject): Monitor {
  const p = obj(json['properties']);
  const basic = obj(p['basic']);
  const http = obj(p['http']);
  const isHttp = basic['type'] === 'http';
  return {
    type: isHttp ? (basic['use_ssl'] === true ? 'https' : 'http') : 'tcp',
    path: isHttp ? ((http['path'] as string | undefined) ?? DEFAULTS.path) : '',
    hostHeader: (http['host_header'] as string | undefined) ?? '',
    expectStatus: isHttp ? ((http['status_regex'] as string | undefined) ?? DEFAULTS.expectStatus) : '',
    intervalSeconds: (basic['delay'] as number | undefined) ?? DEFAULTS.intervalSeconds,
    timeoutSeconds: (basic['timeout'] as number | undefined) ?? DEFAULTS.timeoutSeconds,
    failures: (basic['failures'] as number | undefined) ?? DEFAULTS.failures,
    vendor: json,
  };
}

/** Maps a schema-checked vTM persistence class to the neutral Persistence. */
export function vtmPersistence(json: JsonObject): Persistence | { error: string } {
  const basic = obj(obj(json['properties'])['basic']);
  const cookie = basic['cookie'] as string | undefined;
  switch (basic['type']) {
    case 'ip':
      return { type: 'source-ip', cookie: '', vendor: json };
    case 'cookie':
      return cookie === undefined
        ? { error: 'properties.basic.cookie is required for type "cookie"' }
        : { type: 'cookie', cookie, vendor: json };
    case 'j2ee':
      return { type: 'cookie', cookie: 'JSESSIONID', vendor: json };
    case 'asp':
      return { type: 'cookie', cookie: 'ASP.NET_SessionId', vendor: json };
    default:
      return { type: 'cookie', cookie: '', vendor: json };
  }
}

/** Maps `portolan.dev/monitor` to a Monitor (defaults filled in). */
export function neutralMonitor(json: JsonObject): Monitor {
  const type = json['type'] as Monitor['type'];
  const web = type !== 'tcp';
  return {
    type,
    path: web ? ((json['path'] as string | undefined) ?? DEFAULTS.path) : '',
    hostHeader: (json['hostHeader'] as string | undefined) ?? '',
    expectStatus: web ? ((json['expectStatus'] as string | undefined) ?? DEFAULTS.expectStatus) : '',
    intervalSeconds: (json['intervalSeconds'] as number | undefined) ?? DEFAULTS.intervalSeconds,
    timeoutSeconds: (json['timeoutSeconds'] as number | undefined) ?? DEFAULTS.timeoutSeconds,
    failures: (json['failures'] as number | undefined) ?? DEFAULTS.failures,
    vendor: null,
  };
}

/** Maps `portolan.dev/persistence`. */
export function neutralPersistence(json: JsonObject): Persistence | { error: string } {
  if (json['type'] === 'source-ip') return { type: 'source-ip', cookie: '', vendor: null };
  const cookie = json['cookie'] as string | undefined;
  return cookie === undefined
    ? { error: 'cookie is required for type "cookie"' }
    : { type: 'cookie', cookie, vendor: null };
}

/** Maps `loadmaster.portolan.dev/check` (CheckCodes "200 301" becomes the status regex `^(200|301)$`). */
export function loadmasterMonitor(json: JsonObject): Monitor {
  const type = json['type'] as Monitor['type'];
  const codes = (json['codes'] as string | undefined)?.split(' ');
  const web = type !== 'tcp';
  return {
    type,
    path: web ? ((json['url'] as string | undefined) ?? DEFAULTS.path) : '',
    hostHeader: (json['host'] as string | undefined) ?? '',
    expectStatus: web ? (codes === undefined ? DEFAULTS.expectStatus : `^(${codes.join('|')})$`) : '',
    intervalSeconds: DEFAULTS.intervalSeconds,
    timeoutSeconds: DEFAULTS.timeoutSeconds,
    failures: DEFAULTS.failures,
    vendor: json,
  };
}

/** Maps `loadmaster.portolan.dev/persistence`. */
export function loadmasterPersistence(json: JsonObject): Persistence | { error: string } {
  if (json['type'] === 'src') return { type: 'source-ip', cookie: '', vendor: json };
  const cookie = json['cookie'] as string | undefined;
  return cookie === undefined
    ? { error: 'cookie is required for type "cookie"' }
    : { type: 'cookie', cookie, vendor: json };
}
