import http from 'node:http';
import https from 'node:https';
import type { TLSSocket } from 'node:tls';

/** What an echo backend reported about the request it answered (its JSON body). */
export interface EchoSeen {
  readonly address: string;
  readonly port: number;
  readonly method: string;
  readonly host: string;
  readonly path: string;
  readonly forwardedProto: string;
  /** Whether the backend itself terminated TLS. */
  readonly tls?: boolean;
  /** Present when the backend was started with a context (see `EchoReply` of @portolan/echo-backend). */
  readonly proto?: string;
  readonly headers?: Readonly<Record<string, readonly string[]>>;
  readonly context?: {
    readonly namespace: string;
    readonly ingress: string;
    readonly service: string;
    readonly pod: string;
  };
}

/** One response as a client saw it, with the certificate the server presented (HTTPS). */
export interface Reply {
  readonly status: number;
  /** The response's HTTP version, e.g. `1.1`. */
  readonly httpVersion: string;
  readonly headers: http.IncomingHttpHeaders;
  /** Every response header's values, one entry per header line (`headers` joins repeated lines with `, `). */
  readonly headerLists: Readonly<Record<string, readonly string[] | undefined>>;
  readonly body: string;
  /** The echo backend that answered (parsed JSON body), when it was one. */
  readonly echo: EchoSeen | null;
  /** Subject alternative names of the server certificate (HTTPS only), e.g. `DNS:a.example.com`. */
  readonly certificateNames: string | null;
}

/** Options of `sendRequest`. */
export interface RequestOptions {
  readonly https?: boolean;
  /** The address to connect to (default 127.0.0.1). */
  readonly address?: string;
  /** TLS server name (default: the Host header's host; '' sends none). */
  readonly sni?: string;
  readonly method?: string;
  readonly timeoutMs?: number;
  /**
   * HTTPS: trust only this certificate (PEM) and reject any other; the host name is not checked against it (the
   * Gateway API conformance certificates name `*`, which TLS clients do not match). Default: accept any certificate.
   */
  readonly trust?: string;
  /** Extra request headers (Host is always the `host` argument). */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * Sends one request to 127.0.0.1:port with an explicit Host header (fetch cannot set Host), on a fresh connection
 * so every request is balanced on its own. Rejects on connection errors.
 */
export function sendRequest(port: number, host: string, path: string, options: RequestOptions = {}): Promise<Reply> {
  const servername = options.sni ?? host.replace(/:\d+$/, '');
  const common = {
    host: options.address ?? '127.0.0.1',
    port,
    path,
    method: options.method ?? 'GET',
    headers: { ...options.headers, host },
    agent: false as const,
    timeout: options.timeoutMs ?? 5000,
  };
  return new Promise((resolve, reject) => {
    const onResponse = (res: http.IncomingMessage): void => {
      const socket = res.socket as TLSSocket;
      const certificateNames = options.https === true ? (socket.getPeerCertificate?.()?.subjectaltname ?? null) : null;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          httpVersion: res.httpVersion,
          headers: res.headers,
          headerLists: res.headersDistinct,
          body,
          echo: parseEcho(res.headers, body),
          certificateNames,
        }),
      );
      res.on('error', reject);
    };
    const req =
      options.https === true
        ? https.request(
            {
              ...common,
              ...(options.trust === undefined
                ? { rejectUnauthorized: false }
                : { ca: options.trust, rejectUnauthorized: true, checkServerIdentity: () => undefined }),
              ...(servername === '' ? {} : { servername }),
            },
            onResponse,
          )
        : http.request(common, onResponse);
    req.once('timeout', () => req.destroy(new Error(`request to ${host}${path} timed out`)));
    req.once('error', reject);
    req.end();
  });
}

function parseEcho(headers: http.IncomingHttpHeaders, body: string): Reply['echo'] {
  if (!String(headers['content-type'] ?? '').includes('application/json')) return null;
  try {
    const v = JSON.parse(body) as Record<string, unknown>;
    return typeof v.address === 'string' && typeof v.port === 'number' ? (v as unknown as Reply['echo']) : null;
  } catch {
    return null;
  }
}
