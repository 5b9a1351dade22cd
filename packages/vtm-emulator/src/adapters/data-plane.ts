import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  dataPlanePorts,
  routeDataPlaneRequest,
  runResponseRules,
  type DataPlaneDecision,
} from '../core/route-data-plane-request.ts';
import { newTransaction, type HeaderFields, type HttpTransaction } from '../core/traffic-script-transaction.ts';
import type { VtmConfigStore } from '../core/vtm-config-store.ts';
import { PortolanError } from '@portolan/errors';

/** Options of the emulated data plane (traffic, as opposed to the REST control plane). */
export interface DataPlaneOptions {
  /** Local address every listener binds to (the emulator cannot bind the traffic IPs themselves). */
  readonly address: string;
  /** Fixed local port per virtual server port (e.g. `{ 80: 8080 }` for a demo); unmapped ports get a free port. */
  readonly ports?: Readonly<Record<number, number>>;
  /**
   * What a request routed to a pool gets: `describe` (default) answers 200 with JSON naming the virtual server,
   * pool and chosen node; `proxy` forwards the request to the node and relays its answer.
   */
  readonly poolAnswer?: 'describe' | 'proxy';
}

/** One data plane listener: the virtual server port it stands for and where it really listens. */
export interface DataPlaneListener {
  readonly virtualServerPort: number;
  readonly port: number;
  readonly url: string;
}

/** One request the data plane handled. */
export interface DataPlaneLogEntry {
  readonly virtualServerPort: number;
  readonly method: string;
  readonly host: string;
  readonly url: string;
  /** HTTP status answered, or 0 when the connection was discarded. */
  readonly status: number;
  readonly pool: string | null;
  readonly node: string | null;
}

/** The data plane as tests and the CLI see it. */
export interface DataPlane {
  /** Waits until the listeners match the configuration, then lists them by virtual server port. */
  listeners(): Promise<DataPlaneListener[]>;
  /** The base URL serving a virtual server port (after the listeners caught up); throws when none does. */
  urlFor(virtualServerPort: number): Promise<string>;
  readonly requestLog: DataPlaneLogEntry[];
}

/** A data plane listener could not be opened (a fixed port in use) or a port has no listener. */
export class DataPlaneListenError extends PortolanError {
  readonly code = 'VTM_EMULATOR_DATA_PLANE_LISTEN';
}

/**
 * One HTTP listener per port of an enabled plain-HTTP virtual server, executing its request rules with the
 * TrafficScript interpreter. `sync()` after every configuration write opens and closes listeners; syncs run one
 * after the other, so `listeners()` reflects every write made before it was called.
 */
export class EmulatedDataPlane implements DataPlane {
  readonly requestLog: DataPlaneLogEntry[] = [];
  readonly #store: VtmConfigStore;
  readonly #options: DataPlaneOptions;
  readonly #servers = new Map<number, { server: Server; port: number }>();
  #syncing: Promise<void> = Promise.resolve();
  #failure: DataPlaneListenError | null = null;
  #picks = 0;
  /** `connection.data` per client connection. */
  readonly #connectionData = new WeakMap<Socket, Map<string, string>>();

  constructor(store: VtmConfigStore, options: DataPlaneOptions) {
    this.#store = store;
    this.#options = options;
  }

  /** Schedules bringing the listeners in line with the configuration. */
  sync(): void {
    this.#syncing = this.#syncing
      .then(() => {
        this.#failure = null;
        return this.#reconcile();
      })
      .catch((cause: unknown) => {
        this.#failure = new DataPlaneListenError('a data plane listener could not be opened', { cause });
      });
  }

  async listeners(): Promise<DataPlaneListener[]> {
    await this.#syncing;
    if (this.#failure !== null) throw this.#failure;
    return [...this.#servers]
      .sort(([a], [b]) => a - b)
      .map(([virtualServerPort, { port }]) => ({ virtualServerPort, port, url: this.#url(port) }));
  }

  async urlFor(virtualServerPort: number): Promise<string> {
    const found = (await this.listeners()).find((l) => l.virtualServerPort === virtualServerPort);
    if (found === undefined)
      throw new DataPlaneListenError(`no enabled plain-HTTP virtual server listens on port ${virtualServerPort}`);
    return found.url;
  }

  /** Stops every listener. */
  async close(): Promise<void> {
    await this.#syncing;
    await Promise.all([...this.#servers.keys()].map((p) => this.#stop(p)));
  }

  #url(port: number): string {
    const host = this.#options.address.includes(':') ? `[${this.#options.address}]` : this.#options.address;
    return `http://${host}:${port}`;
  }

  async #reconcile(): Promise<void> {
    const wanted = new Set(dataPlanePorts(this.#store).keys());
    for (const port of [...this.#servers.keys()]) if (!wanted.has(port)) await this.#stop(port);
    for (const port of wanted) if (!this.#servers.has(port)) await this.#start(port);
  }

  async #start(virtualServerPort: number): Promise<void> {
    const server = createServer((req, res) => this.#handle(virtualServerPort, req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.#options.ports?.[virtualServerPort] ?? 0, this.#options.address, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.#servers.set(virtualServerPort, { server, port: (server.address() as AddressInfo).port });
  }

  async #stop(virtualServerPort: number): Promise<void> {
    const entry = this.#servers.get(virtualServerPort);
    if (entry === undefined) return;
    this.#servers.delete(virtualServerPort);
    await new Promise<void>((resolve) => {
      entry.server.close(() => resolve());
      entry.server.closeAllConnections();
    });
  }

  #handle(virtualServerPort: number, req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
      const request = { host: req.headers.host ?? '', url: req.url ?? '/', method: req.method ?? 'GET', headers };
      const tx = newTransaction({ ...request, rawHeaders: pairs(req.rawHeaders) }, this.#dataOf(req.socket));
      const decision = routeDataPlaneRequest(this.#store, virtualServerPort, request, this.#picks++, tx);
      const log = (status: number): void => {
        this.requestLog.push({
          virtualServerPort,
          method: request.method,
          host: request.host,
          url: request.url,
          status,
          pool: decision.kind === 'pool' ? decision.pool : null,
          node: decision.kind === 'pool' ? decision.node : null,
        });
      };
      this.#answer(decision, req, res, Buffer.concat(chunks), log);
    });
  }

  #dataOf(socket: Socket): Map<string, string> {
    let data = this.#connectionData.get(socket);
    if (data === undefined) {
      data = new Map();
      this.#connectionData.set(socket, data);
    }
    return data;
  }

  #answer(
    decision: DataPlaneDecision,
    req: IncomingMessage,
    res: ServerResponse,
    body: Buffer,
    log: (status: number) => void,
  ): void {
    if (decision.kind === 'discard') {
      log(0);
      req.socket.destroy();
      return;
    }
    if (decision.kind === 'respond') {
      log(decision.status);
      res.writeHead(decision.status, decision.reason, decision.headers).end(decision.body);
      return;
    }
    const { tx, virtualServer } = decision;
    const relay = (status: number, headers: HeaderFields, body: Buffer | IncomingMessage): void => {
      tx.response = { status, headers };
      const failure = runResponseRules(this.#store, virtualServer, tx);
      if (failure !== null) {
        log(500);
        res.writeHead(500, { 'content-type': 'text/plain' }).end(`${failure}\n`);
        if (!Buffer.isBuffer(body)) body.resume();
        return;
      }
      log(status);
      res.writeHead(status, tx.response.headers.flat());
      if (Buffer.isBuffer(body)) res.end(body);
      else body.pipe(res);
    };
    if (this.#options.poolAnswer !== 'proxy' || decision.node === null) {
      const described = { virtualServer, pool: decision.pool, node: decision.node };
      relay(200, [['content-type', 'application/json']], Buffer.from(`${JSON.stringify(described)}\n`));
      return;
    }
    proxyTo(decision.node, tx, body, relay, () => {
      log(502);
      if (!res.headersSent)
        res.writeHead(502, { 'content-type': 'text/plain' }).end(`node ${decision.node} is unreachable\n`);
      else res.destroy();
    });
  }
}

/** Header fields from `rawHeaders` (name, value, name, value, …). */
function pairs(raw: readonly string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) out.push([raw[i] as string, raw[i + 1] as string]);
  return out;
}

/**
 * Forwards the request as the rules left it (`tx.url`, `tx.headers`) to `node` (`host:port`, IPv6 bracketed) and
 * hands the answer to `relay`; `unreachable` when the node cannot be reached.
 */
function proxyTo(
  node: string,
  tx: HttpTransaction,
  body: Buffer,
  relay: (status: number, headers: HeaderFields, body: IncomingMessage) => void,
  unreachable: () => void,
): void {
  const sep = node.lastIndexOf(':');
  const host = node.slice(0, sep).replace(/^\[|\]$/g, '');
  let upstream;
  try {
    upstream = httpRequest(
      { host, port: Number(node.slice(sep + 1)), method: tx.method, path: tx.url, headers: tx.headers.flat() },
      (up) => relay(up.statusCode ?? 502, pairs(up.rawHeaders), up),
    );
  } catch {
    // A rule left a header Node refuses to send (a control character in a value): the node is never asked.
    unreachable();
    return;
  }
  upstream.on('error', unreachable);
  upstream.end(body);
}
