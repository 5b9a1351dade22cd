// Measurement phases on a running pipeline (bench/support/pipeline.ts): endpoint changes, structural changes, a burst
// for CPU cost, the same endpoint change applied by a reload, and `portolan replay --verify`.
import { HaproxyRuntimeClient } from '@portolan/haproxy-driver';
import { createCertificateAuthority, issueServerCertificate } from '@portolan/kube-sim';
import { reloadCount, SlotWatch, waitServed } from './haproxy-probe.ts';
import type { Pipeline } from './pipeline.ts';
import { procSample, waitUntil } from './processes.ts';
import { endpointAddress, endpointSlice, ingress, namespaceOf, service, tlsSecret } from './world.ts';

/** The endpoint-latency goal (p99): rounds slower than this are counted and logged with their time of day. */
export const SLOW_ROUND_MS = 25;

/** Runtime API poll period while waiting for a change: the resolution of the latency figures, and cheap enough
 * (a few hundred tiny commands per second) not to slow the pipeline it observes. */
const POLL_MS = 2;

/** Which Service changes next and to which generation: a deterministic sequence that always moves an address. */
export class ChangeSequence {
  readonly #n: number;
  readonly #rnd: (m: number) => number;
  readonly #gens = new Map<number, number>();
  #gen = 0;

  constructor(n: number, rnd: (m: number) => number) {
    this.#n = n;
    this.#rnd = rnd;
  }

  /** The next change: Service index, its new generation and endpoint 0's new address. */
  next(): { i: number; gen: number; address: string } {
    const i = this.#rnd(this.#n);
    const before = endpointAddress(i, 0, this.#gens.get(i) ?? 0);
    let gen = ++this.#gen;
    while (endpointAddress(i, 0, gen) === before) gen = ++this.#gen;
    this.#gens.set(i, gen);
    return { i, gen, address: endpointAddress(i, 0, gen) };
  }
}

/** Backend name of every Service of the world, keyed by Service index (from one full `show servers state`). */
export async function backendsByService(runtimeSocket: string, n: number): Promise<Map<number, string>> {
  const runtime = new HaproxyRuntimeClient(runtimeSocket, { timeoutMs: 60_000 });
  try {
    const byAddress = new Map<string, string>();
    for (const line of (await runtime.command('show servers state')).split('\n')) {
      const f = line.split(' ');
      if (f.length > 6 && !line.startsWith('#')) byAddress.set(f[4]!, f[1]!);
    }
    const out = new Map<number, string>();
    // Endpoint 1 never moves, so its address names the Service's backend.
    for (let i = 0; i < n; i++) {
      const b = byAddress.get(endpointAddress(i, 1));
      if (b !== undefined) out.set(i, b);
    }
    return out;
  } finally {
    await runtime.close();
  }
}

/** Waits until the leader has recorded an apply of the appliance's head snapshot (the applier is idle). */
export async function waitCaughtUp(p: Pipeline, timeoutMs = 300_000): Promise<void> {
  const db = p.db.db;
  await waitUntil(
    'the applier to apply the head snapshot',
    async () => {
      const head = await db
        .selectFrom('snapshot_heads')
        .select('snapshot_id')
        .where('appliance', '=', p.appliance)
        .executeTakeFirst();
      const last = await db
        .selectFrom('applies')
        .select('snapshot_id')
        .where('appliance', '=', p.appliance)
        .where('status', 'in', ['succeeded', 'noop'])
        .orderBy('id', 'desc')
        .executeTakeFirst();
      return head !== undefined && last !== undefined && String(head.snapshot_id) === String(last.snapshot_id);
    },
    timeoutMs,
    5,
  );
}

/**
 * Where a cold start's time went, from the services' own rows, in seconds after `startedAt` (wall-clock ms): the
 * watcher's first and last event of the initial lists, the planner's first snapshot, the leader's first apply.
 */
export async function coldStartStages(p: Pipeline, startedAt: number): Promise<string> {
  const db = p.db.db;
  const snapshot = await db
    .selectFrom('snapshots')
    .select(['id', 'created_at', 'last_event_seq'])
    .where('appliance', '=', p.appliance)
    .orderBy('id')
    .executeTakeFirst();
  if (snapshot === undefined) return 'no snapshot';
  const events = await db
    .selectFrom('events')
    .select((eb) => [
      eb.fn.min('received_at').as('first'),
      eb.fn.max('received_at').as('last'),
      eb.fn.countAll().as('n'),
    ])
    .where('seq', '<=', snapshot.last_event_seq)
    .executeTakeFirstOrThrow();
  const apply = await db
    .selectFrom('applies')
    .select(['started_at', 'finished_at'])
    .where('appliance', '=', p.appliance)
    .orderBy('id')
    .executeTakeFirst();
  const at = (d: unknown): string =>
    d === null || d === undefined ? '?' : ((new Date(d as string).getTime() - startedAt) / 1000).toFixed(1);
  return `first event received ${at(events.first)} s, last of ${String(events.n)} initial messages ${at(events.last)} s, first snapshot committed ${at(snapshot.created_at)} s, first apply started ${at(apply?.started_at)} s and recorded ${at(apply?.finished_at)} s`;
}

/** Latency samples of one-endpoint changes, and the reloads HAProxy did meanwhile. */
export interface EndpointRounds {
  /** Wall-clock time (UTC, ms) and latency of each round over SLOW_ROUND_MS, to match with the services' logs. */
  readonly slowAt: string[];
  /** From the simulator's write to the new address being a ready slot (ms). */
  readonly fromWrite: number[];
  /** From the watcher receiving the event (its archived observedAt, ms precision) to the same instant (ms). */
  readonly fromReceived: number[];
  readonly reloads: number;
  /** Per round, where the time went (wall-clock ms, from the rows the services wrote): see `stageBreakdown`. */
  readonly stages: StageTimes[];
}

/** One round's stages: event received → snapshot committed → apply started → seen in HAProxy → apply recorded. */
export interface StageTimes {
  readonly plan: number;
  readonly pickUp: number;
  readonly apply: number;
  readonly record: number;
}

/** Reads the stage instants of the round whose event is the newest archived one of `objectKey`. */
async function stagesOf(p: Pipeline, objectKey: string, seenAt: number): Promise<StageTimes | null> {
  const db = p.db.db;
  const event = await db
    .selectFrom('events')
    .select(['seq', 'received_at'])
    .where('kind', '=', 'EndpointSlice')
    .where('object_key', '=', objectKey)
    .orderBy('seq', 'desc')
    .executeTakeFirst();
  if (event === undefined) return null;
  const snapshot = await db
    .selectFrom('snapshots')
    .select(['id', 'created_at'])
    .where('appliance', '=', p.appliance)
    .where('last_event_seq', '>=', event.seq)
    .orderBy('id')
    .executeTakeFirst();
  if (snapshot === undefined) return null;
  const apply = await db
    .selectFrom('applies')
    .select(['started_at', 'finished_at'])
    .where('snapshot_id', '=', snapshot.id)
    .orderBy('id')
    .executeTakeFirst();
  if (apply === undefined) return null;
  const ms = (d: Date | string): number => new Date(d).getTime();
  return {
    plan: ms(snapshot.created_at) - ms(event.received_at),
    pickUp: ms(apply.started_at) - ms(snapshot.created_at),
    apply: seenAt - ms(apply.started_at),
    record: ms(apply.finished_at) - seenAt,
  };
}

/**
 * One-endpoint changes, one at a time: write the EndpointSlice with endpoint 0 moved, poll the Runtime API every
 * millisecond for the new address as a ready slot, then wait until the applier recorded the apply (so every round
 * starts with an idle pipeline).
 */
export async function endpointRounds(
  p: Pipeline,
  backends: ReadonlyMap<number, string>,
  changes: ChangeSequence,
  rounds: number,
): Promise<EndpointRounds> {
  const watch = new SlotWatch(p.haproxy.runtimeSocket);
  const fromWrite: number[] = [];
  const fromReceived: number[] = [];
  const slowAt: string[] = [];
  const stages: StageTimes[] = [];
  const reloadsBefore = await reloadCount(p.haproxy.masterSocket);
  try {
    for (let r = 0; r < rounds; r++) {
      const { i, gen, address } = changes.next();
      const backend = backends.get(i);
      if (backend === undefined) throw new Error(`no backend known for Service ${i}`);
      const t0 = performance.now();
      p.sim.objects.update(endpointSlice(i, gen));
      const t1 = await watch.waitReady(backend, address, 300_000, POLL_MS);
      fromWrite.push(t1 - t0);
      const received = await p.db.db
        .selectFrom('events')
        .select('received_at')
        .where('kind', '=', 'EndpointSlice')
        .where('object_key', '=', `${namespaceOf(i)}/svc-${i}-a`)
        .orderBy('seq', 'desc')
        .executeTakeFirst();
      if (received !== undefined)
        fromReceived.push(performance.timeOrigin + t1 - new Date(received.received_at).getTime());
      await waitCaughtUp(p);
      const st = await stagesOf(p, `${namespaceOf(i)}/svc-${i}-a`, performance.timeOrigin + t1);
      if (st !== null) stages.push(st);
      // Each slow round with its stages (write → received is the rest), to tell a planner, pickup or apply stall apart.
      if (t1 - t0 > SLOW_ROUND_MS) {
        const where =
          st === null ? '' : ` (committed ${st.plan} / started ${st.pickUp} / seen ${st.apply.toFixed(0)} ms)`;
        slowAt.push(
          `${new Date(performance.timeOrigin + t1).toISOString().slice(11, 23)} ${(t1 - t0).toFixed(0)} ms${where}`,
        );
      }
      await new Promise((res) => setTimeout(res, 10));
    }
  } finally {
    await watch.close();
  }
  return {
    fromWrite,
    fromReceived,
    stages,
    slowAt,
    reloads: (await reloadCount(p.haproxy.masterSocket)) - reloadsBefore,
  };
}

/**
 * A structural change: a new Service with one endpoint (an echo backend) and a new Ingress for a new host, optionally
 * TLS. `reloads` counts the reloads between a change and its host being served (the critical path); after each round
 * the tidy reload the applier runs once things are quiet is awaited (`tidyMs`: from served to that reload seen), so
 * the next round starts from a tidy HAProxy.
 */
export async function structuralRounds(
  p: Pipeline,
  firstIndex: number,
  rounds: number,
  tls: boolean,
): Promise<{ ms: number[]; reloads: number; tidyMs: number[] }> {
  const ca = tls ? createCertificateAuthority('portolan-bench-ca') : null;
  const ms: number[] = [];
  const tidyMs: number[] = [];
  let reloads = 0;
  for (let k = 0; k < rounds; k++) {
    const idx = firstIndex + k;
    const name = `${tls ? 'tls' : 'new'}-${idx}`;
    const host = `${name}.bench.test`;
    const echo = p.echo.backends[(idx % (p.echo.backends.length - 1)) + 1]!;
    const objects = [service(idx, name), endpointSlice(idx, 0, { name, addresses: [echo.address], port: echo.port })];
    if (ca !== null) {
      const leaf = issueServerCertificate(ca, { dns: [host], ips: [] }, host);
      objects.push(tlsSecret(idx, `${name}-cert`, leaf.certPem + ca.certPem, leaf.keyPem));
    }
    objects.push(ingress(idx, { name, host, service: name, ...(ca === null ? {} : { tlsSecret: `${name}-cert` }) }));
    const before = await reloadCount(p.haproxy.masterSocket);
    const tidiedBefore = await lastTidyApply(p);
    const t0 = performance.now();
    for (const o of objects) p.sim.objects.create(o);
    const t1 = await waitServed(tls ? p.httpsPort : p.httpPort, host, echo.address, 120_000, { https: tls });
    ms.push(t1 - t0);
    const served = await reloadCount(p.haproxy.masterSocket);
    reloads += served - before;
    await waitCaughtUp(p);
    if (served === before) tidyMs.push((await waitTidyApplied(p, served, tidiedBefore, 120_000)) - t1);
  }
  return { ms, reloads, tidyMs };
}

/** The id of the leader's newest apply with trigger `tidy` ('0' when none). */
async function lastTidyApply(p: Pipeline): Promise<string> {
  const row = await p.db.db
    .selectFrom('applies')
    .select((eb) => eb.fn.max('id').as('id'))
    .where('appliance', '=', p.appliance)
    .where('trigger', '=', 'tidy')
    .executeTakeFirst();
  return String(row?.id ?? '0');
}

/**
 * Waits until HAProxy's master has counted more reloads than `count` and the leader has recorded the tidy apply that
 * made it (so the next round starts on a quiet appliance); the instant it saw both. While the master re-executes
 * itself for the reload (seconds at 10k backends) its socket refuses connections: that is "not yet".
 */
async function waitTidyApplied(p: Pipeline, count: number, tidiedBefore: string, timeoutMs: number): Promise<number> {
  await waitUntil(
    'the tidy reload',
    async () => ((await reloadCount(p.haproxy.masterSocket).catch(() => count)) > count ? true : null),
    timeoutMs,
    50,
  );
  return waitUntil(
    'the tidy apply recorded',
    async () => ((await lastTidyApply(p)) !== tidiedBefore ? performance.now() : null),
    timeoutMs,
    50,
  );
}

/** CPU seconds each service spent on a burst of endpoint changes written back to back, and how long it took. */
export async function burst(
  p: Pipeline,
  backends: ReadonlyMap<number, string>,
  changes: ChangeSequence,
  count: number,
): Promise<{ seconds: number; cpu: Map<string, number> }> {
  const before = new Map([...p.processes].map(([name, proc]) => [name, procSample(proc.pid)?.cpuSeconds ?? 0]));
  const watch = new SlotWatch(p.haproxy.runtimeSocket);
  const t0 = performance.now();
  let last = changes.next();
  p.sim.objects.update(endpointSlice(last.i, last.gen));
  for (let k = 1; k < count; k++) {
    last = changes.next();
    p.sim.objects.update(endpointSlice(last.i, last.gen));
  }
  try {
    // Events are folded in order, so the last change served means every earlier one was planned.
    await watch.waitReady(backends.get(last.i)!, last.address, 300_000, 5);
  } finally {
    await watch.close();
  }
  const seconds = (performance.now() - t0) / 1000;
  await waitCaughtUp(p);
  const cpu = new Map(
    [...p.processes].map(([name, proc]) => [name, (procSample(proc.pid)?.cpuSeconds ?? 0) - (before.get(name) ?? 0)]),
  );
  return { seconds, cpu };
}
