// Planner benchmark (not a test): events/s of the incremental core at 1k and 10k Services with 10-endpoint
// slices, bytes stored per one-endpoint change, cold-start fold rate and the from-scratch baseline.
// Run: node_modules/.bin/node services/planner/bench/planner-bench.ts [sizes...]   (default: 1000 10000)
// The machine is shared: rates are per CPU-second of this process (process.cpuUsage: what one core sustains,
// whatever else runs), measured in ROUNDS rounds and reported as best / median; wall-clock medians are shown too.
import { InternalError } from '@portolan/errors';
import { Planner } from '../src/core/planner.ts';
import { planFromScratch } from '../src/core/plan-from-scratch.ts';
import * as f from '../src/testing/fixtures.ts';
import type { KubeWatchEvent } from '@portolan/kube-model';

const sizes = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => n > 0);
const SIZES = sizes.length > 0 ? sizes : [1000, 10000];
const ENDPOINTS = 10;
const ROUNDS = 7;
const PER_ROUND = 4000;
// Two appliances; each Ingress (and so each Service) belongs to one of them, as classes split a real fleet.
const config = f.fleet(
  [{ name: 'c1' }],
  [
    f.appliance('edge', 'haproxy'),
    f.appliance('vtm', 'vtm', { ingressControllers: ['pulsesecure.net/vtm-ingress-controller'] }),
  ],
);

function endpoints(i: number, down: number): f.Ep[] {
  return Array.from({ length: ENDPOINTS }, (_, j): f.Ep => [
    `10.${(i >> 8) & 255}.${i & 255}.${j + 1}`,
    j !== down,
    true,
    false,
    `node-${j}`,
  ]);
}

function world(n: number): KubeWatchEvent[] {
  const events: KubeWatchEvent[] = [
    ...f.added(
      'c1',
      f.ingressClass('portolan', 'portolan.dev/ingress-controller'),
      f.ingressClass('vtm', 'pulsesecure.net/vtm-ingress-controller'),
    ),
  ];
  for (let i = 0; i < n; i++) {
    const ns = `team-${i % 50}`;
    const vtm = i % 2 === 1;
    events.push(
      ...f.added(
        'c1',
        f.service(`svc-${i}`, [['http', 80]], { namespace: ns }),
        f.slice(`svc-${i}-a`, `svc-${i}`, 'http', 8080, endpoints(i, -1), { namespace: ns }),
        f.ingress({
          name: `ing-${i}`,
          namespace: ns,
          className: vtm ? 'vtm' : 'portolan',
          annotations: vtm ? { 'vtm.pulsesecure.net/ip-address': `10.200.${(i >> 8) & 255}.${i & 255}` } : {},
          rules: [f.rule(`h${i}.example.com`, ['/', 'Prefix', `svc-${i}`, 'http'])],
        }),
      ),
    );
  }
  return events;
}

/** One-endpoint changes: a random Service's slice with one endpoint not ready (deterministic PRNG, mulberry32). */
function changes(n: number, count: number, seed0: number): KubeWatchEvent[] {
  let seed = seed0;
  const rnd = (m: number): number => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) % m;
  };
  return Array.from({ length: count }, () => {
    const i = rnd(n);
    return {
      cluster: 'c1',
      kind: 'EndpointSlice' as const,
      type: 'MODIFIED' as const,
      object: f.slice(`svc-${i}-a`, `svc-${i}`, 'http', 8080, endpoints(i, rnd(ENDPOINTS)), {
        namespace: `team-${i % 50}`,
      }),
    };
  });
}

const fmt = (x: number): string => Math.round(x).toLocaleString('en-US');
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function measure(n: number): void {
  const initial = world(n);
  const p = new Planner(config);
  let t = performance.now();
  for (const e of initial) p.applyEvent(e);
  p.planDirty();
  const coldMs = performance.now() - t;
  t = performance.now();
  const scratch = planFromScratch(p.world, config);
  const scratchMs = performance.now() - t;
  if (scratch.get('edge')!.root !== p.rootOf('edge') || scratch.get('vtm')!.root !== p.rootOf('vtm'))
    throw new InternalError('PLANNER_BENCH_ROOTS_DIFFER', 'incremental and from-scratch roots differ');

  const perEvent: number[] = [];
  const batched: number[] = [];
  const perEventWall: number[] = [];
  const batchedWall: number[] = [];
  const cpu = (): number => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
  };
  let bytes = 0;
  let maxBytes = 0;
  let snapshots = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const a = changes(n, PER_ROUND, 1000 + round);
    let c = cpu();
    t = performance.now();
    for (const e of a) {
      p.applyEvent(e);
      for (const plan of p.planDirty()) {
        let b = 0;
        for (const piece of plan.pieces.values()) b += piece.length;
        bytes += b;
        maxBytes = Math.max(maxBytes, b);
        snapshots++;
      }
    }
    perEventWall.push(PER_ROUND / ((performance.now() - t) / 1000));
    perEvent.push(PER_ROUND / (cpu() - c));
    const b = changes(n, PER_ROUND, 5000 + round);
    c = cpu();
    t = performance.now();
    for (let i = 0; i < b.length; i++) {
      p.applyEvent(b[i]!);
      if (i % 100 === 99) for (const plan of p.planDirty()) void plan.pieces;
    }
    for (const plan of p.planDirty()) void plan.pieces;
    batchedWall.push(PER_ROUND / ((performance.now() - t) / 1000));
    batched.push(PER_ROUND / (cpu() - c));
  }
  // Ingress events: an edit of routes only (no re-allocation) and a new Ingress joining the shared HAProxy
  // listener (its address group is re-allocated: linear in the Ingresses sharing it, with small constants).
  const ingressRate = (make: (k: number) => KubeWatchEvent): number => {
    const c = cpu();
    for (let k = 0; k < 300; k++) {
      p.applyEvent(make(k));
      for (const plan of p.planDirty()) void plan.pieces;
    }
    return 300 / (cpu() - c);
  };
  const edits = ingressRate((k) => {
    const i = (k * 2) % n;
    return {
      cluster: 'c1',
      kind: 'Ingress',
      type: 'MODIFIED',
      object: f.ingress({
        name: `ing-${i}`,
        namespace: `team-${i % 50}`,
        rules: [
          f.rule(`h${i}.example.com`, ['/', 'Prefix', `svc-${i}`, 'http'], [`/v${k}`, 'Prefix', `svc-${i}`, 'http']),
        ],
      }),
    };
  });
  const joins = ingressRate((k) => ({
    cluster: 'c1',
    kind: 'Ingress',
    type: 'ADDED',
    object: f.ingress({
      name: `new-${k}`,
      namespace: 'team-0',
      created: f.at(10),
      rules: [f.rule(`new${k}.example.com`, ['/', 'Prefix', 'svc-0', 'http'])],
    }),
  }));

  console.log(`${n} Services, ${n * ENDPOINTS} endpoints (${initial.length} objects, 2 appliances)`);
  console.log(
    `  cold start (fold + first plan):        ${coldMs.toFixed(0)} ms = ${fmt(initial.length / (coldMs / 1000))} events/s`,
  );
  console.log(
    `  from-scratch plan of the world:        ${scratchMs.toFixed(0)} ms (the cost of one event without incremental planning)`,
  );
  console.log(
    `  one-endpoint changes, plan each:       best ${fmt(Math.max(...perEvent))} / median ${fmt(median(perEvent))} events per CPU-second (wall median ${fmt(median(perEventWall))}/s; ${snapshots} snapshots)`,
  );
  console.log(
    `  one-endpoint changes, plan per 100:    best ${fmt(Math.max(...batched))} / median ${fmt(median(batched))} events per CPU-second (wall median ${fmt(median(batchedWall))}/s)`,
  );
  console.log(
    `  bytes stored per one-endpoint change:  avg ${fmt(bytes / Math.max(snapshots, 1))} B, max ${maxBytes} B`,
  );
  console.log(`  Ingress route edits, plan each:        ${fmt(edits)} events per CPU-second`);
  console.log(
    `  new Ingress on the shared listener:    ${fmt(joins)} events per CPU-second (${Math.ceil(n / 2)} Ingresses share it)`,
  );
}

console.log(`node ${process.version}; ${ROUNDS} rounds of ${PER_ROUND} changes per size`);
for (const n of SIZES) measure(n);
