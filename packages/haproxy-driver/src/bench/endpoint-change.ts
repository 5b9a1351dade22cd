// Measures one endpoint change applied through the Runtime API versus the same change applied with a reload,
// against a real HAProxy. Not a test: prints figures. Usage:
//   node packages/haproxy-driver/src/bench/endpoint-change.ts [backends=1000] [runtimeRounds=200] [reloadRounds=10]
import type { DesiredState } from '@portolan/desired-state';
import { toOperation } from '../core/haproxy-operations.ts';
import { desired, member, pool, route, service } from '../testing/desired-fixtures.ts';
import { freePort, startHarness } from '../testing/haproxy-harness.ts';

const [backends = 1000, runtimeRounds = 200, reloadRounds = 10] = process.argv.slice(2).map(Number);

function state(port: number, moved: number, generation: number): DesiredState {
  const pools = Array.from({ length: backends }, (_, i) => {
    const port2 = i === moved ? 20_000 + (generation % 2) : 10_000;
    return pool(`svc-${String(i).padStart(5, '0')}`, [member(`127.1.${i >> 8}.${i & 255}`, port2)]);
  });
  const routes = pools.map((p) => route(`${p.name}.test`, '/', 'Prefix', p.name));
  return desired({ pools, virtualServices: [service('http', port, routes)] });
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function line(name: string, values: readonly number[]): string {
  return `${name.padEnd(44)} n=${String(values.length).padStart(4)}  p50 ${percentile(values, 50).toFixed(2).padStart(8)} ms  p99 ${percentile(values, 99).toFixed(2).padStart(8)} ms`;
}

const h = await startHarness({ minFreeSlots: 2, slotIncrement: 4 });
try {
  const port = await freePort();
  const context = { epoch: 1, secrets: h.secrets, signal: new AbortController().signal };
  let generation = 0;
  const start = performance.now();
  await h.apply(state(port, 0, generation));
  console.log(
    `# ${backends} backends, HAProxy ${(await h.driver.runtime.command('show info')).match(/Version: (\S+)/)?.[1]}, Node ${process.version}`,
  );
  console.log(`initial apply (one reload): ${(performance.now() - start).toFixed(0)} ms`);

  const executeOnly: number[] = [];
  const fullRound: number[] = [];
  const reloadsBefore = (await h.driver.showProc()).master.reloads;
  for (let i = 0; i < runtimeRounds; i++) {
    generation++;
    const next = state(port, i % backends, generation);
    const t0 = performance.now();
    const observed = await h.driver.readBack(AbortSignal.timeout(10_000));
    const rendered = h.driver.render(next, observed);
    const ops = h.driver.diff(rendered, observed);
    const t1 = performance.now();
    const results = await h.driver.executeAll(ops, { ...context, target: rendered });
    const t2 = performance.now();
    if (!results.every((r) => r.ok) || ops.some((o) => o.objectType === 'reload'))
      throw new Error(`unexpected: ${JSON.stringify(ops.map((o) => o.summary))}`);
    executeOnly.push(t2 - t1);
    fullRound.push(t2 - t0);
  }
  // The same change when the caller diffs against the bundle it applied last (no read-back per change).
  const withoutReadBack: number[] = [];
  let applied = h.driver.render(state(port, 0, generation), await h.driver.readBack(AbortSignal.timeout(10_000)));
  for (let i = 0; i < runtimeRounds; i++) {
    generation++;
    const t0 = performance.now();
    const next = h.driver.render(state(port, i % backends, generation), applied);
    const results = await h.driver.executeAll(h.driver.diff(next, applied), { ...context, target: next });
    withoutReadBack.push(performance.now() - t0);
    if (!results.every((r) => r.ok)) throw new Error(JSON.stringify(results));
    applied = next;
  }
  const runtimeReloads = (await h.driver.showProc()).master.reloads - reloadsBefore;

  const viaReload: number[] = [];
  let seen = await h.driver.readBack(AbortSignal.timeout(10_000));
  for (let i = 0; i < reloadRounds; i++) {
    generation++;
    const bundle = h.driver.render(state(port, i % backends, generation), seen);
    const op = toOperation({
      kind: 'reload',
      reasons: ['baseline: endpoint change by reload'],
      files: bundle.files,
      certificates: bundle.certificates,
      backends: bundle.backends,
    });
    const t0 = performance.now();
    const [result] = await h.driver.executeAll([op], { ...context, target: bundle });
    viaReload.push(performance.now() - t0);
    if (!result?.ok) throw new Error(JSON.stringify(result));
    seen = await h.driver.readBack(AbortSignal.timeout(10_000));
  }
  console.log(line('runtime API: executeAll (apply only)', executeOnly));
  console.log(line('runtime API: readBack + render + diff + apply', fullRound));
  console.log(line('runtime API: render + diff(last applied) + apply', withoutReadBack));
  console.log(line('reload: validate + state dump + reload + verify', viaReload));
  console.log(`reloads during the runtime rounds: ${runtimeReloads}`);
} finally {
  await h[Symbol.asyncDispose]();
}
