// Metric names are part of the operator's interface: every metric a service defines is `portolan_<service>_…`,
// and every metric the shipped alerts and dashboard query is one a service defines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

/** Metric names defined in a service's source (`name: 'portolan_…'` in a prom-client constructor). */
function definedMetrics(): Map<string, string> {
  const files = execFileSync('git', ['ls-files', 'services/*/src/*.ts', 'services/*/src/**/*.ts'], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((f) => f !== '' && !f.includes('.test.') && !f.includes('/testing/'));
  const out = new Map<string, string>();
  for (const f of files) {
    const text = readFileSync(path.join(root, f), 'utf8');
    if (!/new (Counter|Gauge|Histogram)\b/.test(text)) continue;
    for (const m of text.matchAll(/name: '([a-z_:]+)'/g)) out.set(m[1]!, f);
  }
  return out;
}

test('every metric a service defines is named portolan_<service>_ with a unit or _total where it counts', () => {
  const defined = definedMetrics();
  assert.ok(defined.size >= 30, `found ${defined.size} metric definitions`);
  for (const [name, file] of defined) {
    const service = file.split('/')[1]!;
    assert.ok(name.startsWith(`portolan_${service}_`), `${name} in ${file} starts with portolan_${service}_`);
  }
});

test('the alerts and the dashboard query only metrics that exist', () => {
  const defined = definedMetrics();
  const monitoring = path.join(root, 'deploy', 'kubernetes', 'base', 'monitoring');
  const queried = new Set<string>();
  for (const file of ['prometheusrule.yaml', 'portolan-dashboard.json'])
    for (const m of readFileSync(path.join(monitoring, file), 'utf8').matchAll(/portolan_[a-z_]+/g))
      queried.add(m[0].replace(/_(bucket|count|sum)$/, ''));
  assert.ok(queried.size >= 8, `the monitoring queries ${queried.size} metrics`);
  for (const name of queried) {
    // Process and Node metrics come from prom-client's defaults, under the same per-service prefix.
    if (/^portolan_[a-z]+_(process|nodejs)_/.test(name)) continue;
    assert.ok(defined.has(name), `${name} is defined by a service`);
  }
});
