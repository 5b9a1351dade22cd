import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { determinismRoots } from './testing/determinism-fixture.ts';

const run = promisify(execFile);

test('snapshot hashes are identical under another time zone and locale (TZ=Pacific/Chatham, LANG=tr_TR.UTF-8)', async () => {
  const here = determinismRoots();
  const { stdout } = await run(
    process.execPath,
    [path.join(import.meta.dirname, 'testing', 'determinism-fixture.ts'), '--print'],
    {
      env: { ...process.env, TZ: 'Pacific/Chatham', LANG: 'tr_TR.UTF-8', LC_ALL: 'tr_TR.UTF-8' },
      timeout: 60_000,
    },
  );
  const there = JSON.parse(stdout) as ReturnType<typeof determinismRoots>;
  assert.notEqual(there.tz, here.tz, 'the child really runs in another time zone');
  assert.equal(there.locale, 'tr-TR', 'the child really runs in another locale');
  assert.equal(there.roots.length, here.roots.length);
  assert.deepEqual(there.roots, here.roots);
});
