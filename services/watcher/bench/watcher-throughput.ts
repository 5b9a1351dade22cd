// Benchmark (not a test): `node services/watcher/bench/watcher-throughput.ts [--services 10000] [--endpoints-per-slice 10]
// [--churn 5000] [--node-flags "..."]`. Loads 10k Services and 10k EndpointSlices (100k endpoints) into the simulator,
// runs the real watcher process (`node main.ts`, which re-execs itself into the tuned runtime exactly as `portolan up`,
// docker-compose and `portolan watch` run it) against it and a private nats-server, and reports events/s (wall and
// per watcher CPU-second) for the initial sync and for endpoint churn, plus the watcher's RSS and its kernel
// high-water mark VmHWM (goal ≤ 150 MiB). `PORTOLAN_WATCHER_RUNTIME=plain` in the environment measures the untuned
// process for comparison; `--node-flags` are given to Node before main.ts (they override the tuned flags).
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startKubeSim } from '@portolan/kube-sim';
import { startPrivateNats } from '../src/testing/private-nats.ts';
import { endpointSlice, namespace, service } from '../src/testing/sample-objects.ts';
import { waitFor } from '../src/testing/watcher-harness.ts';

const { values } = parseArgs({
  options: {
    'node-flags': { type: 'string', default: '' },
    services: { type: 'string', default: '10000' },
    'endpoints-per-slice': { type: 'string', default: '10' },
    churn: { type: 'string', default: '5000' },
  },
});
const services = Number(values.services);
const perSlice = Number(values['endpoints-per-slice']);
const churn = Number(values.churn);
const nodeFlags = values['node-flags'] === '' ? [] : values['node-flags'].split(' ');
const root = path.resolve(import.meta.dirname, '..', '..', '..');

const dir = await mkdtemp(path.join(tmpdir(), 'portolan-watcher-bench-'));
const sim = await startKubeSim({ bookmarkIntervalMs: 10_000, compactIntervalMs: 0 });
const nats = await startPrivateNats();
let child: ReturnType<typeof spawn> | undefined;
try {
  const namespaces = 20;
  for (let n = 0; n < namespaces; n++) sim.objects.create(namespace(`ns${n}`));
  const t0 = performance.now();
  for (let i = 0; i < services; i++) {
    sim.objects.create(service(`ns${i % namespaces}`, `svc${i}`));
    sim.objects.create(endpointSlice(`ns${i % namespaces}`, `svc${i}-a`, `svc${i}`, perSlice, i * perSlice));
  }
  log(
    `loaded ${services} Services and ${services} EndpointSlices (${services * perSlice} endpoints) in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );

  await sim.writeKubeconfig(path.join(dir, 'kubeconfig'));
  await writeFile(path.join(dir, 'fleet.key'), 'ab'.repeat(32));
  await writeFile(
    path.join(dir, 'fleet.yaml'),
    `version: 1
clusters:
  - name: bench
    kubeconfig: kubeconfig
appliances:
  - name: lb1
    driver: haproxy
    haproxy: { configDir: ./haproxy, masterSocket: ./haproxy/master.sock }
bus: { url: "${nats.url}", stream: BENCH }
store: { url: "postgres://unused" }
leases: { redisUrl: "redis://unused" }
secrets: { keyFile: fleet.key }
`,
  );
  const started = performance.now();
  child = spawn(
    path.join(root, 'node_modules', '.bin', 'node'),
    [
      ...nodeFlags,
      path.join(root, 'services', 'watcher', 'src', 'main.ts'),
      '--config',
      path.join(dir, 'fleet.yaml'),
      '--cluster',
      'bench',
      '--health-port',
      '0',
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const pid = child.pid!;
  let healthPort = 0;
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    for (const l of d.split('\n'))
      if (l.includes('"watcher started"')) healthPort = Number((JSON.parse(l) as { healthPort: number }).healthPort);
  });
  await waitFor('health port', () => (healthPort > 0 ? true : undefined), 30_000);
  const metric = async (name: string): Promise<number> => {
    const text = await (await fetch(`http://127.0.0.1:${healthPort}/metrics`)).text();
    return text
      .split('\n')
      .filter((l) => l.startsWith(name))
      .reduce((s, l) => s + Number(l.split(' ').pop()), 0);
  };
  const objects = 2 * services;
  let peakRss = 0;
  const sampler = setInterval(() => void rss(pid).then((r) => (peakRss = Math.max(peakRss, r.rss))), 200);
  await waitFor(
    'initial sync published',
    async () =>
      (await metric('portolan_watcher_published_total{kind="endpointslice",type="event"')) +
        (await metric('portolan_watcher_published_total{kind="service",type="event"')) >=
        objects && (await metric('portolan_watcher_publish_pending_messages')) === 0
        ? true
        : undefined,
    600_000,
    200,
  );
  const syncSeconds = (performance.now() - started) / 1000;
  const afterSync = await rss(pid);
  const syncCpu = afterSync.cpuSeconds;
  log(
    `initial sync: ${objects} events in ${syncSeconds.toFixed(1)} s = ${Math.round(objects / syncSeconds)} events/s (includes process start); watcher CPU ${syncCpu.toFixed(2)} s = ${Math.round(objects / syncCpu)} events per CPU-second; RSS ${mib(afterSync.rss)} MiB`,
  );

  const before = await metric('portolan_watcher_published_total{kind="endpointslice",type="event"');
  const churnStart = performance.now();
  for (let i = 0; i < churn; i++)
    sim.objects.update(endpointSlice(`ns${i % namespaces}`, `svc${i}-a`, `svc${i}`, perSlice, i * perSlice + 1));
  await waitFor(
    'churn published',
    async () =>
      (await metric('portolan_watcher_published_total{kind="endpointslice",type="event"')) - before >= churn &&
      (await metric('portolan_watcher_publish_pending_messages')) === 0
        ? true
        : undefined,
    600_000,
    100,
  );
  const churnSeconds = (performance.now() - churnStart) / 1000;
  clearInterval(sampler);
  const end = await rss(pid);
  peakRss = Math.max(peakRss, end.rss);
  const churnCpu = end.cpuSeconds - afterSync.cpuSeconds;
  log(
    `churn: ${churn} EndpointSlice updates published in ${churnSeconds.toFixed(2)} s = ${Math.round(churn / churnSeconds)} events/s (simulator writes in the same window); watcher CPU ${churnCpu.toFixed(2)} s = ${Math.round(churn / churnCpu)} events per CPU-second`,
  );
  log(
    `watcher V8 heap used ${mib(await metric('portolan_watcher_nodejs_heap_size_used_bytes'))} MiB of ${mib(await metric('portolan_watcher_nodejs_heap_size_total_bytes'))} MiB; external ${mib(await metric('portolan_watcher_nodejs_external_memory_bytes'))} MiB; heap governor collections ${await metric('portolan_watcher_heap_collections_total')}`,
  );
  log(
    `watcher RSS: now ${mib(end.rss)} MiB, peak sampled ${mib(peakRss)} MiB, kernel high-water mark VmHWM ${mib(end.hwm)} MiB (goal ≤ 150 MiB)`,
  );
  log(`watcher process: ${end.cmdline}`);
  process.stdout.write(
    `${JSON.stringify({
      services,
      endpoints: services * perSlice,
      syncEventsPerSecond: Math.round(objects / syncSeconds),
      syncEventsPerCpuSecond: Math.round(objects / syncCpu),
      churnEventsPerSecond: Math.round(churn / churnSeconds),
      churnEventsPerCpuSecond: Math.round(churn / churnCpu),
      rssMiB: mib(end.rss),
      vmHwmMiB: mib(end.hwm),
      peakRssMiB: mib(Math.max(peakRss, end.hwm)),
    })}\n`,
  );
} finally {
  if (child !== undefined && child.exitCode === null) {
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  await nats.close();
  await sim.close();
  await rm(dir, { recursive: true, force: true });
}

/** RSS, VmHWM, CPU seconds (user + system, clock ticks of 1/100 s) and command line of a process. */
async function rss(pid: number): Promise<{ rss: number; hwm: number; cpuSeconds: number; cmdline: string }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string): number =>
    Number(/\s(\d+) kB/.exec(status.split('\n').find((l) => l.startsWith(field)) ?? '')?.[1] ?? 0) * 1024;
  // Fields after the command name (which may contain spaces): utime and stime are the 12th and 13th.
  const stat = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  const cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8'))
    .split('\0')
    .filter((a) => a !== '')
    .map((a) => (path.relative(root, a).startsWith('..') ? path.basename(a) : path.relative(root, a)))
    .join(' ');
  return { rss: kb('VmRSS:'), hwm: kb('VmHWM:'), cpuSeconds: (Number(stat[11]) + Number(stat[12])) / 100, cmdline };
}

function mib(bytes: number): number {
  return Math.round((bytes / 1024 / 1024) * 10) / 10;
}

function log(line: string): void {
  process.stdout.write(`# ${line}\n`);
}
