// The HA stack's engines and its fault operations, without Portolan's clients: each engine fails over on its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import pg from 'pg';
import { haStack, type HaStack } from './ha-stack.ts';
import { freeHaPorts } from './ha-stack-config.ts';
import { freePort, isPortOpen, waitFor } from './process-control.ts';

/** Runs one statement on one Postgres node and returns its rows. */
async function query(url: string, text: string, values: unknown[] = []): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as Record<string, unknown>[];
  } finally {
    await client.end();
  }
}

async function withStack(body: (stack: HaStack) => Promise<void>): Promise<void> {
  const stateDir = mkdtempSync(path.join(tmpdir(), 'portolan-ha-'));
  const stack = haStack({ config: { stateDir, ...(await freeHaPorts()) } });
  try {
    await stack.up();
    await body(stack);
  } finally {
    await stack.down();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

test('the HA stack comes up healthy; a crashed primary is replaced by its standby, and rejoins as a standby', async () => {
  await withStack(async (stack) => {
    const status = await stack.status();
    assert.deepEqual(
      status.filter((s) => !s.healthy).map((s) => s.name),
      [],
      'every node is healthy after up',
    );
    assert.equal(status.length, 10);
    const [node1, node2] = stack.endpoints.postgresNodeUrls;
    await query(node1, 'CREATE TABLE acked (n int)');
    await query(node1, 'INSERT INTO acked VALUES (1)');
    assert.deepEqual(await query(node2, 'SELECT pg_is_in_recovery() AS standby'), [{ standby: true }]);

    await stack.kill('postgres-1');
    assert.equal(await stack.promotePostgres(), 'postgres-2');
    // Synchronous replication: the commit acknowledged by the old primary is on the new one.
    assert.deepEqual(await query(node2, 'SELECT n FROM acked'), [{ n: 1 }]);
    await query(node2, 'INSERT INTO acked VALUES (2)');

    await stack.up();
    assert.equal(stack.postgresPrimary(), 'postgres-2');
    assert.deepEqual(await query(node1, 'SELECT pg_is_in_recovery() AS standby'), [{ standby: true }]);
    const rejoined = await waitFor(
      async () => (await query(node1, 'SELECT count(*)::int AS c FROM acked'))[0]?.c === 2,
      10_000,
    );
    assert.ok(rejoined, 'the old primary, rebuilt as a standby, streams from the new one');
  });
});

test('the Sentinels promote the Redis replica when the master is killed; a NATS node loss leaves two healthy', async () => {
  await withStack(async (stack) => {
    assert.equal(await stack.redisMaster(), 'redis-1');
    await stack.kill('redis-1');
    // Usually 1 to 5 s; when the Sentinels' first leader vote splits, they retry after twice the failover timeout
    // (10 s). How fast it is, the ha-failover benchmark measures.
    const promoted = await waitFor(async () => (await stack.redisMaster()) === 'redis-2', 45_000, 200);
    assert.ok(promoted, 'the Sentinels name redis-2 as master');

    await stack.kill('nats-1');
    const natsHealthy = async (): Promise<string[]> =>
      (await stack.status()).filter((s) => s.name.startsWith('nats-') && s.healthy).map((s) => s.name);
    // The two left elect a new meta leader if they lost it: their health may lapse for a moment.
    await waitFor(async () => (await natsHealthy()).length === 2, 10_000, 200);
    assert.deepEqual(await natsHealthy(), ['nats-2', 'nats-3']);
  });
});

const run = promisify(execFile);
const cli = path.resolve(import.meta.dirname, '..', '..', 'packages', 'cli', 'bin', 'portolan.js');

/** A base port whose 17 successors are all free a moment ago (the CLI takes one base port, not a list). */
async function freeBasePort(): Promise<number> {
  for (;;) {
    const base = await freePort();
    const ports = Array.from({ length: 17 }, (_, i) => base + i);
    if (base + 16 < 65_500 && (await Promise.all(ports.map((p) => isPortOpen(p)))).every((open) => !open)) return base;
  }
}

test('`portolan stack up --ha`, `status --ha` and `down --ha`: ten nodes healthy, then stopped', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'portolan-ha-cli-'));
  const env = { ...process.env, PORTOLAN_HA_STATE_DIR: dir, PORTOLAN_HA_BASE_PORT: String(await freeBasePort()) };
  const portolan = (...args: string[]) => run(process.execPath, [cli, ...args], { env, timeout: 120_000 });
  try {
    const up = await portolan('stack', 'up', '--ha');
    assert.match(up.stdout, /nats +nats:\/\/127\.0\.0\.1:\d+,nats:\/\/127\.0\.0\.1:\d+,nats:\/\/127\.0\.0\.1:\d+/);
    const status = await portolan('stack', 'status', '--ha');
    const states = status.stdout
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(/\s+/).slice(0, 2).join(' '));
    assert.deepEqual(
      states,
      [
        ...['nats-1', 'nats-2', 'nats-3', 'postgres-1', 'postgres-2', 'redis-1', 'redis-2'],
        ...['sentinel-1', 'sentinel-2', 'sentinel-3'],
      ].map((n) => `${n} healthy`),
    );
    await portolan('stack', 'down', '--ha');
    const after = await portolan('stack', 'status', '--ha').catch((e: { code: number; stdout: string }) => e);
    assert.equal((after as { code?: number }).code, 1, 'status exits 1 when the nodes are down');
  } finally {
    await portolan('stack', 'down', '--ha').catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
});
