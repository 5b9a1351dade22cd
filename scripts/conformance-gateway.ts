// Runs every transcribed Gateway API conformance test (tests/e2e/gateway-conformance/) against one Portolan
// pipeline on HAProxy and writes docs/gateway-conformance-report.yaml, a ConformanceReport in upstream's format.
// `--cap <seconds>` caps upstream's timeouts (a quicker run; a failing status step then fails sooner).
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startCluster } from '../tests/e2e/gateway-conformance/cluster.ts';
import { loadTests } from '../tests/e2e/gateway-conformance/index.ts';
import { conformanceReport } from '../tests/e2e/gateway-conformance/report.ts';
import { runTest, waitForBase, type TestOutcome } from '../tests/e2e/gateway-conformance/runner.ts';

const root = path.join(import.meta.dirname, '..');
const { values } = parseArgs({ options: { cap: { type: 'string' }, only: { type: 'string', multiple: true } } });
const waits = values.cap === undefined ? {} : { capMs: Number(values.cap) * 1000 };
const tests = loadTests().filter((t) => values.only === undefined || values.only.includes(t.shortName));
const version = execFileSync('git', ['describe', '--always', '--dirty'], { cwd: root, encoding: 'utf8' }).trim();

const cluster = await startCluster();
const results: { test: (typeof tests)[number]; outcome: TestOutcome }[] = [];
try {
  await waitForBase(cluster, waits);
  for (const test of tests) {
    const started = performance.now();
    const outcome = await runTest(cluster, test, waits);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    process.stdout.write(`${outcome.ok ? 'PASS' : 'FAIL'} ${test.shortName} (${seconds} s)\n`);
    if (!outcome.ok) process.stdout.write(`     ${outcome.error.split('\n')[0]}\n`);
    results.push({ test, outcome });
  }
} finally {
  await cluster.stop();
}
const passed = results.filter((r) => r.outcome.ok).length;
process.stdout.write(`${passed} of ${results.length} passed\n`);
if (values.only === undefined)
  writeFileSync(
    path.join(root, 'docs', 'gateway-conformance-report.yaml'),
    conformanceReport({ version, date: new Date(), results }),
  );
