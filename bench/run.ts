// `npm run bench [-- --quick] [-- --json <file>] [-- --only <name>[,<name>…]] [-- --profile <dir>]`: runs every benchmark against the real local
// stack and prints one table of medians (p99 for latencies) beside goals and same-run baselines.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PartialResultError, round, type Benchmark, type Figure } from './figure.ts';
import { benchmarks } from './suites/index.ts';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const jsonAt = args.indexOf('--json');
const jsonFile = jsonAt >= 0 ? args[jsonAt + 1] : undefined;
const onlyAt = args.indexOf('--only');
const only = onlyAt >= 0 ? args[onlyAt + 1]?.split(',') : undefined;
const profileAt = args.indexOf('--profile');
const profileDir = profileAt >= 0 ? args[profileAt + 1] : undefined;

process.stdout.write(`# Portolan benchmarks on Node.js ${process.version}, ${quick ? 'quick' : 'full'} run\n`);
const selected: readonly Benchmark[] =
  only === undefined ? benchmarks : benchmarks.filter((b) => only.includes(b.name));
if (selected.length === 0) {
  process.stderr.write(`no benchmark named "${only?.join(',')}"; known: ${benchmarks.map((b) => b.name).join(', ')}\n`);
  process.exit(2);
}

const figures: Figure[] = [];
let failed = 0;
for (const b of selected) {
  const started = performance.now();
  process.stdout.write(`# ${b.name}...\n`);
  try {
    const got = await b.run({
      quick,
      log: (l) => process.stdout.write(`#   ${l}\n`),
      ...(profileDir === undefined ? {} : { profileDir }),
    });
    figures.push(...got.map((f) => ({ ...f, name: `${b.name}: ${f.name}` })));
  } catch (e) {
    failed++;
    if (e instanceof PartialResultError)
      figures.push(...e.figures.map((f) => ({ ...f, name: `${b.name}: ${f.name}` })));
    process.stderr.write(`# ${b.name} failed: ${(e as Error).stack ?? String(e)}\n`);
  }
  process.stdout.write(`#   (${((performance.now() - started) / 1000).toFixed(1)} s)\n`);
}

const fmt = (v: number | undefined): string => (v === undefined ? '' : String(round(v)));
const rows = figures.map((f) => [
  f.name,
  f.unit,
  fmt(f.value),
  fmt(f.p99),
  f.goal ?? '',
  fmt(f.baseline),
  f.ratio === undefined ? '' : `${round(f.ratio)}×`,
]);
const header = ['figure', 'unit', 'median', 'p99', 'goal', 'baseline', 'ratio'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (r: string[]): string =>
  r.map((c, i) => (i >= 2 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ');
process.stdout.write(
  `\n${line(header)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}\n${rows.map(line).join('\n')}\n`,
);

if (jsonFile !== undefined) {
  mkdirSync(path.dirname(path.resolve(jsonFile)), { recursive: true });
  writeFileSync(
    jsonFile,
    `${JSON.stringify({ figures: figures.map((f) => ({ ...f, value: round(f.value), ...(f.p99 === undefined ? {} : { p99: round(f.p99) }) })) }, null, 2)}\n`,
  );
  process.stdout.write(`# wrote ${jsonFile}\n`);
}
process.exit(failed === 0 ? 0 : 1);
