// The store on a Postgres primary and its synchronous standby, through the multi-host URL: when the primary is
// killed and the standby promoted, the same handle commits again within seconds, and no acknowledged commit is lost.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openDatabase, sql } from '@portolan/store';
import { firstSuccess, haStackFixture } from './ha-fixture.ts';

const fixture = haStackFixture();

test('a killed primary, a promoted standby: commits resume on the same handle, every acknowledged one kept', async () => {
  const stack = fixture.stack;
  const db = openDatabase(stack.endpoints.postgresUrl, { max: 2 });
  try {
    await sql`CREATE TABLE acked (n int PRIMARY KEY)`.execute(db);
    const acked: number[] = [];
    const insert = async (n: number): Promise<void> => {
      await sql`INSERT INTO acked VALUES (${n})`.execute(db);
      acked.push(n);
    };
    for (let n = 1; n <= 20; n++) await insert(n);
    await stack.kill(stack.postgresPrimary());
    const killed = performance.now();
    // Writes fail while no host is writable: the standby refuses them until it is promoted. Each pooled connection
    // to the killed primary may fail first with its own words for its end (the server's, or the socket's reset).
    let refused = '';
    for (let attempt = 0; attempt < 4 && !/no writable Postgres host/.test(refused); attempt++)
      refused = await insert(21).then(
        () => assert.fail('a write succeeded while no host was writable'),
        (e: unknown) => (e as Error).message,
      );
    assert.match(refused, /no writable Postgres host/);
    assert.equal(await stack.promotePostgres(), 'postgres-2');
    const promoted = performance.now();
    let n = 21;
    const { at } = await firstSuccess(() => insert(n++), 10_000);
    for (let i = 0; i < 20; i++) await insert(n++);
    process.stdout.write(
      `# commits resumed ${((at - promoted) / 1000).toFixed(2)} s after the promotion ` +
        `(${((at - killed) / 1000).toFixed(2)} s after the kill, promotion included)\n`,
    );
    assert.ok(at - promoted < 10_000, 'the handle finds the new primary within seconds');
    const { rows } = await sql<{ n: number }>`SELECT n FROM acked ORDER BY n`.execute(db);
    const kept = new Set(rows.map((r) => r.n));
    assert.deepEqual(
      acked.filter((a) => !kept.has(a)),
      [],
      'every acknowledged commit is on the new primary',
    );
  } finally {
    await db.destroy();
  }
});
