import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { type EchoBackends, startEchoBackends } from '@portolan/echo-backend';
import type { DesiredState } from '@portolan/desired-state';
import { type Harness, freePort, request, startHarness } from './testing/haproxy-harness.ts';
import { desired, member, pool, route, service } from './testing/desired-fixtures.ts';

// A configuration HAProxy refuses never replaces the one serving; the refusal is reported as a failed result.
let h: Harness;
let echo: EchoBackends;
let port: number;
let good: DesiredState;

before(async () => {
  // Reload mechanics: no spare backends, so a new pool is a reload.
  h = await startHarness({ minFreeSlots: 2, slotIncrement: 4, spareBackends: 0 });
  echo = await startEchoBackends([{ address: '127.0.24.1', port: 0 }]);
  port = await freePort();
  const b = echo.backends[0]!;
  good = desired({
    pools: [pool('web', [member(b.address, b.port)])],
    virtualServices: [service('http', port, [route('web.test', '/', 'Prefix', 'web')])],
  });
  const round = await h.apply(good);
  assert.ok(round.results.every((r) => r.ok));
});

after(async () => {
  await echo?.close();
  await h?.[Symbol.asyncDispose]();
});

async function servesGood(): Promise<void> {
  const reply = await request(port, 'web.test', '/');
  assert.equal(reply.status, 200);
  assert.equal(reply.echo?.address, '127.0.24.1');
}

test('a configuration that fails `haproxy -c` is refused: failed result, files restored, old config still serving', async () => {
  const configBefore = fs.readFileSync(path.join(h.dir, 'haproxy.cfg'), 'utf8');
  const worker = (await h.driver.showProc()).workers[0]?.pid;
  const b = echo.backends[0]!;
  // An expect pattern PCRE cannot compile: valid for Kubernetes, fatal for HAProxy: a value only the appliance refuses.
  const bad = desired({
    pools: [
      pool('web', [member(b.address, b.port)]),
      pool('broken', [member(b.address, b.port)], {
        monitor: {
          type: 'http',
          path: '/',
          hostHeader: '',
          expectStatus: '([',
          intervalSeconds: 5,
          timeoutSeconds: 1,
          failures: 3,
          vendor: null,
        },
      }),
    ],
    virtualServices: [
      service('http', port, [route('web.test', '/', 'Prefix', 'web'), route('new.test', '/', 'Prefix', 'broken')]),
    ],
  });
  const round = await h.apply(bad);
  assert.equal(round.operations.length, 1);
  const [result] = round.results;
  assert.equal(result?.ok, false);
  assert.ok(result !== undefined && !result.ok);
  assert.equal(result.code, 'ConfigInvalid');
  assert.equal(result.retryable, false);
  assert.match(result.message, /haproxy -c refused/);
  assert.equal(fs.readFileSync(path.join(h.dir, 'haproxy.cfg'), 'utf8'), configBefore);
  // The check ran beside the reload: the master refused the configuration too, and the old worker still serves.
  const proc = await h.driver.showProc();
  assert.ok(proc.master.failedReloads > 0);
  assert.equal(proc.workers[0]?.pid, worker, 'the same worker serves');
  await servesGood();
  assert.deepEqual(await h.pending(good), [], 'the appliance still equals the last good state');
});

test('a reload HAProxy fails (port already taken) is reported, and the previous worker keeps serving', async () => {
  const blocker = net.createServer();
  const taken = await freePort();
  await new Promise<void>((resolve) => blocker.listen(taken, '127.0.0.1', resolve));
  try {
    const configBefore = fs.readFileSync(path.join(h.dir, 'haproxy.cfg'), 'utf8');
    const failedBefore = (await h.driver.showProc()).master.failedReloads;
    const withTakenPort = desired({
      ...good,
      virtualServices: [...good.virtualServices, service('extra', taken, [route('web.test', '/', 'Prefix', 'web')])],
    });
    const round = await h.apply(withTakenPort);
    const [result] = round.results;
    assert.ok(result !== undefined && !result.ok, JSON.stringify(round.results));
    assert.equal(result.code, 'ReloadFailed');
    assert.equal(result.retryable, true);
    assert.match(result.message, /previous configuration keeps serving/);
    assert.equal((await h.driver.showProc()).master.failedReloads, failedBefore + 1);
    assert.equal(
      fs.readFileSync(path.join(h.dir, 'haproxy.cfg'), 'utf8'),
      configBefore,
      'a later reload would load the previous files',
    );
    await servesGood();
  } finally {
    await new Promise<void>((resolve) => blocker.close(() => resolve()));
  }
  // Once the port is free, the same plan goes through.
  const extraPort = await freePort();
  const retry = desired({
    ...good,
    virtualServices: [...good.virtualServices, service('extra', extraPort, [route('web.test', '/', 'Prefix', 'web')])],
  });
  const round = await h.apply(retry);
  assert.ok(
    round.results.every((r) => r.ok),
    JSON.stringify(round.results),
  );
  assert.equal((await h.driver.showProc()).master.failedReloads, 0);
  assert.equal((await request(extraPort, 'web.test', '/')).echo?.address, '127.0.24.1');
  assert.equal(
    (await h.apply(good)).results.every((r) => r.ok),
    true,
  );
});

test('a write stamped with an older epoch than one already applied here is refused (fencing)', async () => {
  const b = echo.backends[0]!;
  const moved = desired({ ...good, pools: [pool('web', [member(b.address, b.port), member('127.0.24.9', 9)])] });
  const newer = await h.apply(good, 7);
  assert.ok(newer.results.every((r) => r.ok));
  const stale = await h.apply(moved, 6);
  assert.ok(stale.operations.length > 0);
  for (const result of stale.results) assert.equal(result.ok ? 'ok' : result.code, 'StaleEpoch');
  assert.deepEqual(await h.pending(good), [], 'nothing of the stale write reached HAProxy');
});

test('with HAProxy gone, operations come back as retryable failures (no throw) and the files stay as they were', async () => {
  const b = echo.backends[0]!;
  const configBefore = fs.readFileSync(path.join(h.dir, 'haproxy.cfg'), 'utf8');
  const observed = await h.driver.readBack(AbortSignal.timeout(10_000));
  const bundle = h.driver.render(good, observed);
  const scaled = h.driver.render(
    desired({ ...good, pools: [pool('web', [member(b.address, b.port), member('127.0.24.8', 8)])] }),
    observed,
  );
  const grown = h.driver.render(
    desired({ ...good, pools: [...good.pools, pool('more', [member('127.0.24.7', 7)])] }),
    observed,
  );
  await h.haproxy.stop();
  const context = { epoch: 7, secrets: h.secrets, signal: new AbortController().signal };
  for (const ops of [h.driver.diff(scaled, bundle), h.driver.diff(grown, bundle)]) {
    assert.ok(ops.length > 0);
    const results = await h.driver.executeAll(ops, context);
    for (const r of results) {
      assert.ok(!r.ok);
      assert.equal(r.code, 'HaproxyUnavailable');
      assert.equal(r.retryable, true);
    }
  }
  assert.equal(fs.readFileSync(path.join(h.dir, 'haproxy.cfg'), 'utf8'), configBefore);
});
