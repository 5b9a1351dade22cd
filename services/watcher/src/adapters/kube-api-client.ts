import http from 'node:http';
import https from 'node:https';
import { LineSplitter } from '../core/index.ts';
import { loadKubeEndpoint } from './kubeconfig.ts';

/** A Kubernetes API request failed: `status` is the HTTP status (0 for transport errors), `reason` the Status reason. */
export class KubeApiError extends Error {
  readonly code = 'KUBE_API_REQUEST_FAILED';
  readonly status: number;
  readonly reason: string;
  constructor(status: number, reason: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'KubeApiError';
    this.status = status;
    this.reason = reason;
  }
}

/** An open watch: its lines as they arrive, and the unterminated remainder when it ends. */
export interface WatchConnection {
  lines(): AsyncIterable<string>;
  /** A non-empty remainder after the stream ended is a truncated event. */
  remainder(): string;
}

/** Where the API server is and how to authenticate to it. */
export interface KubeEndpoint {
  readonly server: URL;
  readonly tls: https.AgentOptions;
  /** Request headers (bearer token, refreshed per request so rotated tokens are picked up). */
  headers(): Promise<Record<string, string>>;
}

/**
 * A small Kubernetes API client that leaves timeouts, bookmarks and socket reuse to the watcher: each stream gets
 * its own keep-alive agent limited to one socket, so a stream never holds more than one connection, however often it restarts, and an
 * abandoned request destroys its socket instead of leaking it.
 */
export class KubeApiClient {
  readonly endpoint: KubeEndpoint;

  constructor(endpoint: KubeEndpoint) {
    this.endpoint = endpoint;
  }

  /** From a kubeconfig file (and optional context), or the in-cluster service account when `kubeconfig` is absent. */
  static async fromKubeconfig(options: {
    kubeconfig?: string;
    context?: string;
    env?: Readonly<Record<string, string | undefined>>;
    serviceAccountRoot?: string;
  }): Promise<KubeApiClient> {
    return new KubeApiClient(await loadKubeEndpoint({ ...options, env: options.env ?? {} }));
  }

  /** A keep-alive agent holding at most one socket: give one to each stream. */
  createAgent(): http.Agent {
    const options = { keepAlive: true, maxSockets: 1, maxTotalSockets: 1, maxFreeSockets: 1 };
    return this.endpoint.server.protocol === 'https:'
      ? new https.Agent({ ...options, ...this.endpoint.tls })
      : new http.Agent(options);
  }

  /** GET returning parsed JSON; a non-2xx answer throws KubeApiError with the Status reason. */
  async getJson(path: string, options: { agent?: http.Agent; signal?: AbortSignal } = {}): Promise<unknown> {
    const res = await this.request('GET', path, options);
    return readJson(res, path);
  }

  /** POST of a JSON body returning parsed JSON. */
  async postJson(
    path: string,
    body: unknown,
    options: { agent?: http.Agent; signal?: AbortSignal } = {},
  ): Promise<unknown> {
    const res = await this.request('POST', path, { ...options, body: JSON.stringify(body) });
    return readJson(res, path);
  }

  /** Opens a watch; throws KubeApiError when the server answers anything but 200 (e.g. 410 at watch start). */
  async openWatch(path: string, options: { agent?: http.Agent; signal?: AbortSignal } = {}): Promise<WatchConnection> {
    const res = await this.request('GET', path, options);
    if (res.statusCode !== 200) await readJson(res, path);
    res.setEncoding('utf8');
    const splitter = new LineSplitter();
    return {
      async *lines() {
        for await (const chunk of res as AsyncIterable<string>) yield* splitter.push(chunk);
      },
      remainder: () => splitter.rest(),
    };
  }

  private async request(
    method: string,
    path: string,
    options: { agent?: http.Agent; signal?: AbortSignal; body?: string },
  ): Promise<http.IncomingMessage> {
    const url = new URL(path, this.endpoint.server);
    const headers: Record<string, string> = { accept: 'application/json', ...(await this.endpoint.headers()) };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const transport = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const req = transport.request(url, {
        method,
        headers,
        ...(options.agent === undefined
          ? url.protocol === 'https:'
            ? this.endpoint.tls
            : {}
          : { agent: options.agent }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
      req.once('response', resolve);
      req.once('error', (cause) =>
        reject(new KubeApiError(0, 'TransportError', `${method} ${url.pathname}: ${cause.message}`, { cause })),
      );
      req.end(options.body);
    });
  }
}

async function readJson(res: http.IncomingMessage, path: string): Promise<unknown> {
  // Decoded chunk by chunk: each socket buffer is garbage at once, instead of a list page's worth of buffers living
  // until the answer is complete (long enough to be promoted, and to fragment the malloc heap) plus a copy of them.
  res.setEncoding('utf8');
  let text = '';
  try {
    for await (const c of res as AsyncIterable<string>) text += c;
  } catch (cause) {
    throw new KubeApiError(0, 'TransportError', `reading ${path.split('?')[0]}: ${(cause as Error).message}`, {
      cause,
    });
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (cause) {
    throw new KubeApiError(
      res.statusCode ?? 0,
      'BadResponse',
      `${path.split('?')[0]}: answer is not JSON (HTTP ${res.statusCode})`,
      { cause },
    );
  }
  const status = res.statusCode ?? 0;
  if (status < 200 || status > 299) {
    const s = (typeof body === 'object' && body !== null ? body : {}) as { reason?: unknown; message?: unknown };
    throw new KubeApiError(
      status,
      String(s.reason ?? 'Unknown'),
      `${path.split('?')[0]}: HTTP ${status} ${String(s.message ?? '')}`.trim(),
    );
  }
  return body;
}
