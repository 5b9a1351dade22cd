// Test harness (tests and benchmarks only): a simulator, a NATS stream scoped to one test cluster, a watcher wired
// to both, and a reader that decodes what reached the stream.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { busDeclaration, NatsEventBus, type BusDeclaration } from '@portolan/bus';
import { startKubeSim, type KubeSim, type KubeSimOptions } from '@portolan/kube-sim';
import { startFaultProxy, type FaultProxy } from '@portolan/kube-sim/testing';
import {
  fromBinary,
  KubeEventSchema,
  KubeListMarkerSchema,
  WatcherHeartbeatSchema,
  KubeEventType,
  type MessageShape,
} from '@portolan/proto';
import { fleetKeyFromBytes } from '@portolan/secret-envelope';
import { createLogger, createMetricsRegistry, startTracing, type Registry } from '@portolan/telemetry';
import { KubeApiClient } from '../adapters/kube-api-client.ts';
import { JetStreamAckTarget } from '../adapters/jetstream-ack-target.ts';
import { natsConnectivity } from '../adapters/nats-connectivity.ts';
import { ClusterWatcher, type ClusterWatcherOptions } from '../cluster-watcher.ts';
import { WATCHED_KINDS, type StreamTiming, type WatchedKind } from '../core/index.ts';

/** One message read back from the stream, decoded. */
export type StreamRecord =
  | {
      readonly seq: number;
      readonly kind: 'event';
      readonly event: MessageShape<typeof KubeEventSchema>;
      readonly headers: Record<string, string>;
    }
  | { readonly seq: number; readonly kind: 'marker'; readonly marker: MessageShape<typeof KubeListMarkerSchema> }
  | {
      readonly seq: number;
      readonly kind: 'heartbeat';
      readonly heartbeat: MessageShape<typeof WatcherHeartbeatSchema>;
    };

/** A declaration whose streams only hold this test cluster's subjects, so tests can run in parallel. */
export function scopedDeclaration(cluster: string, maxPayloadBytes = 1 << 20): BusDeclaration {
  const d = busDeclaration({ stream: `T_${cluster}`, replicas: 1, maxPayloadBytes });
  return {
    ...d,
    kube: { ...d.kube, subjects: [`kube.${cluster}.>`] },
    pipeline: { ...d.pipeline, subjects: [`plan.${cluster}`, `apply.${cluster}`] },
    consumers: {},
  };
}

/** Reads every message of the kube stream so far, in order. */
export async function readStream(bus: NatsEventBus): Promise<StreamRecord[]> {
  const name = bus.declaration.kube.name;
  const info = await bus.jsm.streams.info(name);
  if (info.state.messages === 0) return [];
  const last = info.state.last_seq;
  const consumer = await bus.js.consumers.get(name);
  const messages = await consumer.consume();
  const out: StreamRecord[] = [];
  try {
    for await (const m of messages) {
      const kindToken = m.subject.split('.')[2];
      if (kindToken === 'heartbeat')
        out.push({ seq: m.seq, kind: 'heartbeat', heartbeat: fromBinary(WatcherHeartbeatSchema, m.data) });
      else if (m.subject.endsWith('.list'))
        out.push({ seq: m.seq, kind: 'marker', marker: fromBinary(KubeListMarkerSchema, m.data) });
      else {
        const headers: Record<string, string> = {};
        for (const k of m.headers?.keys() ?? []) headers[k] = m.headers!.get(k);
        out.push({ seq: m.seq, kind: 'event', event: fromBinary(KubeEventSchema, m.data), headers });
      }
      if (m.seq >= last) break;
    }
  } finally {
    messages.stop();
  }
  return out;
}

/** The events of a read, as `TYPE ns/name@rv` strings (readable assertion failures). */
export function eventLines(records: readonly StreamRecord[]): string[] {
  return records.flatMap((r) =>
    r.kind === 'event'
      ? [`${KubeEventType[r.event.type]} ${r.event.namespace}/${r.event.name}@${r.event.resourceVersion}`]
      : [],
  );
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs` with `what`. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 10_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last === undefined ? '' : `: ${String(last)}`}`,
      );
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** A running simulator + bus + watcher for one test. */
export interface WatcherHarness {
  readonly cluster: string;
  readonly sim: KubeSim;
  readonly bus: NatsEventBus;
  readonly client: KubeApiClient;
  /** The fault proxy between watcher and simulator (connection counts, blackhole), when asked for. */
  readonly proxy: FaultProxy | null;
  /** The metrics registry of the current watcher (each start gets a fresh one). */
  registry: Registry;
  watcher: ClusterWatcher;
  /** Starts (again) a watcher with the harness's options; the previous one must be stopped. */
  startWatcher(overrides?: Partial<ClusterWatcherOptions>): ClusterWatcher;
  read(): Promise<StreamRecord[]>;
  close(): Promise<void>;
}

/** Options of a harness; everything has a test-friendly default. */
export interface HarnessOptions {
  readonly natsUrl: string;
  readonly sim?: KubeSimOptions;
  readonly kinds?: readonly WatchedKind[];
  readonly timing?: Partial<StreamTiming>;
  readonly watcher?: Partial<ClusterWatcherOptions>;
  readonly maxPayloadBytes?: number;
  /** Do not start the watcher yet (seed the simulator first). */
  readonly deferStart?: boolean;
  /** Put the simulator's fault proxy (counts connections, can blackhole them) between the watcher and the simulator. */
  readonly countConnections?: boolean;
}

/** Starts a simulator, opens a scoped stream on `natsUrl`, and (unless deferred) starts a watcher. */
export async function startHarness(options: HarnessOptions): Promise<WatcherHarness> {
  const cluster = `w${randomBytes(4).toString('hex')}`;
  const dir = await mkdtemp(path.join(tmpdir(), 'portolan-watcher-'));
  const sim = await startKubeSim({ bookmarkIntervalMs: 500, compactIntervalMs: 0, ...options.sim });
  const kubeconfig = path.join(dir, 'kubeconfig');
  const proxy = options.countConnections === true ? await startFaultProxy(sim.port) : null;
  await writeFile(
    kubeconfig,
    proxy === null ? sim.kubeconfigYaml() : sim.kubeconfigYaml().replace(sim.url, `https://127.0.0.1:${proxy.port}`),
    { mode: 0o600 },
  );
  const client = await KubeApiClient.fromKubeconfig({ kubeconfig });
  const bus = await NatsEventBus.open(options.natsUrl, scopedDeclaration(cluster, options.maxPayloadBytes), {
    name: `test-${cluster}`,
  });
  const acks = new JetStreamAckTarget(bus);
  const link = natsConnectivity(bus);
  const registry = createMetricsRegistry('watcher-test');
  const tracing = startTracing('watcher-test');
  const logger = createLogger('watcher-test', {
    verbose: process.env['PORTOLAN_TEST_VERBOSE'] === '1',
    destination: process.env['PORTOLAN_TEST_VERBOSE'] === '1' ? process.stderr : devNull(),
  });
  const base: ClusterWatcherOptions = {
    cluster,
    namespaces: 'all-except-kube-system',
    secretLabelSelector: '',
    timing: { stallMs: 3_000, relistMs: 600_000, watchTimeoutSeconds: 300, ...options.timing },
    heartbeatMs: 1_000,
    client,
    bus: acks,
    busConnected: link.connected,
    maxMessageBytes: options.maxPayloadBytes ?? 1 << 20,
    fleetKey: fleetKeyFromBytes(new Uint8Array(32).fill(7), 'test'),
    registry,
    logger,
    tracer: tracing.tracer,
    watcherId: `test-${cluster}`,
    kinds: options.kinds ?? WATCHED_KINDS,
    ...options.watcher,
  };
  const harness: WatcherHarness = {
    cluster,
    sim,
    bus,
    client,
    registry,
    proxy,
    watcher: undefined as unknown as ClusterWatcher,
    startWatcher(overrides = {}) {
      harness.registry = createMetricsRegistry('watcher-test');
      harness.watcher = ClusterWatcher.start({ ...base, registry: harness.registry, ...overrides });
      return harness.watcher;
    },
    read: () => readStream(bus),
    async close() {
      await harness.watcher?.stop();
      acks.close();
      await bus.jsm.streams.delete(bus.declaration.kube.name).catch(() => undefined);
      await bus.jsm.streams.delete(bus.declaration.pipeline.name).catch(() => undefined);
      await bus.close();
      await proxy?.close();
      await sim.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  if (options.deferStart !== true) harness.startWatcher();
  return harness;
}

function devNull(): NodeJS.WritableStream {
  return { write: () => true } as unknown as NodeJS.WritableStream;
}

/** The objects of one kind token as the stream tells them: key → resourceVersion after folding every event in order. */
export function foldEvents(records: readonly StreamRecord[], protoKind: number): Map<string, string> {
  const state = new Map<string, string>();
  for (const r of records) {
    if (r.kind !== 'event' || r.event.kind !== protoKind) continue;
    const key = r.event.namespace === '' ? r.event.name : `${r.event.namespace}/${r.event.name}`;
    if (r.event.type === KubeEventType.DELETED) state.delete(key);
    else state.set(key, r.event.resourceVersion);
  }
  return state;
}

/** The simulator's objects of a kind (outside kube-system): key → resourceVersion. */
export function simState(sim: KubeSim, apiVersion: string, kind: string): Map<string, string> {
  const state = new Map<string, string>();
  for (const o of sim.objects.list(apiVersion, kind)) {
    const m = o.metadata ?? {};
    const ns = m.namespace ?? '';
    if (ns === 'kube-system') continue;
    state.set(ns === '' ? String(m.name) : `${ns}/${String(m.name)}`, m.resourceVersion ?? '');
  }
  return state;
}

/** Sorted `key@rv` lines of a state map, for readable deep-equal failures. */
export function stateLines(state: ReadonlyMap<string, string>): string[] {
  return [...state].map(([k, v]) => `${k}@${v}`).sort();
}

/** Current value of a counter or gauge in the registry (summed over label sets matching `labels`). */
export async function metricValue(
  registry: Registry,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  if (metric === undefined) return 0;
  return (metric.values as { value: number; labels: Record<string, string | number> }[])
    .filter((v) => Object.entries(labels).every(([k, want]) => String(v.labels[k]) === want))
    .reduce((sum, v) => sum + v.value, 0);
}
