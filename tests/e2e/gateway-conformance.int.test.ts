// The upstream Gateway API conformance tests (GATEWAY-HTTP, as data in ./gateway-conformance/), run end to end on ONE pipeline with upstream's timeouts: kubectl → simulator → watcher → NATS → planner →
// Postgres → applier → HAProxy, each request checked through HAProxy against echo pods. Every transcribed test runs
// here; `npm run conformance:gateway` runs the same set and writes docs/gateway-conformance-report.yaml.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type ConformanceCluster } from './gateway-conformance/cluster.ts';
import { loadTests } from './gateway-conformance/index.ts';
import { runTest, waitForBase } from './gateway-conformance/runner.ts';

const tests = loadTests();
let cluster: ConformanceCluster;

before(async () => {
  cluster = await startCluster();
  await waitForBase(cluster);
});
after(async () => {
  await cluster?.stop();
});

for (const t of tests) {
  test(t.shortName, async () => {
    const outcome = await runTest(cluster, t);
    assert.ok(outcome.ok, outcome.ok ? '' : `${outcome.error}\n${cluster.p.diagnostics()}`);
  });
}
