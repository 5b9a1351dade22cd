import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const root = path.resolve(import.meta.dirname, '..');

test('`npm run bench -- --quick --only floor --json f` runs and writes the documented JSON shape', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'portolan-bench-'));
  try {
    const file = path.join(dir, 'bench.json');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [path.join(root, 'bench', 'run.ts'), '--quick', '--only', 'floor', '--json', file],
      { cwd: root, env: process.env, timeout: 240_000 },
    );
    assert.match(stdout, /figure\s+unit\s+median\s+p99/);
    const report = JSON.parse(readFileSync(file, 'utf8')) as {
      figures: { name: string; unit: string; value: number; p99?: number }[];
    };
    assert.ok(report.figures.length >= 2);
    for (const f of report.figures) {
      assert.equal(typeof f.name, 'string');
      assert.equal(typeof f.unit, 'string');
      assert.ok(Number.isFinite(f.value) && f.value > 0, `${f.name} has a positive median`);
      if (f.p99 !== undefined) assert.ok(f.p99 >= f.value, `${f.name}: p99 ≥ median`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
