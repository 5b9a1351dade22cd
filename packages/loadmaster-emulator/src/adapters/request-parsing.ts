import type { IncomingMessage } from 'node:http';

/** A request decoded from either wire format, before authentication and dispatch. */
export interface DecodedRequest {
  readonly api: 'v1' | 'v2';
  readonly command: string;
  readonly params: ReadonlyArray<readonly [string, string]>;
  readonly data: Uint8Array | null;
  readonly basic: { user: string; password: string } | null;
  readonly apiKey: string | null;
  readonly apiUser: { user: string; password: string } | null;
}

/** Why a request could not be decoded; answered with the status and message in the request's format. */
export interface DecodeFailure {
  readonly api: 'v1' | 'v2';
  readonly stat: number;
  readonly message: string;
}

/** Members of a v2 body that are credentials or transport, not command parameters. */
const V2_RESERVED = new Set(['cmd', 'apikey', 'apiuser', 'apipass', 'data']);

/** Reads the whole request body (bounded: the appliance refuses huge uploads too). */
export async function readBody(req: IncomingMessage, limit = 8 * 1024 * 1024): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > limit) throw new RangeError('request body too large');
    chunks.push(b);
  }
  return Buffer.concat(chunks);
}

function basicOf(req: IncomingMessage): DecodedRequest['basic'] {
  const header = req.headers.authorization ?? '';
  const m = /^Basic\s+(.+)$/i.exec(header);
  if (m === null) return null;
  const text = Buffer.from(m[1] ?? '', 'base64').toString('utf8');
  const sep = text.indexOf(':');
  return sep < 0 ? null : { user: text.slice(0, sep), password: text.slice(sep + 1) };
}

/** Decodes a v1 call: `GET|POST /access/<cmd>?…` (a POST body is the command's binary input, e.g. addcert). */
export function decodeV1(req: IncomingMessage, url: URL, body: Buffer): DecodedRequest | DecodeFailure {
  if (req.method === 'GET' && (req.url ?? '').length > 1024)
    return { api: 'v1', stat: 414, message: 'Request-URI Too Long' };
  const command = decodeURIComponent(url.pathname.slice('/access/'.length)).replace(/\/+$/, '');
  const params = [...url.searchParams.entries()].filter(([k]) => k.toLowerCase() !== 'apikey');
  return {
    api: 'v1',
    command,
    params,
    data: req.method === 'POST' && body.length > 0 ? body : null,
    basic: basicOf(req),
    apiKey: url.searchParams.get('apikey'),
    apiUser: null,
  };
}

/** Decodes a v2 call: JSON object body with `cmd`, credentials and parameters as members (GET: the query). */
export function decodeV2(req: IncomingMessage, url: URL, body: Buffer): DecodedRequest | DecodeFailure {
  let members: Record<string, unknown>;
  if (body.length === 0) {
    members = Object.fromEntries(url.searchParams.entries());
  } else {
    try {
      const parsed: unknown = JSON.parse(body.toString('utf8'));
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new TypeError('not an object');
      members = parsed as Record<string, unknown>;
    } catch {
      return { api: 'v2', stat: 400, message: 'Invalid JSON' };
    }
  }
  const lower = new Map(Object.entries(members).map(([k, v]) => [k.toLowerCase(), v]));
  const text = (k: string): string | null => {
    const v = lower.get(k);
    return v === undefined || v === null ? null : scalarText(v);
  };
  const params: [string, string][] = [];
  for (const [k, v] of Object.entries(members)) {
    if (V2_RESERVED.has(k.toLowerCase()) || v === null || typeof v === 'object') continue;
    params.push([k, scalarText(v)]);
  }
  const data = text('data');
  const apiUser = text('apiuser');
  return {
    api: 'v2',
    command: text('cmd') ?? '',
    params,
    data: data === null ? null : Buffer.from(data, 'base64'),
    basic: basicOf(req),
    apiKey: text('apikey'),
    apiUser: apiUser === null ? null : { user: apiUser, password: text('apipass') ?? '' },
  };
}

function scalarText(v: unknown): string {
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (typeof v === 'string') return v;
  return typeof v === 'number' || typeof v === 'bigint' ? String(v) : '';
}
