import { createHash } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { EmulatedDataPlane, type DataPlane, type DataPlaneOptions } from './adapters/data-plane.ts';
import { makeSelfSignedCert } from './adapters/self-signed-cert.ts';
import { readStateFile, writeStateFile } from './adapters/state-file.ts';
import { handleRequest, type HandlerOptions } from './core/handle-request.ts';
import { isObject } from './core/validate-properties.ts';
import { VtmConfigStore, type DeleteOutcome, type PutOutcome, type StoredObject } from './core/vtm-config-store.ts';

/** Options of one emulated Traffic Manager REST service. */
export interface VtmEmulatorOptions {
  /** 0 (default) picks a free port; read it back from the result. */
  readonly port?: number;
  readonly host?: string;
  /** user → password accepted by Basic auth. */
  readonly users: Readonly<Record<string, string>>;
  /** Refuse dangling references on write and deleting objects in use. */
  readonly strict?: boolean;
  /** Load the configuration from this file at start and save it after every write. */
  readonly statePath?: string;
  /** Serve HTTPS with a fresh self-signed certificate (as the real REST service does). */
  readonly https?: boolean;
  /** Traffic manager names of the emulated cluster (traffic IP groups may only name these). */
  readonly machines?: readonly string[];
  /** API versions to list at /api/tm; defaults to ['8.3']. */
  readonly versions?: readonly string[];
  /**
   * Also emulate traffic: one HTTP listener per port of an enabled plain-HTTP virtual server, running its request
   * rules (TrafficScript subset) and its pools. Absent: control plane only.
   */
  readonly dataPlane?: DataPlaneOptions;
  /**
   * Append every write to this file, one JSON line each (no bodies): what a real Traffic Manager's audit log holds,
   * plus the `X-Portolan-Epoch` and `X-Portolan-Snapshot` headers the write carried.
   */
  readonly auditLogPath?: string;
}

/** One successful write, as a test sees it (private keys redacted). */
export interface WriteLogEntry {
  readonly seq: number;
  readonly method: 'PUT' | 'DELETE';
  readonly type: string;
  readonly name: string;
  readonly status: number;
  /** When the write was answered (ISO 8601). */
  readonly at: string;
  /** The `X-Portolan-Epoch` and `X-Portolan-Snapshot` headers of the request; null when absent. */
  readonly epoch: number | null;
  readonly snapshot: string | null;
  /** Parsed JSON body, raw text for text objects, null for DELETE. */
  readonly body: unknown;
}

/** Every request answered, for counting API calls. */
export interface RequestLogEntry {
  readonly method: string;
  readonly path: string;
  readonly status: number;
}

/** Direct access to the configuration, bypassing HTTP and auth: used by tests to simulate out-of-band changes. */
export interface EmulatorStateAccess {
  list(type: string): string[];
  get(type: string, name: string): StoredObject | undefined;
  /** JSON types take `{properties: …}` (merged like a PUT), text types a string. */
  put(type: string, name: string, body: unknown): PutOutcome;
  delete(type: string, name: string): DeleteOutcome;
}

/** A running emulator. */
export interface VtmEmulator {
  readonly url: string;
  readonly port: number;
  readonly writeLog: WriteLogEntry[];
  readonly requestLog: RequestLogEntry[];
  readonly state: EmulatorStateAccess;
  /** The self-signed certificate (PEM) when serving HTTPS. */
  readonly certificatePem: string | null;
  /** The data plane, when started with `dataPlane`; null otherwise. */
  readonly dataPlane: DataPlane | null;
  close(): Promise<void>;
}

/** Starts an emulated vTM REST API 8.3 service and resolves once it listens. */
export async function startVtmEmulator(options: VtmEmulatorOptions): Promise<VtmEmulator> {
  const store = new VtmConfigStore(options.machines ?? ['vtm-1']);
  const { statePath } = options;
  if (statePath !== undefined) {
    const snapshot = readStateFile(statePath);
    if (snapshot !== null) store.loadSnapshot(snapshot);
  }
  const dataPlane = options.dataPlane === undefined ? null : new EmulatedDataPlane(store, options.dataPlane);
  // Every write goes through here: the state file is saved and the data plane's listeners follow the configuration.
  const persist = (): void => {
    if (statePath !== undefined) writeStateFile(statePath, store.toSnapshot());
    dataPlane?.sync();
  };
  const writeLog: WriteLogEntry[] = [];
  const requestLog: RequestLogEntry[] = [];
  const audit = options.auditLogPath;
  const record = (entry: WriteLogEntry): void => {
    writeLog.push(entry);
    if (audit !== undefined) appendFileSync(audit, `${JSON.stringify({ ...entry, body: undefined })}\n`);
  };
  const onRequest = requestListener(store, options, { record, writeLog, requestLog, persist });
  const tls = options.https === true ? await makeSelfSignedCert() : null;
  const server: Server =
    tls === null ? createHttpServer(onRequest) : createHttpsServer({ key: tls.key, cert: tls.cert }, onRequest);
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  dataPlane?.sync(); // a loaded state file may already hold virtual servers
  const { port } = server.address() as AddressInfo;
  return {
    url: `${tls === null ? 'http' : 'https'}://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    writeLog,
    requestLog,
    certificatePem: tls?.cert ?? null,
    state: stateAccess(store, persist),
    dataPlane,
    close: async () => {
      await dataPlane?.close();
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        server.closeAllConnections();
      });
    },
  };
}

/** The HTTP handler: reads the body, answers through the pure core, records logs and persists writes. */
function requestListener(
  store: VtmConfigStore,
  options: VtmEmulatorOptions,
  sinks: {
    record: (entry: WriteLogEntry) => void;
    writeLog: readonly WriteLogEntry[];
    requestLog: RequestLogEntry[];
    persist: () => void;
  },
): (req: IncomingMessage, res: ServerResponse) => void {
  const handlerOptions: HandlerOptions = {
    users: options.users,
    versions: options.versions ?? ['8.3'],
    strict: options.strict ?? false,
    hashSecret: (clear) => createHash('sha256').update(clear).digest('base64'),
  };
  return (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const method = req.method ?? 'GET';
      const response = handleRequest(
        store,
        { method, path, authorization: req.headers.authorization, body },
        handlerOptions,
      );
      sinks.requestLog.push({ method, path, status: response.status });
      if (response.write !== null) {
        sinks.record({
          seq: sinks.writeLog.length + 1,
          method: method as 'PUT' | 'DELETE',
          ...response.write,
          status: response.status,
          at: new Date().toISOString(),
          epoch: headerNumber(req.headers['x-portolan-epoch']),
          snapshot: headerText(req.headers['x-portolan-snapshot']),
          body: method === 'PUT' ? redact(response.write.type, body) : null,
        });
        sinks.persist();
      }
      const headers: Record<string, string> = { ...response.headers };
      if (response.contentType !== null) headers['content-type'] = response.contentType;
      res.writeHead(response.status, headers).end(response.body);
    });
  };
}

/** A request header as a number, null when absent or not one. */
function headerNumber(value: string | string[] | undefined): number | null {
  const text = headerText(value);
  return text === null || !/^\d+$/.test(text) ? null : Number(text);
}

/** A single request header's text, null when absent. */
function headerText(value: string | string[] | undefined): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function stateAccess(store: VtmConfigStore, persist: () => void): EmulatorStateAccess {
  return {
    list: (type) => store.list(type),
    get: (type, name) => store.get(type, name),
    put: (type, name, body) => {
      const outcome = store.isTextType(type)
        ? store.putText(type, name, String(body))
        : store.putJson(type, name, body, false);
      persist();
      return outcome;
    },
    delete: (type, name) => {
      const outcome = store.delete(type, name, false, `/api/tm/8.3/config/active/${type}/${name}`);
      persist();
      return outcome;
    },
  };
}

/** Keeps a write's body for the log without the private key material. */
function redact(type: string, body: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return body;
  }
  if (type === 'ssl/server_keys' && isObject(parsed) && isObject(parsed['properties'])) {
    const basic = parsed['properties']['basic'];
    if (isObject(basic) && typeof basic['private'] === 'string') basic['private'] = '<redacted>';
  }
  return parsed;
}
