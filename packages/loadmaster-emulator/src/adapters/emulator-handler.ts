import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CallWindow } from '../core/call-window.ts';
import { LmParams } from '../core/lm-params.ts';
import type { LmResult } from '../core/lm-result.ts';
import { fail, missing } from '../core/lm-result.ts';
import type { LmState } from '../core/lm-state.ts';
import { LmStore } from '../core/lm-store.ts';
import { runCommand } from '../core/run-command.ts';
import { renderJson, renderXml } from '../core/wire-format.ts';
import { inspectCertificate } from './certificate-inspector.ts';
import type { DecodedRequest, DecodeFailure } from './request-parsing.ts';
import { decodeV1, decodeV2, readBody } from './request-parsing.ts';
import { saveStateFile } from './state-file.ts';

/** One accepted API call, as the emulator saw it (all calls, reads included). */
export interface LmCallRecord {
  readonly at: number;
  readonly api: 'v1' | 'v2';
  readonly command: string;
  readonly status: number;
}

/** One configuration change: successful write commands only. Secret-bearing parameters are redacted. */
export interface LmWriteRecord {
  readonly seq: number;
  readonly at: number;
  readonly api: 'v1' | 'v2';
  readonly user: string;
  readonly command: string;
  readonly params: Readonly<Record<string, string>>;
}

/** Settings of the request handler. */
export interface EmulatorHandlerOptions {
  readonly users: Readonly<Record<string, string>>;
  /** Drop the connection above `limit` calls in `windowMs` (the appliance: 30 in 3 s); null disables the limit. */
  readonly rateLimit: { readonly limit: number; readonly windowMs: number } | null;
  readonly statePath: string | null;
}

const REDACTED = new Set(['password', 'apipass', 'apikey', 'data', 'key']);
const READ_ONLY = new Set(['listvs', 'showvs', 'showrs', 'showrule', 'listcert', 'readcert', 'listapikeys']);

/** Serves the v1 and v2 APIs over one state, with auth, the optional rate limit, the call and write logs. */
export class EmulatorHandler {
  readonly store: LmStore;
  readonly calls: LmCallRecord[] = [];
  readonly writeLog: LmWriteRecord[] = [];
  droppedCalls = 0;
  readonly #options: EmulatorHandlerOptions;
  readonly #window: CallWindow | null;

  constructor(state: LmState, options: EmulatorHandlerOptions) {
    this.store = new LmStore(state);
    this.#options = options;
    this.#window =
      options.rateLimit === null ? null : new CallWindow(options.rateLimit.limit, options.rateLimit.windowMs);
  }

  /** Node request listener. */
  readonly handle = (req: IncomingMessage, res: ServerResponse): void => {
    void this.#serve(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(error instanceof RangeError ? 'request too large' : 'internal error');
    });
  };

  async #serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.#window !== null && !this.#window.admit(Date.now())) {
      this.droppedCalls++;
      req.socket.destroy();
      return;
    }
    const url = new URL(req.url ?? '/', 'http://loadmaster');
    const isV2 = url.pathname === '/accessv2' || url.pathname.startsWith('/accessv2/');
    if (!isV2 && !url.pathname.startsWith('/access/')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const body = await readBody(req);
    const decoded = isV2 ? decodeV2(req, url, body) : decodeV1(req, url, body);
    const api = decoded.api;
    const result = 'stat' in decoded ? fail(decoded.stat, decoded.message) : this.#execute(decoded);
    const wire = api === 'v2' ? renderJson(result) : renderXml(result);
    this.calls.push({ at: Date.now(), api, command: 'command' in decoded ? decoded.command : '', status: wire.status });
    res.writeHead(wire.status, { 'content-type': wire.contentType });
    res.end(api === 'v2' ? Buffer.from(wire.body, 'utf8') : Buffer.from(wire.body, 'latin1'));
  }

  #execute(req: DecodedRequest): LmResult {
    const user = this.#authenticate(req);
    if (user === null) return fail(401, 'Authorization required');
    if (req.command === '') return missing('cmd');
    const before = READ_ONLY.has(req.command.toLowerCase()) ? null : structuredClone(this.store.state);
    const params = new LmParams(req.params);
    const result = runCommand(
      req.command,
      {
        store: this.store,
        user,
        data: req.data,
        inspectCertificate,
        newApiKey: () => randomBytes(18).toString('base64url'),
      },
      params,
    );
    if (!result.ok && before !== null) Object.assign(this.store.state, before);
    if (result.ok && result.wrote) this.#recordWrite(req, user);
    return result;
  }

  #recordWrite(req: DecodedRequest | DecodeFailure, user: string): void {
    if (!('command' in req)) return;
    const params: Record<string, string> = {};
    for (const [k, v] of req.params) params[k] = REDACTED.has(k.toLowerCase()) ? '[redacted]' : v;
    this.writeLog.push({
      seq: this.writeLog.length + 1,
      at: Date.now(),
      api: req.api,
      user,
      command: req.command.toLowerCase(),
      params,
    });
    if (this.#options.statePath !== null) saveStateFile(this.#options.statePath, this.store.state);
  }

  /** The user a request authenticates as: API key first (v2 precedence), then apiuser/apipass, then Basic. */
  #authenticate(req: DecodedRequest): string | null {
    if (req.apiKey !== null && req.apiKey !== '') {
      return this.store.state.apiKeys.find((k) => safeEqual(k.key, req.apiKey ?? ''))?.user ?? null;
    }
    const creds = req.apiUser ?? req.basic;
    if (creds === null) return null;
    const password = Object.hasOwn(this.#options.users, creds.user) ? this.#options.users[creds.user] : undefined;
    return password !== undefined && safeEqual(password, creds.password) ? creds.user : null;
  }
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
