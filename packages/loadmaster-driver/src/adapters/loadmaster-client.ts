import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { CallThrottle } from './call-throttle.ts';
import { PortolanError } from '@portolan/errors';

/** Credentials: an API key (sent as `apikey`, takes precedence on the appliance) or a user and password. */
export type LoadMasterCredentials = { readonly apiKey: string } | { readonly user: string; readonly password: string };

/** Settings of the v2 JSON API client. */
export interface LoadMasterClientOptions {
  /** Base URL, e.g. `https://lm.example:443`. */
  readonly url: string;
  readonly credentials: LoadMasterCredentials;
  /** Accept the appliance's self-signed certificate. */
  readonly insecureTls: boolean;
  /** Calls allowed in any 3 s window (the appliance drops above 30). */
  readonly maxCallsPer3s: number;
  readonly timeoutMs?: number;
  /** Share one throttle between clients of the same appliance (the limit is per appliance, not per client). */
  readonly throttle?: CallThrottle;
}

/** A v2 reply: the flat JSON body, or the appliance's refusal (HTTP status = `code`). */
export type LoadMasterReply =
  | { readonly ok: true; readonly body: Readonly<Record<string, unknown>> }
  | { readonly ok: false; readonly status: number; readonly message: string };

/** Raised when a call gets no LoadMaster answer (connection dropped or refused, timeout, unreadable body). */
export class LoadMasterTransportError extends PortolanError {
  readonly code = 'LOADMASTER_TRANSPORT';
}

/** The LoadMaster RESTful API v2 (`POST /accessv2`, JSON), throttled under the rate limit. */
export class LoadMasterClient {
  readonly #url: URL;
  readonly #credentials: LoadMasterCredentials;
  readonly #agent: HttpAgent | HttpsAgent;
  readonly #throttle: CallThrottle;
  readonly #timeoutMs: number;
  /** Calls sent (for tests and metrics). */
  callCount = 0;

  constructor(options: LoadMasterClientOptions) {
    this.#url = new URL('/accessv2', options.url);
    this.#credentials = options.credentials;
    this.#agent =
      this.#url.protocol === 'https:'
        ? new HttpsAgent({ keepAlive: true, rejectUnauthorized: !options.insecureTls })
        : new HttpAgent({ keepAlive: true });
    this.#throttle = options.throttle ?? new CallThrottle(options.maxCallsPer3s);
    this.#timeoutMs = options.timeoutMs ?? 15000;
  }

  /** Sends one command. Parameters are JSON members; `data` (binary input) must already be base64. */
  async call(
    cmd: string,
    params: Readonly<Record<string, string | number>>,
    signal?: AbortSignal,
  ): Promise<LoadMasterReply> {
    await this.#throttle.acquire(signal);
    this.callCount++;
    const auth =
      'apiKey' in this.#credentials
        ? { apikey: this.#credentials.apiKey }
        : { apiuser: this.#credentials.user, apipass: this.#credentials.password };
    const { status, text } = await this.#post(JSON.stringify({ cmd, ...params, ...auth }), signal);
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch (error) {
      throw new LoadMasterTransportError(`${cmd}: HTTP ${status} with a body that is not JSON`, { cause: error });
    }
    if (status >= 400 || body['status'] === 'fail') {
      return {
        ok: false,
        status: typeof body['code'] === 'number' ? body['code'] : status,
        message: String(body['message'] ?? `HTTP ${status}`),
      };
    }
    return { ok: true, body };
  }

  /** Closes kept-alive connections. */
  close(): void {
    this.#agent.destroy();
  }

  #post(payload: string, signal?: AbortSignal): Promise<{ status: number; text: string }> {
    const send = this.#url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = send(
        this.#url,
        {
          method: 'POST',
          agent: this.#agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
          timeout: this.#timeoutMs,
          ...(signal === undefined ? {} : { signal }),
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', (e) => reject(new LoadMasterTransportError('response interrupted', { cause: e })));
        },
      );
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', (e) =>
        reject(
          new LoadMasterTransportError(
            `no answer from the LoadMaster (${(e as NodeJS.ErrnoException).code ?? e.message})`,
            { cause: e },
          ),
        ),
      );
      req.end(payload);
    });
  }
}
