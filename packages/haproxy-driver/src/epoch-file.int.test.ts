// The fence fails closed: an epoch file that cannot be read or does not hold an epoch refuses every write, where
// reading it as "never written" would let any stale leader write.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { EPOCH_FILE } from './adapters/haproxy-config-files.ts';
import { startHarness } from './testing/haproxy-harness.ts';
import { desired, member, pool, route, service } from './testing/desired-fixtures.ts';

const state = (members: number) =>
  desired({
    virtualServices: [service('http', 80, [route('a.example.com', '/', 'Prefix', 'web')])],
    pools: [
      pool(
        'web',
        Array.from({ length: members }, (_, i) => member(`127.0.0.${i + 1}`, 9000)),
      ),
    ],
  });

test('a garbled or unreadable epoch file refuses writes; a repaired one lets them through', async () => {
  const h = await startHarness();
  try {
    assert.ok((await h.apply(state(1), 3)).results.every((r) => r.ok));
    const file = path.join(h.dir, EPOCH_FILE);
    assert.equal(fs.readFileSync(file, 'utf8').trim(), '3');
    fs.writeFileSync(file, 'garbage\n');
    const garbled = await h.apply(state(2), 3);
    assert.ok(
      garbled.results.length > 0 && garbled.results.every((r) => !r.ok && r.code === 'EpochUnreadable'),
      JSON.stringify(garbled.results),
    );
    fs.rmSync(file);
    fs.mkdirSync(file); // a directory where the file should be: EISDIR
    const unreadable = await h.apply(state(2), 3);
    assert.ok(
      unreadable.results.every((r) => !r.ok && r.code === 'EpochUnreadable'),
      JSON.stringify(unreadable.results),
    );
    fs.rmSync(file, { recursive: true });
    fs.writeFileSync(file, '3\n');
    assert.ok(
      (await h.apply(state(2), 3)).results.every((r) => r.ok),
      'repaired: writes go through',
    );
    assert.deepEqual(await h.pending(state(2)), []);
  } finally {
    await h[Symbol.asyncDispose]();
  }
});
