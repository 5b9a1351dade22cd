import { randomBytes, randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { UserInfo } from './core/rbac-authorizer.ts';
import { findResourceTypeByKind, resourceTypes, type ResourceType } from './core/resource-types.ts';
import { ObjectStore, type ChangeLogEntry } from './store/object-store.ts';
import { ObjectWriter } from './store/object-writer.ts';
import { createCertificateAuthority, issueServerCertificate } from './server/certificates.ts';
import { FaultController } from './server/fault-controller.ts';
import { createRequestListener, type RequestLogEntry } from './server/kube-sim-server.ts';
import { renderKubeconfig } from './server/kubeconfig.ts';
import { ObjectsApi } from './server/objects-api.ts';
import { ServiceAccountTokens } from './server/service-account-tokens.ts';
import { loadTokenFile } from './server/token-file.ts';
import { BearerAuthenticator } from './server/bearer-authenticator.ts';
import { loadStateFile, StateFileWriter } from './server/state-file.ts';

/** Options of startKubeSim; every field has a default. */
export interface KubeSimOptions {
  /** TCP port; 0 (default) picks a free one. */
  readonly port?: number;
  readonly host?: string;
  /** Kubernetes version reported by /version (default 1.31). */
  readonly version?: string;
  /** Load objects from this file at start and write them back on change (debounced, atomic). */
  readonly statePath?: string;
  /** Serve HTTPS with a generated CA (default true). */
  readonly tls?: boolean;
  /** The admin bearer token (default: random); every request made with it is allowed. */
  readonly token?: string;
  /**
   * A static token file, as kube-apiserver's `--token-auth-file`: CSV lines `token,user,uid[,"group1,group2"]`.
   * Its tokens authenticate as their user (groups plus `system:authenticated`), RBAC-authorized like any user,
   * and pass TokenReviews. Read once at start; an unreadable or malformed file rejects with TokenFileError.
   */
  readonly tokenAuthFile?: string;
  /** Interval between BOOKMARK events on watches that allow them (default 60 s, as the API server roughly does). */
  readonly bookmarkIntervalMs?: number;
  /** Watches without timeoutSeconds end at a random point in [min, 2·min) seconds (default 1800). */
  readonly minRequestTimeoutSeconds?: number;
  /** Compact history older than the previous tick every this many ms, like etcd's 5-minute compaction (0 disables; default 300000). */
  readonly compactIntervalMs?: number;
  /** Keep at most this many changes of history (default 200000). */
  readonly maxHistory?: number;
  /** Delay of state file writes after a change (default 200 ms). */
  readonly persistDebounceMs?: number;
  /** Called for every request after its response (or for watches, when they end). */
  readonly onRequest?: (entry: RequestLogEntry) => void;
}

/** A running simulator. */
export interface KubeSim {
  readonly url: string;
  readonly port: number;
  /** The generated CA in PEM, or null with tls: false. */
  readonly caPem: string | null;
  /** The admin token: every request made with it is allowed, whatever RBAC objects are stored. */
  readonly token: string;
  /**
   * A bearer token for the ServiceAccount `namespace/name`: requests made with it are authorized by the stored
   * Roles, ClusterRoles and bindings, as the API server's RBAC authorizer does.
   */
  issueServiceAccountToken(namespace: string, name: string): string;
  /** Direct object access with API semantics (tests, sample data). */
  readonly objects: ObjectsApi;
  /** The underlying store (resourceVersion, compaction, raw ApiResult operations). */
  readonly store: ObjectStore;
  readonly faults: FaultController;
  /** Every committed change in order: the oracle for tests. */
  readonly changeLog: readonly ChangeLogEntry[];
  kubeconfigYaml(): string;
  writeKubeconfig(file: string): Promise<void>;
  close(): Promise<void>;
}

const bootstrapNamespaces = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

function typeOfObject(obj: { apiVersion?: string; kind?: string }): ResourceType | undefined {
  return findResourceTypeByKind(obj.apiVersion ?? '', obj.kind ?? '');
}

async function createServer(tls: boolean, host: string): Promise<{ server: Server; caPem: string | null }> {
  if (!tls) return { server: createHttpServer(), caPem: null };
  const ca = createCertificateAuthority();
  const names = {
    dns: ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc'],
    ips: [...new Set(['127.0.0.1', host])].filter((h) => /^[\d.]+$/.test(h)),
  };
  const leaf = issueServerCertificate(ca, names, 'kube-apiserver');
  return { server: createHttpsServer({ cert: leaf.certPem + ca.certPem, key: leaf.keyPem }), caPem: ca.certPem };
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** The simulator's objects: restored from the state file when there is one, persisted on every change when asked. */
async function openStore(options: KubeSimOptions): Promise<{
  store: ObjectStore;
  writer: ObjectWriter;
  faults: FaultController;
  objects: ObjectsApi;
  stateWriter: StateFileWriter | null;
}> {
  const store = new ObjectStore({ maxHistory: options.maxHistory });
  // The writer reads the size limit from the fault controller, which needs the store: it is set just below.
  let faults: FaultController | null = null;
  const writer = new ObjectWriter(store, {
    now: () => new Date(),
    newUid: () => randomUUID(),
    nameSuffix: () => randomBytes(4).toString('hex').slice(0, 5),
    maxObjectBytes: () => faults?.maxObjectBytes ?? Number.POSITIVE_INFINITY,
  });
  faults = new FaultController(store);
  const objects = new ObjectsApi(store, writer);
  const saved = options.statePath === undefined ? null : await loadStateFile(options.statePath);
  if (saved !== null) store.restore(saved.objects, saved.resourceVersion, typeOfObject);
  else
    for (const name of bootstrapNamespaces) objects.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  const stateWriter =
    options.statePath === undefined
      ? null
      : new StateFileWriter(options.statePath, options.persistDebounceMs ?? 200, () => ({
          format: 'portolan-kube-sim-state/v1',
          resourceVersion: store.resourceVersion,
          objects: store.allObjects(),
        }));
  if (stateWriter !== null) {
    store.onCommit(() => stateWriter.schedule());
    if (saved === null) stateWriter.schedule();
  }
  return { store, writer, faults, objects, stateWriter };
}

/** Compacts the change history every `everyMs` (0: never) up to what the previous tick had seen. */
function startCompaction(store: ObjectStore, everyMs: number): NodeJS.Timeout | null {
  if (everyMs <= 0) return null;
  let lastTickRv = store.resourceVersion;
  const timer = setInterval(() => {
    store.compact(lastTickRv);
    lastTickRv = store.resourceVersion;
  }, everyMs);
  timer.unref();
  return timer;
}

/** Starts a Kubernetes API simulator (HTTPS + bearer token by default) and resolves once it listens. */
export async function startKubeSim(options: KubeSimOptions = {}): Promise<KubeSim> {
  const host = options.host ?? '127.0.0.1';
  const token = options.token ?? randomBytes(24).toString('base64url');
  const version = options.version ?? '1.31';
  const fileUsers: ReadonlyMap<string, UserInfo> =
    options.tokenAuthFile === undefined ? new Map() : await loadTokenFile(options.tokenAuthFile);
  const { store, writer, faults, objects, stateWriter } = await openStore(options);
  const { server, caPem } = await createServer(options.tls ?? true, host);
  let port = 0;
  const scheme = caPem === null ? 'http' : 'https';
  const tokens = new ServiceAccountTokens();
  const authenticator = new BearerAuthenticator(token, tokens, fileUsers);
  server.requestTimeout = 0;
  server.on(
    'request',
    createRequestListener({
      store,
      writer,
      faults,
      authenticator,
      tokens,
      version,
      onRequest: options.onRequest,
      bookmarkIntervalMs: options.bookmarkIntervalMs ?? 60_000,
      minRequestTimeoutSeconds: options.minRequestTimeoutSeconds ?? 1800,
      nowMs: () => Date.now(),
      serverAddress: () => `${host}:${port}`,
    }),
  );
  port = await listen(server, options.port ?? 0, host);
  const url = `${scheme}://${host}:${port}`;
  const compactTimer = startCompaction(store, options.compactIntervalMs ?? 300_000);
  const kubeconfigYaml = (): string => renderKubeconfig({ server: url, caPem, token });
  return {
    url,
    port,
    caPem,
    token,
    issueServiceAccountToken: (namespace, name) => tokens.issue(namespace, name),
    objects,
    store,
    faults,
    changeLog: store.changeLog,
    kubeconfigYaml,
    writeKubeconfig: (file) => writeFile(file, kubeconfigYaml(), { mode: 0o600 }),
    close: async () => {
      if (compactTimer !== null) clearInterval(compactTimer);
      faults.clear();
      faults.endWatches();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await stateWriter?.flush();
    },
  };
}

/** The resource types the simulator serves (for documentation and tools). */
export const servedResourceTypes: readonly ResourceType[] = resourceTypes;
