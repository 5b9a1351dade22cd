// The lease store behind Redis Sentinel: the lease client given a `redis-sentinel://` URL asks the Sentinel for
// the master and takes, inspects and releases a lease there.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '@portolan/infra';
import { RedisLeaseClient } from './adapters/redis-lease-client.ts';
import { startRedis } from './testing/redis-faults.ts';

let dir: string;
let master: ChildProcess;
let sentinel: ChildProcess;
let sentinelPort: number;

before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'portolan-sentinel-'));
  const masterPort = await freePort();
  master = await startRedis(masterPort, dir);
  sentinelPort = await freePort();
  const conf = path.join(dir, 'sentinel.conf');
  writeFileSync(
    conf,
    `bind 127.0.0.1\nport ${sentinelPort}\ndir ${dir}\nsentinel monitor leases 127.0.0.1 ${masterPort} 1\n`,
  );
  sentinel = spawn('redis-server', [conf, '--sentinel'], { stdio: 'ignore' });
});
after(() => {
  sentinel?.kill('SIGKILL');
  master?.kill('SIGKILL');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('a redis-sentinel:// URL leads the lease client to the master the Sentinel names', async () => {
  const lease = new RedisLeaseClient(`redis-sentinel://127.0.0.1:${sentinelPort}/leases`, { commandTimeoutMs: 1000 });
  try {
    await lease.ready(10_000);
    const taken = await lease.acquire('t:lease:g', 'holder#1', 5000);
    assert.equal(taken.ok, true);
    const held = await lease.inspect('t:lease:g');
    assert.equal(held?.value, 'holder#1');
    assert.ok((held?.remainingMs ?? 0) > 0);
    assert.equal(await lease.release('t:lease:g', 'holder#1'), true);
    assert.equal(await lease.inspect('t:lease:g'), null);
  } finally {
    lease.close();
  }
});
