import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { LmCallRecord, LmWriteRecord } from './adapters/emulator-handler.ts';
import { EmulatorHandler } from './adapters/emulator-handler.ts';
import { generateSelfSignedCertificate } from './adapters/self-signed-certificate.ts';
import { loadStateFile } from './adapters/state-file.ts';
import { createLmState } from './core/lm-state.ts';
import type { LmStore } from './core/lm-store.ts';
import type { LmHttpRequest, LmRouteResult } from './core/rule-match.ts';
import { routeRequest } from './core/rule-match.ts';
import { exchangeRequest, type LmExchange, type LmHeaderLine } from './core/header-rules.ts';

/** Options of a LoadMaster emulator instance. */
export interface LoadMasterEmulatorOptions {
  /** 0 picks a free port (tests). */
  readonly port: number;
  readonly host?: string;
  /** Users and their passwords (Basic auth, apiuser/apipass). */
  readonly users: Readonly<Record<string, string>>;
  /** Pre-installed API keys: key → user. */
  readonly apiKeys?: Readonly<Record<string, string>>;
  /** Enforce the appliance's limit (default 30 calls in 3 s): the connection is dropped above it. */
  readonly rateLimit?: boolean | { readonly limit: number; readonly windowMs: number };
  /** Serve HTTPS with a freshly generated self-signed certificate (default true, like the appliance). */
  readonly https?: boolean;
  /** Load the configuration from this JSON file at start and save it after every write. */
  readonly statePath?: string;
}

/** A running emulator. */
export interface LoadMasterEmulator {
  /** Base URL, e.g. `https://127.0.0.1:40123`. */
  readonly url: string;
  readonly port: number;
  /** Successful configuration writes, in order, with timestamps (ms since the epoch). */
  readonly writeLog: readonly LmWriteRecord[];
  /** Every accepted call (reads included), with timestamps. */
  readonly calls: readonly LmCallRecord[];
  /** Calls refused by the rate limit (connection dropped). */
  readonly droppedCalls: number;
  /** Direct state access for tests ("changed by hand on the appliance"). */
  readonly store: LmStore;
  /** Which real server or SubVS of a VS would take this HTTP request, by its content rules. */
  route(vsIndex: number, request: LmHttpRequest): LmRouteResult;
  /** Routes a request and applies the header rules on its way (request) and back (`responseHeaders`). */
  exchange(vsIndex: number, request: LmHttpRequest, responseHeaders?: readonly LmHeaderLine[]): LmExchange;
  close(): Promise<void>;
}

/** Starts a LoadMaster emulator serving `/access/<cmd>` (v1, XML) and `/accessv2` (v2, JSON) over one state. */
export async function startLoadMasterEmulator(options: LoadMasterEmulatorOptions): Promise<LoadMasterEmulator> {
  const state = options.statePath === undefined ? createLmState() : loadStateFile(options.statePath);
  for (const [key, user] of Object.entries(options.apiKeys ?? {})) {
    if (!state.apiKeys.some((k) => k.key === key)) state.apiKeys.push({ key, user });
  }
  const rateLimit = options.rateLimit === true ? { limit: 30, windowMs: 3000 } : options.rateLimit || null;
  const handler = new EmulatorHandler(state, { users: options.users, rateLimit, statePath: options.statePath ?? null });
  const https = options.https ?? true;
  const server: Server = https
    ? createHttpsServer({ ...(await generateSelfSignedCertificate()) }, handler.handle)
    : createHttpServer(handler.handle);
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${https ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    writeLog: handler.writeLog,
    calls: handler.calls,
    get droppedCalls() {
      return handler.droppedCalls;
    },
    store: handler.store,
    route: (vsIndex, request) => routeRequest(handler.store, vsIndex, request),
    exchange: (vsIndex, request, responseHeaders) => exchangeRequest(handler.store, vsIndex, request, responseHeaders),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
