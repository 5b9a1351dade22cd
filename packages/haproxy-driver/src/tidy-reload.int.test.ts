import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { type EchoBackends, startEchoBackends } from '@portolan/echo-backend';
import type { DesiredState, Pool } from '@portolan/desired-state';
import { type Harness, freePort, startHarness } from './testing/haproxy-harness.ts';
import { desired, member, pool, route, service } from './testing/desired-fixtures.ts';

// New hosts and Services under constant traffic: served from spare backends through the Runtime API, then tidied by a
// reload that drops no request. Traffic runs over keep-alive connections and over a new connection per request.
let h: Harness;
let echo: EchoBackends;
let port: number;

before(async () => {
  h = await startHarness({ minFreeSlots: 2, slotIncrement: 4, spareBackends: 2, spareSlots: 4 });
  echo = await startEchoBackends(Array.from({ length: 6 }, (_, i) => ({ address: `127.0.23.${i + 1}`, port: 0 })));
  port = await freePort();
});

after(async () => {
  await echo?.close();
  await h?.[Symbol.asyncDispose]();
});

function world(hosts: readonly string[]): DesiredState {
  const pools: Pool[] = hosts.map((host, i) => pool(host, [member(echo.backends[i]!.address, echo.backends[i]!.port)]));
  return desired({
    pools,
    virtualServices: [
      service(
        'http',
        port,
        hosts.map((x) => route(x, '/', 'Prefix', x)),
      ),
    ],
  });
}

/** Requests to `hosts` from `loops` clients at once until stopped; every answer that is not a 200 from the right member fails. */
class Traffic {
  readonly failures: string[] = [];
  readonly answered = new Map<string, number>();
  #running = true;
  readonly #done: Promise<void>[] = [];

  constructor(hosts: () => readonly string[], loops: number) {
    const keepAlive = new http.Agent({ keepAlive: true, maxSockets: loops });
    for (let i = 0; i < loops; i++) {
      // Half the clients reuse connections (the case a reload closes under them), half open one per request.
      const agent = i % 2 === 0 ? keepAlive : false;
      this.#done.push(this.#loop(hosts, agent, i));
    }
    this.stop = async () => {
      this.#running = false;
      await Promise.all(this.#done);
      keepAlive.destroy();
    };
  }

  readonly stop: () => Promise<void>;

  async #loop(hosts: () => readonly string[], agent: http.Agent | false, seed: number): Promise<void> {
    for (let n = seed; this.#running; n++) {
      const list = hosts();
      const host = list[n % list.length]!;
      const expected = echo.backends[list.indexOf(host)]!.address;
      const outcome = await get(host, agent);
      if (outcome !== expected) this.failures.push(`${host}: ${outcome}`);
      else this.answered.set(host, (this.answered.get(host) ?? 0) + 1);
    }
  }
}

/** The echo member that answered a GET for `host`, or what went wrong. */
function get(host: string, agent: http.Agent | false): Promise<string> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/', headers: { host }, agent, timeout: 5000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        if (res.statusCode !== 200) return resolve(`status ${res.statusCode}`);
        try {
          resolve((JSON.parse(body) as { address: string }).address);
        } catch {
          resolve(`unreadable body ${body.slice(0, 80)}`);
        }
      });
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (e) => resolve(`error ${e.message}`));
  });
}

test('new hosts go live without a reload, and the tidy reload under constant traffic fails no request', async () => {
  const first = await h.apply(world(['a.test']));
  assert.ok(first.results.every((r) => r.ok));
  const reloads = (await h.driver.showProc()).master.reloads;
  let live = ['a.test'];
  const traffic = new Traffic(() => live, 6);
  try {
    await new Promise((r) => setTimeout(r, 300));
    // Two new hosts, each with a new Service: both bridged into the two spares.
    for (const next of [
      ['a.test', 'b.test'],
      ['a.test', 'b.test', 'c.test'],
    ]) {
      const round = await h.apply(world(next));
      assert.ok(round.results.every((r) => r.ok));
      assert.ok(!round.operations.some((o) => o.objectType === 'reload'), 'a new host is served without a reload');
      assert.ok(h.driver.provisional(round.rendered));
      live = next;
      await new Promise((r) => setTimeout(r, 300));
    }
    assert.equal((await h.driver.showProc()).master.reloads, reloads, 'no reload so far');
    const tidy = await h.apply(world(live), 1, { tidy: true });
    assert.deepEqual(
      tidy.operations.map((o) => o.objectType),
      ['reload'],
    );
    assert.ok(tidy.results.every((r) => r.ok));
    assert.equal(h.driver.provisional(tidy.rendered), false);
    await new Promise((r) => setTimeout(r, 500));
  } finally {
    await traffic.stop();
  }
  assert.equal((await h.driver.showProc()).master.reloads, reloads + 1, 'exactly the tidy reload');
  assert.deepEqual(traffic.failures.slice(0, 5), [], `${traffic.failures.length} requests failed`);
  for (const host of live) assert.ok((traffic.answered.get(host) ?? 0) > 10, `${host} was answered`);
  assert.deepEqual(await h.pending(world(live)), []);
});
