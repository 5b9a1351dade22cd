import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import pg from 'pg';
import { migrateToLatest, openDatabase } from './database.ts';
import type { Database } from './schema.ts';

/** A freshly created, migrated database for one test file; `drop()` removes it. */
export interface TestDatabase {
  readonly url: string;
  readonly db: Kysely<Database>;
  drop(): Promise<void>;
}

/** Creates `portolan_test_<random>` on the server of `adminUrl`, migrates it and returns a handle. */
export async function createTestDatabase(adminUrl: string): Promise<TestDatabase> {
  const name = `portolan_test_${randomBytes(6).toString('hex')}`;
  await withAdmin(adminUrl, (c) => c.query(`CREATE DATABASE ${name}`));
  const url = withDatabase(adminUrl, name);
  const db = openDatabase(url);
  await migrateToLatest(db);
  return {
    url,
    db,
    drop: async () => {
      await db.destroy();
      await withAdmin(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function withAdmin<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: withDatabase(url, 'postgres') });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
