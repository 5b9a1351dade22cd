import { PortolanError } from '@portolan/errors';
import { Kysely, Migrator, PostgresDialect, type MigrationProvider } from 'kysely';
import pg from 'pg';
import { migrations } from './migrations/index.ts';
import type { Database } from './schema.ts';
import { splitHostList, WritableHostPool } from './writable-host-pool.ts';

// int8 columns come back as strings by default; keep them as strings (callers convert where they know the range).

/** A failed migration: names the migration and carries the database error. */
export class MigrationError extends PortolanError {
  readonly code = 'STORE_MIGRATION_FAILED';
}

/**
 * Opens a kysely handle on a Postgres URL. `max` bounds the pool (per host). A libpq multi-host URL
 * (`postgres://u@h1:p1,h2:p2/db`) gets connections from whichever host accepts writes (WritableHostPool), so the
 * handle follows a standby's promotion.
 */
export function openDatabase(url: string, options: { max?: number } = {}): Kysely<Database> {
  const max = options.max ?? 5;
  const hosts = splitHostList(url);
  const pool =
    hosts === null
      ? guarded(new pg.Pool({ connectionString: url, max }))
      : // A host that does not answer (partitioned, not refusing) is given up after 5 s, so the next is tried.
        new WritableHostPool(hosts, (host) =>
          guarded(new pg.Pool({ connectionString: host, max, connectionTimeoutMillis: 5000 })),
        );
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

/** The pool, made safe against connections that fail while nobody is waiting on them. */
function guarded(pool: pg.Pool): pg.Pool {
  // Idle clients that error (server restart, pg_terminate_backend) must not crash the process.
  pool.on('error', () => {});
  // Nor may checked-out ones: the pool listens only to idle clients, and a client whose server goes away while it is
  // checked out (inside a transaction, between its statements, on `pg_ctl stop`) emits 'error' with no listener,
  // an uncaught exception. The caller still gets the failure: its pending and later queries on the client reject.
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

const provider: MigrationProvider = { getMigrations: async () => ({ ...migrations }) };

/** Applies every pending migration; safe to call from several processes at once (kysely takes a lock). */
export async function migrateToLatest(db: Kysely<Database>): Promise<readonly string[]> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error !== undefined || failed !== undefined) {
    throw new MigrationError(
      `migration ${failed?.migrationName ?? '(unknown)'} failed: ${String((error as Error | undefined)?.message ?? error)}`,
      { cause: error },
    );
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
