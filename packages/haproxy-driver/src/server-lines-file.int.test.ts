import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { type EchoBackends, startEchoBackends } from '@portolan/echo-backend';
import type { ExecutionContext } from '@portolan/appliance-driver';
import { textOf, type DesiredState } from '@portolan/desired-state';
import { type Harness, freePort, startHarness } from './testing/haproxy-harness.ts';
import { desired, member, pool, route, service } from './testing/desired-fixtures.ts';
import type { HaproxyBundle } from './core/haproxy-bundle.ts';

// haproxy.cfg's server lines follow the Runtime API after a delay, one write for many changes, and such a deferred
// write is fenced like the operation that queued it.
let echo: EchoBackends;
let port: number;

before(async () => {
  echo = await startEchoBackends(Array.from({ length: 6 }, (_, i) => ({ address: `127.0.26.${i + 1}`, port: 0 })));
  port = await freePort();
});

after(async () => {
  await echo?.close();
});

const hosts = [route('web.test', '/', 'Prefix', 'web')];

/** The state with the `n` echo backends from `from` in pool web. */
function web(n: number, from = 0): DesiredState {
  const members = echo.backends.slice(from, from + n).map((b) => member(b.address, b.port));
  return desired({ pools: [pool('web', members)], virtualServices: [service('http', port, hosts)] });
}

function context(epoch: number, signal = new AbortController().signal): ExecutionContext<HaproxyBundle> {
  return { epoch, secrets: { resolve: () => Promise.reject(new Error('no secrets here')) }, signal };
}

const cfgOf = (bundle: HaproxyBundle): string => textOf(bundle.files.find((f) => f.path === 'haproxy.cfg')!.content);

/** A harness holding web(1) applied, and that render (the applier's hot baseline). */
async function started(delayMs: number): Promise<{ h: Harness; cfg: string; applied: HaproxyBundle }> {
  const h = await startHarness({
    minFreeSlots: 2,
    slotIncrement: 4,
    serverLinesWriteDelayMs: delayMs,
    spareBackends: 0,
  });
  const round = await h.apply(web(1));
  assert.ok(
    round.results.every((r) => r.ok),
    JSON.stringify(round.results),
  );
  return { h, cfg: path.join(h.dir, 'haproxy.cfg'), applied: round.rendered };
}

/** One endpoint change as the applier's hot path makes it: render, diff against the last render, execute. */
async function change(
  h: Harness,
  previous: HaproxyBundle,
  state: DesiredState,
  ctx: ExecutionContext<HaproxyBundle>,
): Promise<HaproxyBundle> {
  const rendered = h.driver.render(state, previous);
  const ops = h.driver.diff(rendered, previous);
  assert.deepEqual([...new Set(ops.map((o) => o.objectType))], ['server', 'config-slots'], 'an endpoint-only change');
  const results = await h.driver.executeAll(ops, { ...ctx, target: rendered });
  assert.ok(
    results.every((r) => r.ok),
    JSON.stringify(results),
  );
  return rendered;
}

/** Addresses of the ready slots of backend http:web as the running worker has them. */
async function runtimeAddresses(h: Harness): Promise<string[]> {
  const rows = (await h.driver.runtime.command('show servers state http:web')).split('\n').filter((r) => /^\d/.test(r));
  return rows
    .map((r) => r.split(' '))
    .filter((f) => f[5] === '2')
    .map((f) => f[4]!)
    .sort();
}

test('endpoint changes are served at once; their server lines reach haproxy.cfg in one write, before any read-back', async () => {
  const { h, cfg, applied } = await started(60_000);
  await using _harness = h;
  const initial = fs.readFileSync(cfg, 'utf8');
  const inode = fs.statSync(cfg).ino;
  let previous = applied;
  for (const state of [web(2), web(3), web(2, 1)]) previous = await change(h, previous, state, context(1));
  assert.deepEqual(await runtimeAddresses(h), ['127.0.26.2', '127.0.26.3'], 'the Runtime API has the last change');
  assert.equal(h.driver.serverLinesPending, true);
  assert.equal(fs.readFileSync(cfg, 'utf8'), initial, 'the file is not rewritten per change');
  assert.equal(fs.statSync(cfg).ino, inode);

  // A read-back reads the files: the queued lines are written first, as one file (one rename).
  assert.deepEqual(await h.pending(web(2, 1)), [], 'read-back after the changes diffs to zero operations');
  assert.equal(h.driver.serverLinesPending, false);
  assert.equal(fs.readFileSync(cfg, 'utf8'), cfgOf(previous));
});

test('without a read-back, the queued lines are written once the delay has passed', async () => {
  const { h, cfg, applied } = await started(50);
  await using _harness = h;
  const next = await change(h, applied, web(2), context(1));
  const deadline = Date.now() + 10_000;
  while (fs.readFileSync(cfg, 'utf8') !== cfgOf(next)) {
    assert.ok(Date.now() < deadline, 'the queued server lines were never written');
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.equal(h.driver.serverLinesPending, false);
});

test('a queued write is dropped when a newer epoch has written here, and the newer leader finds and corrects the lag', async () => {
  const { h, cfg, applied } = await started(60_000);
  await using _harness = h;
  const initial = fs.readFileSync(cfg, 'utf8');
  const next = await change(h, applied, web(2), context(1));
  fs.writeFileSync(path.join(h.dir, 'epoch'), '2\n'); // a newer leader fenced this HAProxy
  await h.driver.settle();
  assert.equal(h.driver.serverLinesPending, false);
  assert.equal(fs.readFileSync(cfg, 'utf8'), initial, 'the deposed epoch wrote nothing');

  const round = await h.apply(web(2), 2);
  assert.deepEqual(
    round.operations.map((o) => o.objectType),
    ['config-slots'],
    'the read-back sees the file behind the runtime',
  );
  assert.ok(round.results.every((r) => r.ok));
  await h.driver.settle();
  assert.equal(fs.readFileSync(cfg, 'utf8'), cfgOf(next));
});

test('a queued write is dropped when the leadership that queued it is lost', async () => {
  const { h, cfg, applied } = await started(60_000);
  await using _harness = h;
  const initial = fs.readFileSync(cfg, 'utf8');
  const leadership = new AbortController();
  await change(h, applied, web(2), context(1, leadership.signal));
  leadership.abort();
  await h.driver.settle();
  assert.equal(h.driver.serverLinesPending, false);
  assert.equal(fs.readFileSync(cfg, 'utf8'), initial);
});

test('a reload writes queued lines first, so a refused configuration restores a file that has them', async () => {
  const { h, cfg, applied } = await started(60_000);
  await using _harness = h;
  const next = await change(h, applied, web(2), context(1));
  const b = echo.backends[0]!;
  // An expect pattern PCRE cannot compile: `haproxy -c` refuses it and the driver restores the files.
  const bad = desired({
    pools: [
      pool(
        'web',
        echo.backends.slice(0, 2).map((x) => member(x.address, x.port)),
      ),
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
    virtualServices: [service('http', port, [...hosts, route('new.test', '/', 'Prefix', 'broken')])],
  });
  const badRender = h.driver.render(bad, next);
  const ops = h.driver.diff(badRender, next);
  assert.deepEqual(
    ops.map((o) => o.objectType),
    ['reload'],
  );
  const [result] = await h.driver.executeAll(ops, { ...context(1), target: badRender });
  assert.equal(result?.ok === false && result.code, 'ConfigInvalid');
  assert.equal(
    fs.readFileSync(cfg, 'utf8'),
    cfgOf(next),
    'the restored file holds the server lines queued before the reload',
  );
});
