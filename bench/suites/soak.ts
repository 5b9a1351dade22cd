// `soak`: the whole pipeline under steady churn for an hour, watching whether memory keeps growing.
import type { KubeObject } from '@portolan/kube-sim';
import { summarize, type Benchmark, type Figure } from '../figure.ts';
import { SlotWatch, waitServed } from '../support/haproxy-probe.ts';
import { createPipeline, type Pipeline } from '../support/pipeline.ts';
import { backendsByService, ChangeSequence, waitCaughtUp } from '../support/pipeline-phases.ts';
import { procSample } from '../support/processes.ts';
import { endpointSlice, hostOf, ingress, prng, service, worldObjects, ENDPOINTS_PER_SLICE } from '../support/world.ts';

const MiB = 1024 * 1024;
const SERVICES = ['watcher', 'planner', 'applier-a', 'applier-b'] as const;
/** Endpoint changes per second, every second of the soak. */
const ENDPOINT_RATE = 10;
/** A new host with its Service goes live, and the one added two periods before goes away, once a period. */
const STRUCTURAL_PERIOD_MS = 60_000;
const SAMPLE_PERIOD_MS = 60_000;

/** How long and how large: `PORTOLAN_SOAK_MINUTES` (default 60; 3 with `--quick`), `PORTOLAN_SOAK_SERVICES`. */
function soakSize(quick: boolean): { minutes: number; n: number; warmup: number } {
  const minutes = Number(process.env['PORTOLAN_SOAK_MINUTES'] ?? (quick ? 3 : 60));
  const n = Number(process.env['PORTOLAN_SOAK_SERVICES'] ?? (quick ? 1000 : 10_000));
  // Warm-up: the first sixth (10 min of an hour), at least one sample.
  return { minutes, n, warmup: Math.max(1, Math.round(minutes / 6)) };
}

/**
 * An hour of churn at 10k Services (10 endpoint changes a second, a host added and one removed every minute) on the
 * pipeline's real processes. Every minute it records each service's RSS; the figures are each service's and the
 * sum's growth after warm-up: the median of the last third of the post-warm-up samples over the median of the first
 * third (medians, so one sample taken during a collection does not decide), goal ≤ 5 %. At the end a last endpoint
 * change must still reach HAProxy, so a pipeline that stalled under the churn fails the run instead of looking flat.
 */
export const soakBench: Benchmark = {
  name: 'soak',
  async run({ quick, log }) {
    const { minutes, n, warmup } = soakSize(quick);
    const p = await createPipeline({ objects: [] });
    try {
      await start(p, n, log);
      const samples = await churn(p, n, minutes, log);
      return figures(samples.slice(warmup), minutes, n, warmup);
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${p.logs()}`, { cause: e });
    } finally {
      await p.stop();
    }
  },
};

async function start(p: Pipeline, n: number, log: (line: string) => void): Promise<void> {
  const probe = p.echo.backends[0]!;
  for (const o of [
    ...worldObjects(n),
    service(n),
    endpointSlice(n, 0, { addresses: [probe.address], port: probe.port }),
    ingress(n),
  ])
    p.sim.objects.create(o);
  p.startAll();
  await waitServed(p.httpPort, hostOf(n), probe.address, 300_000, { periodMs: 50 });
  await waitCaughtUp(p);
  log(`soak: ${n} Services, ${n * ENDPOINTS_PER_SLICE} endpoints served; churn starts`);
}

type Sample = ReadonlyMap<string, number>;

/** Runs the churn for `minutes`, sampling RSS once a minute; returns the samples. */
async function churn(p: Pipeline, n: number, minutes: number, log: (line: string) => void): Promise<Sample[]> {
  const backends = await backendsByService(p.haproxy.runtimeSocket, n);
  const changes = new ChangeSequence(n, prng(n));
  const samples: Sample[] = [];
  const started = performance.now();
  const end = started + minutes * 60_000;
  let nextChange = started;
  let nextStructural = started + STRUCTURAL_PERIOD_MS;
  let nextSample = started + SAMPLE_PERIOD_MS;
  let structural = 0;
  let last = changes.next();
  while (performance.now() < end) {
    const now = performance.now();
    if (now >= nextChange) {
      last = changes.next();
      p.sim.objects.update(endpointSlice(last.i, last.gen));
      nextChange += 1000 / ENDPOINT_RATE;
    }
    if (now >= nextStructural) {
      structuralChange(p, n + 1 + structural++);
      nextStructural += STRUCTURAL_PERIOD_MS;
    }
    if (now >= nextSample) {
      const sample = rssNow(p);
      samples.push(sample);
      log(
        `soak minute ${samples.length}: RSS ${[...sample].map(([s, b]) => `${s} ${(b / MiB).toFixed(0)}`).join(', ')} MiB`,
      );
      nextSample += SAMPLE_PERIOD_MS;
    }
    await new Promise((r) => setTimeout(r, Math.max(0, Math.min(nextChange, nextStructural, nextSample) - now)));
  }
  const watch = new SlotWatch(p.haproxy.runtimeSocket);
  try {
    await watch.waitReady(backends.get(last.i)!, last.address, 120_000, 5);
  } finally {
    await watch.close();
  }
  samples.push(rssNow(p));
  log(`soak: ${minutes} min done, ${structural} hosts added; the last endpoint change reached HAProxy`);
  return samples;
}

/** Adds host k with its Service, and removes host k − 2 (so the world's size stays level). */
function structuralChange(p: Pipeline, k: number): void {
  const echo = p.echo.backends[(k % (p.echo.backends.length - 1)) + 1]!;
  const name = `soak-${k}`;
  p.sim.objects.create(service(k, name));
  p.sim.objects.create(endpointSlice(k, 0, { name, addresses: [echo.address], port: echo.port }));
  p.sim.objects.create(ingress(k, { name, host: `${name}.bench.test`, service: name }));
  const old = k - 2;
  const gone = ingress(old, { name: `soak-${old}`, host: `soak-${old}.bench.test`, service: `soak-${old}` });
  if (p.sim.objects.get(ref(gone)) === undefined) return;
  p.sim.objects.delete(ref(gone));
  p.sim.objects.delete(ref(service(old, `soak-${old}`)));
  p.sim.objects.delete(ref(endpointSlice(old, 0, { name: `soak-${old}` })));
}

const ref = (o: KubeObject) => ({
  apiVersion: o.apiVersion ?? '',
  kind: o.kind ?? '',
  namespace: o.metadata?.namespace ?? '',
  name: o.metadata?.name ?? '',
});

function rssNow(p: Pipeline): Sample {
  const out = new Map<string, number>();
  let sum = 0;
  for (const s of SERVICES) {
    const pid = p.processes.get(s)?.pid;
    const rss = pid === undefined ? 0 : (procSample(pid)?.rss ?? 0);
    out.set(s, rss);
    sum += rss;
  }
  out.set('control plane', sum);
  return out;
}

function figures(after: readonly Sample[], minutes: number, n: number, warmup: number): Figure[] {
  if (after.length < 3) throw new Error(`too few samples after the ${warmup}-minute warm-up: ${after.length}`);
  const third = Math.max(1, Math.floor(after.length / 3));
  const at = `over ${minutes} min of churn @${n >= 1000 ? `${n / 1000}k` : n} Services`;
  return [...after[0]!.keys()].flatMap((s): Figure[] => {
    const first = summarize(after.slice(0, third).map((x) => x.get(s)!)).median;
    const lastThird = summarize(after.slice(-third).map((x) => x.get(s)!)).median;
    return [
      {
        name: `RSS growth after a ${warmup}-min warm-up: ${s} ${at}`,
        unit: '%',
        value: ((lastThird - first) / first) * 100,
        goal: '≤ 5',
      },
      {
        name: `RSS, median of the last third (baseline: of the first third after warm-up): ${s} ${at}`,
        unit: 'MiB',
        value: lastThird / MiB,
        baseline: first / MiB,
        ratio: first / lastThird,
      },
    ];
  });
}
