import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { PortolanError } from '@portolan/errors';

/** Connection settings of one Traffic Manager REST endpoint. */
export interface VtmRestClientOptions {
  /** e.g. `https://vtm.example:9070` (no path). */
  readonly url: string;
  readonly apiVersion: string;
  readonly username: string;
  readonly password: string;
  /** Accept the appliance's self-signed certificate without checking it (local emulators only). */
  readonly insecureTls?: boolean;
  /** PEM of a CA (or the self-signed certificate) to trust instead. */
  readonly ca?: string;
  /** Parallel connections (reads are issued concurrently during read-back). */
  readonly maxSockets?: number;
}

/**
 * Headers a write carries to name where it came from: the leader's epoch and the snapshot applied. A vTM ignores
 * headers it does not know; its audit log and any proxy in front of it record them.
 */
export type WriteStamp = Readonly<Partial<Record<'x-portolan-epoch' | 'x-portolan-snapshot', string>>>;

/** One HTTP answer: status, and the body as JSON (when it is JSON) or text. */
export interface VtmReply {
  readonly status: number;
  readonly json: unknown;
  readonly text: string;
}

/** Raised when the appliance cannot be reached or the connection breaks (not for HTTP error statuses). */
export class VtmTransportError extends PortolanError {
  readonly code = 'VTM_TRANSPORT';

  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
  }
}

/**
 * Thin client of the vTM REST API: Basic auth on every call, object names URL-encoded, JSON objects and raw
 * text objects (rules). HTTP error statuses are returned as data; only transport failures throw.
 */
export class VtmRestClient {
  readonly #options: VtmRestClientOptions;
  readonly #agent: HttpAgent;
  readonly #auth: string;
  /** Requests issued so far (for reporting API call counts). */
  calls = 0;

  constructor(options: VtmRestClientOptions) {
    this.#options = options;
    const isHttps = options.url.startsWith('https:');
    const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 8 };
    this.#agent = isHttps
      ? new HttpsAgent({
          ...agentOptions,
          rejectUnauthorized: options.insecureTls !== true,
          ...(options.ca === undefined ? {} : { ca: options.ca }),
        })
      : new HttpAgent(agentOptions);
    this.#auth = `Basic ${Buffer.from(`${options.username}:${options.password}`).toString('base64')}`;
  }

  /** Path of a type or object under `config/active`. */
  configPath(type: string, name?: string): string {
    const base = `/api/tm/${this.#options.apiVersion}/config/active/${type}`;
    return name === undefined ? base : `${base}/${encodeURIComponent(name)}`;
  }

  /** Names of the objects of one type. */
  async listNames(type: string, signal?: AbortSignal): Promise<string[]> {
    const reply = await this.request('GET', this.configPath(type), undefined, signal);
    if (reply.status !== 200)
      throw new VtmTransportError(`listing ${type} answered ${reply.status}: ${reply.text.slice(0, 200)}`, {
        cause: reply.json,
      });
    const children = (reply.json as { children?: { name: string }[] }).children ?? [];
    return children.map((c) => c.name);
  }

  /** GET one object (JSON or text). */
  get(type: string, name: string, signal?: AbortSignal): Promise<VtmReply> {
    return this.request('GET', this.configPath(type, name), undefined, signal);
  }

  /** PUT a JSON object (full or partial `{properties}`); `stamp` adds headers naming the write's origin. */
  putJson(type: string, name: string, body: unknown, signal?: AbortSignal, stamp?: WriteStamp): Promise<VtmReply> {
    return this.request(
      'PUT',
      this.configPath(type, name),
      { contentType: 'application/json', data: JSON.stringify(body) },
      signal,
      stamp,
    );
  }

  /** PUT a raw text object (a TrafficScript rule). */
  putText(type: string, name: string, text: string, signal?: AbortSignal, stamp?: WriteStamp): Promise<VtmReply> {
    return this.request(
      'PUT',
      this.configPath(type, name),
      { contentType: 'application/octet-stream', data: text },
      signal,
      stamp,
    );
  }

  /** DELETE one object. */
  delete(type: string, name: string, signal?: AbortSignal, stamp?: WriteStamp): Promise<VtmReply> {
    return this.request('DELETE', this.configPath(type, name), undefined, signal, stamp);
  }

  /** One request; resolves with any HTTP status, rejects with VtmTransportError on connection failures. */
  request(
    method: string,
    path: string,
    body?: { contentType: string; data: string },
    signal?: AbortSignal,
    stamp?: WriteStamp,
  ): Promise<VtmReply> {
    this.calls += 1;
    const url = new URL(path, this.#options.url);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<VtmReply>((resolve, reject) => {
      const headers: Record<string, string> = { ...stamp, authorization: this.#auth, accept: 'application/json' };
      if (body !== undefined) {
        headers['content-type'] = body.contentType;
        headers['content-length'] = String(Buffer.byteLength(body.data));
      }
      const req = send(
        url,
        { method, headers, agent: this.#agent, ...(signal === undefined ? {} : { signal }) },
        (res: IncomingMessage) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', (cause) => reject(new VtmTransportError(`${method} ${path}: response broken`, { cause })));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let json: unknown = null;
            if ((res.headers['content-type'] ?? '').includes('json') && text !== '') {
              try {
                json = JSON.parse(text);
              } catch (e) {
                // A body that says JSON but is not: callers read `text` (the status decides success).
                if (!(e instanceof SyntaxError)) throw e;
                json = null;
              }
            }
            resolve({ status: res.statusCode ?? 0, json, text });
          });
        },
      );
      req.on('error', (cause) => reject(new VtmTransportError(`${method} ${path}: ${cause.message}`, { cause })));
      req.end(body?.data);
    });
  }

  /** Closes idle keep-alive connections. */
  close(): void {
    this.#agent.destroy();
  }
}
