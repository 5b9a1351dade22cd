import { after, before, test } from 'node:test';
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { type EchoBackends, startEchoBackends } from '@portolan/echo-backend';
import { textOf, type DesiredState, type Pool } from '@portolan/desired-state';
import type { HaproxyBundle } from './core/haproxy-bundle.ts';
import { type Harness, freePort, request, startHarness } from './testing/haproxy-harness.ts';
import { desired, member, pool, route, service } from './testing/desired-fixtures.ts';
import { parseServersState } from './core/parse-servers-state.ts';

// Endpoint changes through the Runtime API (zero reloads) versus structural changes (exactly one reload).
let h: Harness;
let echo: EchoBackends;
let port: number;

before(async () => {
  h = await startHarness({ minFreeSlots: 2, slotIncrement: 4 });
  echo = await startEchoBackends(Array.from({ length: 8 }, (_, i) => ({ address: `127.0.22.${i + 1}`, port: 0 })));
  port = await freePort();
});

after(async () => {
  await echo?.close();
  await h?.[Symbol.asyncDispose]();
});

/** Members for the first `n` echo backends. */
function members(n: number, from = 0) {
  return echo.backends.slice(from, from + n).map((b) => member(b.address, b.port));
}

function web(pools: readonly Pool[], hosts: readonly { host: string; pool: string }[]): DesiredState {
  return desired({
    pools,
    virtualServices: [
      service(
        'http',
        port,
        hosts.map((x) => route(x.host, '/', 'Prefix', x.pool)),
      ),
    ],
  });
}

/** Reloads as counted by the HAProxy master itself. */
async function masterReloads(): Promise<number> {
  return (await h.driver.showProc()).master.reloads;
}

/** Which backends answered `n` requests to `host`. */
async function answering(host: string, n = 12): Promise<Set<string>> {
  const seen = new Set<string>();
  for (let i = 0; i < n; i++) {
    const reply = await request(port, host, '/');
    if (reply.echo) seen.add(reply.echo.address);
  }
  return seen;
}

/** What the appliance holds now (the caller's memory of it, for renders between applies). */
const readBack = (): Promise<HaproxyBundle> => h.driver.readBack(AbortSignal.timeout(10_000));
const cfgText = (b: HaproxyBundle): string => textOf(b.files.find((f) => f.path === 'haproxy.cfg')!.content);

async function applyOk(state: DesiredState): Promise<string[]> {
  const round = await h.apply(state);
  assert.ok(
    round.results.every((r) => r.ok),
    JSON.stringify(round.results),
  );
  assert.deepEqual(await h.pending(state), [], 'read-back after apply diffs to zero operations');
  return round.operations.map((o) => o.objectType);
}

test('scaling a pool up and down goes through the Runtime API with zero reloads, and traffic follows', async () => {
  await applyOk(web([pool('web', members(1))], [{ host: 'web.test', pool: 'web' }]));
  const reloads = await masterReloads();
  const driverReloads = h.driver.reloadCount;
  const worker = (await h.driver.showProc()).workers[0]?.pid;

  const up = await applyOk(web([pool('web', members(3))], [{ host: 'web.test', pool: 'web' }]));
  assert.deepEqual(up, ['server', 'server', 'config-slots']);
  assert.deepEqual(await answering('web.test'), new Set(['127.0.22.1', '127.0.22.2', '127.0.22.3']));

  const down = await applyOk(web([pool('web', members(1, 2))], [{ host: 'web.test', pool: 'web' }]));
  assert.deepEqual(down, ['server', 'server', 'config-slots']);
  assert.deepEqual(await answering('web.test'), new Set(['127.0.22.3']));

  assert.equal(await masterReloads(), reloads, 'HAProxy master counted no reload');
  assert.equal(h.driver.reloadCount, driverReloads);
  assert.equal((await h.driver.showProc()).workers[0]?.pid, worker, 'the same worker still serves');
});

test('outgrowing the server slots costs exactly one reload, and every member then serves', async () => {
  await applyOk(web([pool('web', members(1))], [{ host: 'web.test', pool: 'web' }]));
  const reloads = await masterReloads();
  const ops = await applyOk(web([pool('web', members(6))], [{ host: 'web.test', pool: 'web' }]));
  assert.deepEqual(ops, ['reload']);
  assert.equal(await masterReloads(), reloads + 1);
  assert.equal((await answering('web.test', 18)).size, 6);
});

test('a new host for an existing backend is a map update; a new host with a new backend is served from a spare (zero reloads)', async () => {
  await applyOk(web([pool('web', members(1)), pool('api', members(1, 1))], [{ host: 'web.test', pool: 'web' }]));
  const reloads = await masterReloads();

  assert.equal((await request(port, 'www.test', '/')).status, 404);
  const mapOnly = await applyOk(
    web(
      [pool('web', members(1)), pool('api', members(1, 1))],
      [
        { host: 'web.test', pool: 'web' },
        { host: 'www.test', pool: 'web' },
      ],
    ),
  );
  assert.deepEqual([...new Set(mapOnly)], ['map']);
  assert.equal(await masterReloads(), reloads);
  assert.equal((await request(port, 'www.test', '/')).echo?.address, '127.0.22.1');

  const structural = await applyOk(
    web(
      [pool('web', members(1)), pool('api', members(1, 1)), pool('shop', members(1, 4))],
      [
        { host: 'web.test', pool: 'web' },
        { host: 'www.test', pool: 'web' },
        { host: 'shop.test', pool: 'shop' },
      ],
    ),
  );
  assert.deepEqual([...new Set(structural)].sort(), ['config-slots', 'file', 'map', 'server']);
  assert.equal(await masterReloads(), reloads, 'the new pool is served from a spare backend: no reload');
  assert.equal((await request(port, 'shop.test', '/')).echo?.address, '127.0.22.5');
  assert.equal((await request(port, 'www.test', '/')).echo?.address, '127.0.22.1');

  // The tidy render gives it a backend of its own: one reload, after which it still serves.
  const world = web(
    [pool('web', members(1)), pool('api', members(1, 1)), pool('shop', members(1, 4))],
    [
      { host: 'web.test', pool: 'web' },
      { host: 'www.test', pool: 'web' },
      { host: 'shop.test', pool: 'shop' },
    ],
  );
  const tidy = await h.apply(world, 1, { tidy: true });
  assert.deepEqual(
    tidy.operations.map((o) => o.objectType),
    ['reload'],
  );
  assert.ok(tidy.results.every((r) => r.ok));
  assert.equal(await masterReloads(), reloads + 1);
  assert.deepEqual(await h.pending(world), [], 'the tidy state is what a plain render of it gives');
  assert.ok((await readBack()).backends.some((b) => b.name === 'http:shop'));
  assert.equal((await request(port, 'shop.test', '/')).echo?.address, '127.0.22.5');
});

test('runtime slot state (address, drain, weight) survives a reload', async () => {
  const hosts = [{ host: 'web.test', pool: 'web' }];
  await applyOk(web([pool('web', members(1))], hosts));
  // Runtime only: a new member in a spare slot, one member draining with weight 5.
  const runtimeMembers = [
    member(echo.backends[0]!.address, echo.backends[0]!.port, { state: 'draining', weight: 5 }),
    ...members(1, 6),
  ];
  assert.deepEqual(await applyOk(web([pool('web', runtimeMembers)], hosts)), ['server', 'server', 'config-slots']);
  const before = parseServersState(await h.driver.runtime.command('show servers state'));

  const reloads = await masterReloads();
  const grown = web([pool('web', runtimeMembers), pool('other', members(1, 7))], hosts);
  const round = await h.apply(grown, 1, { tidy: true });
  assert.deepEqual(
    round.operations.map((o) => o.objectType),
    ['reload'],
  );
  assert.deepEqual(await h.pending(grown), []);
  assert.equal(await masterReloads(), reloads + 1);

  const afterReload = parseServersState(await h.driver.runtime.command('show servers state'));
  const slots = (state: typeof before) => state.find((b) => b.name === 'http:web')?.slots;
  assert.deepEqual(slots(afterReload), slots(before));
  assert.deepEqual(
    slots(afterReload)
      ?.slice(0, 2)
      .map((s) => [s.address, s.state, s.weight]),
    [
      ['127.0.22.1', 'drain', 5],
      ['127.0.22.7', 'ready', 1],
    ],
  );
  // A draining member takes no new requests.
  assert.deepEqual(await answering('web.test', 6), new Set(['127.0.22.7']));
});

test('the rendered config makes HAProxy itself carry drain and weight across a reload (server-state file)', async () => {
  await applyOk(web([pool('web', members(2))], [{ host: 'web.test', pool: 'web' }]));
  // Out of band, so only the state file can bring these back; then a bare master reload, no driver sync.
  await h.driver.runtime.execute(['set server http:web/s1 state drain', 'set server http:web/s2 weight 9']);
  fs.writeFileSync(path.join(h.dir, 'server-state'), `${await h.driver.runtime.command('show servers state')}\n`);
  h.driver.runtime.disconnect();
  assert.equal((await h.driver.master.reload()).ok, true);
  const slots = parseServersState(await h.driver.runtime.command('show servers state http:web'))[0]?.slots;
  assert.deepEqual(
    slots?.slice(0, 2).map((s) => [s.address, s.state, s.weight]),
    [
      ['127.0.22.1', 'drain', 1],
      ['127.0.22.2', 'ready', 9],
    ],
  );
});

test('members keep their slots when the caller diffs against the last applied bundle instead of reading back', async () => {
  const hosts = [{ host: 'web.test', pool: 'web' }];
  const context = { epoch: 1, secrets: h.secrets, signal: new AbortController().signal };
  await applyOk(web([pool('web', members(1))], hosts));
  const first = h.driver.render(web([pool('web', members(1))], hosts), await readBack());
  const second = h.driver.render(web([pool('web', members(2))], hosts), first);
  const sent = await h.driver.executeAll(h.driver.diff(second, first), { ...context, target: second });
  assert.ok(sent.every((r) => r.ok));
  // No read-back: member 2 must stay in s2 when member 1 leaves, so only s1 is written.
  const third = h.driver.render(web([pool('web', members(1, 1))], hosts), second);
  const ops = h.driver.diff(third, second);
  assert.deepEqual(
    ops.map((o) => o.objectName),
    ['http:web/s1', 'haproxy.cfg'],
  );
  assert.ok((await h.driver.executeAll(ops, { ...context, target: third })).every((r) => r.ok));
  assert.deepEqual(await h.pending(web([pool('web', members(1, 1))], hosts)), []);
  assert.deepEqual(await answering('web.test', 4), new Set(['127.0.22.2']));
});

test('endpoint changes keep haproxy.cfg equal to the render byte for byte, and a file someone else changed is patched, not overwritten', async () => {
  const hosts = [{ host: 'web.test', pool: 'web' }];
  const context = { epoch: 1, secrets: h.secrets, signal: new AbortController().signal };
  const cfg = path.join(h.dir, 'haproxy.cfg');
  await applyOk(web([pool('web', members(1))], hosts));
  let previous = h.driver.render(web([pool('web', members(1))], hosts), await readBack());
  for (const next of [members(2), members(3), members(2, 1), members(1, 2)]) {
    const rendered = h.driver.render(web([pool('web', next)], hosts), previous);
    const ops = h.driver.diff(rendered, previous);
    assert.ok(
      ops.some((o) => o.objectType === 'config-slots'),
      'an endpoint-only change',
    );
    assert.ok((await h.driver.executeAll(ops, { ...context, target: rendered })).every((r) => r.ok));
    await h.driver.settle(); // the server lines are queued for up to a second; settle writes them now
    assert.equal(fs.readFileSync(cfg, 'utf8'), cfgText(rendered), 'the file is the render');
    previous = rendered;
  }
  // A structural change (one more pool: a reload), then an endpoint change: the file is written from the render again.
  const grown = h.driver.render(
    web([pool('web', members(1, 2)), pool('api', members(1))], [...hosts, { host: 'api.test', pool: 'api' }]),
    previous,
  );
  const grownResults = await h.driver.executeAll(h.driver.diff(grown, previous), { ...context, target: grown });
  assert.ok(grownResults.every((r) => r.ok));
  const moved = h.driver.render(
    web([pool('web', members(1, 3)), pool('api', members(1))], [...hosts, { host: 'api.test', pool: 'api' }]),
    grown,
  );
  const movedOps = h.driver.diff(moved, grown);
  const movedResults = await h.driver.executeAll(movedOps, { ...context, target: moved });
  const slotsResult = movedResults[movedOps.findIndex((o) => o.objectType === 'config-slots')];
  assert.ok(
    slotsResult?.ok === true && slotsResult.detail?.includes('written from the render'),
    `after a reload: ${JSON.stringify(slotsResult)}`,
  );
  await h.driver.settle();
  assert.equal(fs.readFileSync(cfg, 'utf8'), cfgText(moved));
  previous = moved;
  fs.appendFileSync(cfg, '# an operator was here\n');
  const rendered = h.driver.render(
    web([pool('web', members(2)), pool('api', members(1))], [...hosts, { host: 'api.test', pool: 'api' }]),
    previous,
  );
  const foreign = await h.driver.executeAll(h.driver.diff(rendered, previous), { ...context, target: rendered });
  assert.ok(foreign.every((r) => r.ok));
  assert.ok(
    foreign.some((r) => r.ok && r.detail?.endsWith('patched in the text')),
    'a file changed by someone else is patched at once',
  );
  const text = fs.readFileSync(cfg, 'utf8');
  assert.ok(text.endsWith('# an operator was here\n'), 'the foreign line is kept (drift detection reports it)');
  assert.equal(text.replace('# an operator was here\n', ''), cfgText(rendered), 'the server lines are patched');
});

test('health checks from the pool monitor keep traffic off a member that does not answer', async () => {
  const deadPort = await freePort();
  const monitored = pool('web', [...members(1), member('127.0.22.99', deadPort)], {
    monitor: {
      type: 'http',
      path: '/healthz',
      hostHeader: 'web.test',
      expectStatus: '^200$',
      intervalSeconds: 0.1,
      timeoutSeconds: 0.5,
      failures: 1,
      vendor: null,
    },
  });
  await applyOk(web([monitored], [{ host: 'web.test', pool: 'web' }]));
  // The dead member is marked down after its first failed check (fall 1, inter 100 ms).
  const deadline = Date.now() + 5_000;
  for (;;) {
    const rows = (await h.driver.runtime.command('show servers state http:web')).split('\n');
    const dead = rows.find((r) => r.includes(' 127.0.22.99 '));
    if (dead?.split(' ')[5] === '0') break;
    assert.ok(Date.now() < deadline, `dead member not marked down: ${dead}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  for (let i = 0; i < 8; i++) assert.equal((await request(port, 'web.test', '/')).status, 200);
});

test('cookie persistence pins a client to the member it first reached', async () => {
  const sticky = pool('web', members(3), { persistence: { type: 'cookie', cookie: 'PORTOLAN_S', vendor: null } });
  await applyOk(web([sticky], [{ host: 'web.test', pool: 'web' }]));
  const first = await request(port, 'web.test', '/');
  const setCookie = first.headers['set-cookie']?.[0] ?? '';
  assert.match(setCookie, /^PORTOLAN_S=s\d+/);
  const cookie = setCookie.split(';')[0] ?? '';
  const seen = new Set<string>();
  for (let i = 0; i < 6; i++) {
    const reply = await request(port, 'web.test', '/', { headers: { cookie } });
    if (reply.echo) seen.add(reply.echo.address);
  }
  assert.deepEqual(seen, new Set([first.echo?.address]));
});

test('after someone else reloads HAProxy, the next endpoint change (diffed without a read-back) reaches the worker that serves', async () => {
  const hosts = [{ host: 'web.test', pool: 'web' }];
  const context = { epoch: 1, secrets: h.secrets, signal: new AbortController().signal };
  await applyOk(web([pool('web', members(1))], hosts)); // its read-back tells the driver which worker runs
  const applied = h.driver.render(web([pool('web', members(1))], hosts), await readBack());
  const before = (await h.driver.showProc()).workers[0]?.pid;
  await h.driver.master.reload();
  for (let i = 0; i < 100 && (await h.driver.showProc()).workers[0]?.pid === before; i++)
    await new Promise((r) => setTimeout(r, 50));
  assert.notEqual((await h.driver.showProc()).workers[0]?.pid, before, 'a new worker serves');
  // As the applier's hot path does: diff against what it applied, no read-back in between.
  const next = h.driver.render(web([pool('web', members(1, 2))], hosts), applied);
  const ops = h.driver.diff(next, applied);
  assert.ok(
    ops.some((o) => o.objectType === 'server'),
    'an endpoint-only change',
  );
  assert.ok((await h.driver.executeAll(ops, { ...context, target: next })).every((r) => r.ok));
  assert.deepEqual(await answering('web.test', 6), new Set(['127.0.22.3']), 'the serving worker has the new endpoint');
});

test('while someone else reloads HAProxy, read-backs and endpoint changes keep succeeding through the master re-executing itself', async () => {
  const hosts = [{ host: 'web.test', pool: 'web' }];
  const states = [web([pool('web', members(2))], hosts), web([pool('web', members(2, 4))], hosts)];
  await applyOk(states[0]!);
  const reloadsBefore = await masterReloads();
  let rounds = 0;
  for (let reload = 0; reload < 3; reload++) {
    await h.driver.master.command('reload', { repeatable: false }); // someone else's reload: nobody waits for it
    for (const until = performance.now() + 400; performance.now() < until; rounds++) {
      const round = await h.apply(states[(rounds + 1) % 2]!); // each round moves both members: two server updates
      assert.ok(
        round.results.every((r) => r.ok),
        JSON.stringify(round.results),
      );
    }
  }
  assert.ok(rounds >= 6, `applied ${rounds} times while reloads ran`);
  assert.equal(await masterReloads(), reloadsBefore + 3, 'the three reloads happened, and the applies added none');
  const last = states[rounds % 2]!;
  assert.deepEqual(await h.pending(last), []);
  assert.deepEqual(
    await answering('web.test', 8),
    new Set(rounds % 2 === 0 ? ['127.0.22.1', '127.0.22.2'] : ['127.0.22.5', '127.0.22.6']),
  );
});
