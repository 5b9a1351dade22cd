import { PortolanError } from '@portolan/errors';
import { Kysely, Migrator, PostgresDialect, type MigrationProvider } from 'kysely';
import pg from 'pg';
import { migrations } from './migrations/index.ts';
import type { Database } from './schema.ts';

// int8 columns come back as strings by default; keep them as strings (callers convert where they know the range).

/** A failed migration: names the migration and carries the database error. */
export class MigrationError extends PortolanError {
  readonly code = 'STORE_MIGRATION_FAILED';
}

/** Opens a kysely handle on a Postgres URL. `max` bounds the pool. */
export function openDatabase(url: string, options: { max?: number } = {}): Kysely<Database> {
  const pool = new pg.Pool({ connectionString: url, max: options.max ?? 5 });
  // Idle clients that error (server restart, pg_terminate_backend) must not crash the process.
  pool.on('error', () => {});
  // Nor may checked-out ones: the pool listens only to idle clients, and a client whose server goes away while it is
  // checked out (inside a transaction, between its statements, on `pg_ctl stop`) emits 'error' with no listener,
  // an uncaught exception. The caller still gets the failure: its pending and later queries on the client reject.
  pool.on('connect', (client) => client.on('error', () => {}));
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
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
