// Scale check (not a test): 100k endpoints in 10k EndpointSlices, then watch latency and list cost.
// Run: node_modules/.bin/node packages/kube-sim/bench/scale.ts
import { startKubeSim } from '../src/index.ts';
import { call, openWatch } from '../src/testing/sim-client.ts';

const slices = Number(process.env['SLICES'] ?? 10_000);
const perSlice = 10;
const sim = await startKubeSim({ compactIntervalMs: 0 });
const path = '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices';

function slice(i: number, gen = 0) {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    addressType: 'IPv4',
    metadata: {
      name: `svc-${Math.floor(i / 2)}-${i % 2}`,
      namespace: 'default',
      labels: { 'kubernetes.io/service-name': `svc-${Math.floor(i / 2)}` },
    },
    ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
    endpoints: Array.from({ length: perSlice }, (_, j) => ({
      addresses: [`10.${(i >> 8) & 255}.${i & 255}.${j + gen}`],
      conditions: { ready: true },
    })),
  };
}

async function watchLatency(label: string, existing: number, rounds = 50): Promise<void> {
  const watchers = [0, 1, 2].map(() =>
    openWatch(sim, `${path}?watch=true&resourceVersion=${sim.store.resourceVersion}`),
  );
  const filtered = openWatch(
    sim,
    `${path}?watch=true&resourceVersion=${sim.store.resourceVersion}&labelSelector=kubernetes.io%2Fservice-name%3Dsvc-0`,
  );
  await Promise.all([...watchers, filtered].map((w) => w.status));
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    sim.objects.update(slice(r % existing, r + 1));
    await Promise.all(watchers.map((w) => w.waitFor((l) => l.length >= r + 1)));
    samples.push(performance.now() - t0);
  }
  for (const w of [...watchers, filtered]) w.close();
  samples.sort((a, b) => a - b);
  console.log(
    `${label}: update→3 watchers p50 ${samples[Math.floor(rounds / 2)]?.toFixed(2)} ms, p95 ${samples[Math.floor(rounds * 0.95)]?.toFixed(2)} ms`,
  );
}

if (slices > 0) sim.objects.create(slice(0));
await watchLatency('with 1 slice', 1);
let t = performance.now();
for (let i = 1; i < slices; i++) sim.objects.create(slice(i));
console.log(
  `created ${slices} slices (${slices * perSlice} endpoints) in ${((performance.now() - t) / 1000).toFixed(2)} s; heap ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MiB`,
);
await watchLatency(`with ${slices} slices`, slices);
t = performance.now();
const full = await call(sim, 'GET', path);
console.log(`full list of ${full.body.items.length} slices: ${(performance.now() - t).toFixed(0)} ms`);
t = performance.now();
let pages = 0;
let token = '';
do {
  const page = await call(sim, 'GET', `${path}?limit=500${token === '' ? '' : `&continue=${token}`}`);
  token = page.body.metadata.continue ?? '';
  pages++;
} while (token !== '');
console.log(`paginated list (limit 500): ${pages} pages in ${(performance.now() - t).toFixed(0)} ms`);
await sim.close();
