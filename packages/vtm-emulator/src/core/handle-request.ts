import { notFound, type VtmErrorBody } from './error-body.ts';
import { jsonSchemas } from './schema/index.ts';
import type { Properties } from './validate-properties.ts';
import type { StoredObject, VtmConfigStore } from './vtm-config-store.ts';

/** One HTTP request as the emulator sees it (the shell has read the body). */
export interface EmulatorRequest {
  readonly method: string;
  /** Raw path without the query string, still URL-encoded. */
  readonly path: string;
  readonly authorization: string | undefined;
  readonly body: string;
}

/** What to send back; `write` names the object a successful PUT/DELETE changed. */
export interface EmulatorResponse {
  readonly status: number;
  readonly contentType: string | null;
  readonly body: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly write: { readonly type: string; readonly name: string } | null;
}

/** Settings of one emulator instance. */
export interface HandlerOptions {
  /** user → password. */
  readonly users: Readonly<Record<string, string>>;
  /** API versions listed at /api/tm and served (the same tree under each). */
  readonly versions: readonly string[];
  readonly strict: boolean;
  /** How a stored secret is shown on read (vTM: base64 SHA-256 of the private key). */
  readonly hashSecret: (clear: string) => string;
}

const JSON_TYPE = 'application/json';

/** Answers one REST request against the store: auth, version discovery, list/get/put/delete. */
export function handleRequest(store: VtmConfigStore, req: EmulatorRequest, options: HandlerOptions): EmulatorResponse {
  if (!isAuthorised(req.authorization, options.users)) {
    return {
      ...json(401, { error_id: 'auth.invalid', error_text: 'User name or password was invalid' }),
      headers: { 'www-authenticate': 'Basic realm="Traffic Manager REST API"' },
    };
  }
  const segments = req.path.split('/').slice(1);
  if (segments[0] !== 'api' || segments[1] !== 'tm') return json(404, notFound(req.path));
  if (segments.length === 2 || (segments.length === 3 && segments[2] === '')) {
    return directory(
      req,
      options.versions.map((v) => [v, `/api/tm/${v}/`]),
    );
  }
  const version = segments[2] as string;
  if (!options.versions.includes(version)) return json(404, notFound(req.path));
  const rest = segments.slice(3).filter((s) => s !== '');
  const base = `/api/tm/${version}`;
  if (rest.length === 0)
    return directory(req, [
      ['config', `${base}/config/`],
      ['status', `${base}/status/`],
    ]);
  if (rest[0] !== 'config') return json(404, notFound(req.path));
  if (rest.length === 1) return directory(req, [['active', `${base}/config/active/`]]);
  if (rest[1] !== 'active') return json(404, notFound(req.path));
  return handleConfig(store, req, options, { base: `${base}/config/active`, rest: rest.slice(2) });
}

function handleConfig(
  store: VtmConfigStore,
  req: EmulatorRequest,
  options: HandlerOptions,
  at: { readonly base: string; readonly rest: readonly string[] },
): EmulatorResponse {
  const { base, rest } = at;
  if (rest.length === 0) {
    const tops = [
      ...new Set([
        'traffic_ip_groups',
        'virtual_servers',
        'pools',
        'rules',
        'ssl',
        'monitors',
        'persistence',
        'traffic_managers',
      ]),
    ].sort();
    return directory(
      req,
      tops.map((t) => [t, t === 'ssl' ? `${base}/ssl/` : `${base}/${t}`]),
    );
  }
  const twoSegment = rest.length >= 2 ? `${rest[0]}/${rest[1]}` : '';
  const type = store.hasType(twoSegment) ? twoSegment : (rest[0] as string);
  const typeLength = type.split('/').length;
  if (type === 'ssl' && rest.length === 1)
    return directory(req, [
      ['cas', `${base}/ssl/cas`],
      ['server_keys', `${base}/ssl/server_keys`],
    ]);
  if (!store.hasType(type) || rest.length > typeLength + 1) return json(404, notFound(req.path));
  if (rest.length === typeLength) {
    if (req.method !== 'GET') return methodNotAllowed(req.method);
    return directory(
      req,
      store.list(type).map((n) => [n, `${base}/${type}/${encodeURIComponent(n)}`]),
    );
  }
  let name: string;
  try {
    name = decodeURIComponent(rest[typeLength] as string);
  } catch {
    return json(400, { error_id: 'resource.invalid_name', error_text: 'The resource name is not valid URL encoding' });
  }
  return handleObject(store, req, options, { type, name, path: `${base}/${type}/${name}` });
}

function handleObject(
  store: VtmConfigStore,
  req: EmulatorRequest,
  options: HandlerOptions,
  target: { readonly type: string; readonly name: string; readonly path: string },
): EmulatorResponse {
  const { type, name, path } = target;
  switch (req.method) {
    case 'GET': {
      const object = store.get(type, name);
      return object === undefined ? json(404, notFound(path)) : present(type, object, options);
    }
    case 'PUT':
      return put(store, req, options, target);
    case 'DELETE': {
      const outcome = store.delete(type, name, options.strict, path);
      if (!outcome.ok) return json(outcome.status, outcome.body);
      return { status: 204, contentType: null, body: '', write: { type, name } };
    }
    default:
      return methodNotAllowed(req.method);
  }
}

function put(
  store: VtmConfigStore,
  req: EmulatorRequest,
  options: HandlerOptions,
  target: { readonly type: string; readonly name: string },
): EmulatorResponse {
  const { type, name } = target;
  const write = { type, name };
  if (store.isTextType(type)) {
    const outcome = store.putText(type, name, req.body);
    if (!outcome.ok) return json(outcome.status, outcome.body);
    return { status: outcome.created ? 201 : 204, contentType: null, body: '', write };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(req.body);
  } catch {
    return json(400, { error_id: 'json.parse_error', error_text: 'The request body is not valid JSON' });
  }
  const outcome = store.putJson(type, name, parsed, options.strict);
  if (!outcome.ok) return json(outcome.status, outcome.body);
  return { ...present(type, outcome.object, options), status: outcome.created ? 201 : 200, write };
}

/** Renders a stored object for reading: text raw, JSON under `properties` with secrets hashed. */
function present(type: string, object: StoredObject, options: HandlerOptions): EmulatorResponse {
  if (object.kind === 'text')
    return { status: 200, contentType: 'application/octet-stream', body: object.text, write: null };
  const properties: Properties = structuredClone(object.properties);
  for (const [section, key] of jsonSchemas[type]?.hashedOnRead ?? []) {
    const clear = properties[section]?.[key];
    if (typeof clear === 'string' && clear !== '' && properties[section] !== undefined) {
      properties[section][key] = options.hashSecret(clear);
    }
  }
  return json(200, { properties });
}

function isAuthorised(header: string | undefined, users: Readonly<Record<string, string>>): boolean {
  if (header === undefined || !header.startsWith('Basic ')) return false;
  let decoded: string;
  try {
    decoded = new TextDecoder().decode(Uint8Array.from(atob(header.slice(6).trim()), (c) => c.charCodeAt(0)));
  } catch {
    return false;
  }
  const sep = decoded.indexOf(':');
  if (sep < 0) return false;
  const user = decoded.slice(0, sep);
  return Object.hasOwn(users, user) && users[user] === decoded.slice(sep + 1);
}

function directory(req: EmulatorRequest, children: readonly (readonly [string, string])[]): EmulatorResponse {
  if (req.method !== 'GET') return methodNotAllowed(req.method);
  return json(200, { children: children.map(([name, href]) => ({ name, href })) });
}

function methodNotAllowed(method: string): EmulatorResponse {
  return json(405, {
    error_id: 'http.method_not_allowed',
    error_text: `Method ${method} is not allowed on this resource`,
  });
}

function json(status: number, body: VtmErrorBody | object): EmulatorResponse {
  return { status, contentType: JSON_TYPE, body: JSON.stringify(body), write: null };
}
