import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

/** Where one echo backend should listen; port 0 picks a free port (read it back from `EchoBackend.port`). */
export interface EchoBackendSpec {
  /** Any loopback address works on this machine (127.0.x.y), so each backend can play a distinct "pod IP". */
  readonly address: string;
  readonly port: number;
  /** Serve HTTPS with this certificate instead of plain HTTP (re-encrypt tests). */
  readonly tls?: { readonly certificatePem: string; readonly privateKeyPem: string };
  /**
   * Who this backend plays (Ingress and Gateway API conformance); when set, replies also carry `proto`, `headers` and
   * `context`, and the response carries the headers a request's `X-Echo-Set-Header: Name:value,…` asks for.
   */
  readonly context?: EchoContext;
}

/** The Kubernetes identity of a backend, as the SIG-Network Ingress conformance echoserver reports it. */
export interface EchoContext {
  readonly namespace: string;
  readonly ingress: string;
  readonly service: string;
  readonly pod: string;
}

/** The JSON body every echo backend answers with: who answered, and what the request looked like on arrival. */
export interface EchoReply {
  readonly address: string;
  readonly port: number;
  readonly tls: boolean;
  readonly method: string;
  readonly host: string;
  readonly path: string;
  /** X-Forwarded-For as received ('' when absent). */
  readonly forwardedFor: string;
  readonly forwardedProto: string;
  /** The request's protocol as received, e.g. `HTTP/1.1` (only when the spec has a `context`). */
  readonly proto?: string;
  /** Request headers as received, lower-case names (only when the spec has a `context`). */
  readonly headers?: Readonly<Record<string, readonly string[]>>;
  /** The spec's `context`: which namespace, Ingress, Service and pod answered. */
  readonly context?: EchoContext;
}

/** One running echo backend. */
export interface EchoBackend {
  readonly address: string;
  readonly port: number;
  /** Requests answered so far (health checks included). */
  readonly requests: number;
}

/** A set of running echo backends; `close` stops them all. */
export interface EchoBackends extends AsyncDisposable {
  readonly backends: readonly EchoBackend[];
  close(): Promise<void>;
}

/**
 * Starts tiny HTTP(S) servers that answer every request with a JSON `EchoReply`, so a test can see which
 * backend a proxy chose and which headers it added. Used by HAProxy tests and the local stack.
 */
export async function startEchoBackends(specs: readonly EchoBackendSpec[]): Promise<EchoBackends> {
  const servers: http.Server[] = [];
  const backends: { address: string; port: number; requests: number }[] = [];
  try {
    for (const spec of specs) {
      const state = { address: spec.address, port: spec.port, requests: 0 };
      const tls = spec.tls !== undefined;
      const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
        state.requests += 1;
        const reply: EchoReply = {
          address: state.address,
          port: state.port,
          tls,
          method: req.method ?? '',
          host: req.headers.host ?? '',
          path: req.url ?? '',
          forwardedFor: headerText(req.headers['x-forwarded-for']),
          forwardedProto: headerText(req.headers['x-forwarded-proto']),
          // Only conformance backends describe the request in full, so other tests' replies keep their shape.
          ...(spec.context === undefined
            ? {}
            : { proto: `HTTP/${req.httpVersion}`, headers: distinctHeaders(req), context: spec.context }),
        };
        const body = JSON.stringify(reply);
        // Gateway API conformance's echo server sets the response headers a request asks for in X-Echo-Set-Header.
        const asked = spec.context === undefined ? [] : echoSetHeaders(req.headers['x-echo-set-header']);
        for (const [name, value] of asked) res.appendHeader(name, value);
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      };
      const server = spec.tls
        ? https.createServer({ cert: spec.tls.certificatePem, key: spec.tls.privateKeyPem }, handler)
        : http.createServer(handler);
      server.keepAliveTimeout = 1000;
      servers.push(server);
      await listen(server, spec.address, spec.port);
      state.port = (server.address() as AddressInfo).port;
      backends.push(state);
    }
  } catch (error) {
    await Promise.all(servers.map(closeServer));
    throw error;
  }
  const close = async (): Promise<void> => {
    await Promise.all(servers.map(closeServer));
  };
  return { backends, close, [Symbol.asyncDispose]: close };
}

function distinctHeaders(req: http.IncomingMessage): Record<string, readonly string[]> {
  return Object.fromEntries(
    Object.entries(req.headersDistinct).flatMap(([name, values]) => (values === undefined ? [] : [[name, values]])),
  );
}

/** `Name:value,Name:value` (upstream echo-basic's X-Echo-Set-Header); entries without a colon are ignored. */
function echoSetHeaders(value: string | string[] | undefined): [string, string][] {
  const text = Array.isArray(value) ? value.join(',') : (value ?? '');
  return text.split(',').flatMap((entry): [string, string][] => {
    const colon = entry.indexOf(':');
    if (colon <= 0) return [];
    return [[entry.slice(0, colon).trim(), entry.slice(colon + 1).trim()]];
  });
}

function headerText(value: string | string[] | undefined): string {
  if (value === undefined) return '';
  return Array.isArray(value) ? value.join(', ') : value;
}

function listen(server: http.Server, address: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, address, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
