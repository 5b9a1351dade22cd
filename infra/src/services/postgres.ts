import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { migrateToLatest, openDatabase } from '@portolan/store';
import type { StackConfig } from '../stack-config.ts';
import { StackServiceError } from '../errors.ts';
import { daemonService, type StackService } from './daemon-service.ts';
import { postgresHome } from './postgres-home.ts';

/** Postgres with a `portolan` role and database, migrations applied. Runs as the `postgres` user when started as root. */
export function postgresService(config: StackConfig, postgresBinary: string): StackService {
  const runAs = process.getuid?.() === 0 ? postgresUser() : undefined;
  const dir = postgresHome(config.stateDir, runAs);
  const dataDir = path.join(dir, 'data');
  const bin = path.dirname(postgresBinary);
  const url = (db: string): string => `postgres://portolan@127.0.0.1:${config.postgresPort}/${db}`;

  return daemonService({
    name: 'postgres',
    port: config.postgresPort,
    dir,
    command: postgresBinary,
    args: postgresArgs(dataDir, config.postgresPort, dir),
    ...(runAs === undefined ? {} : { runAs }),
    // SIGINT is Postgres's "fast" shutdown: SIGTERM would wait for every client to leave.
    stopSignal: 'SIGINT',
    prepare: () => preparePostgres(config.stateDir, dir, dataDir, bin, runAs),
    healthy: () => postgresAnswers(url('postgres')),
    afterStart: () => createAndMigrate(url),
  });
}

/** The command line of one Postgres server: on one address (loopback), durable commits, ready to stream to a standby. */
export function postgresArgs(dataDir: string, port: number, socketDir: string, host = '127.0.0.1'): string[] {
  return [
    ...['-D', dataDir, '-p', String(port), '-k', socketDir],
    ...['-c', `listen_addresses=${host}`, '-c', 'max_connections=200'],
    ...['-c', 'fsync=on', '-c', 'synchronous_commit=on'],
  ];
}

/** Creates the data directory once (initdb), owned by the postgres user when we run as root. */
export function preparePostgres(
  stateDir: string,
  dir: string,
  dataDir: string,
  bin: string,
  runAs: { uid: number; gid: number } | undefined,
): void {
  preparePostgresHome(stateDir, dir, runAs);
  if (existsSync(path.join(dataDir, 'PG_VERSION'))) return;
  try {
    const args = ['-D', dataDir, '-U', 'portolan', '--auth=trust', '--encoding=UTF8', '--locale=C'];
    execFileSync(path.join(bin, 'initdb'), args, { stdio: ['ignore', 'pipe', 'pipe'], ...(runAs ?? {}) });
  } catch (cause) {
    const stderr = String((cause as { stderr?: Buffer }).stderr ?? '');
    throw new StackServiceError('STACK_START_FAILED', 'postgres', `initdb failed: ${stderr.trim()}`, { cause });
  }
}

/** Creates the folder holding a node's data, socket and log, owned by the postgres user when we run as root. */
export function preparePostgresHome(stateDir: string, dir: string, runAs: { uid: number; gid: number } | undefined) {
  mkdirSync(dir, { recursive: true });
  if (runAs !== undefined) {
    // The postgres user must be able to traverse the state folder (mktemp -d makes it 0700), unless its data was
    // moved out of reach of a 0700 home directory (postgresHome).
    if (dir.startsWith(stateDir + path.sep)) chmodSync(stateDir, statSync(stateDir).mode | 0o011);
    chownSync(dir, runAs.uid, runAs.gid);
    chmodSync(dir, 0o700);
  }
}

/** True when Postgres accepts a connection and answers a query; false while it is starting or down. */
export async function postgresAnswers(connectionString: string): Promise<boolean> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 1000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    // Refused, timed out or still in recovery: not healthy yet, the starter polls again.
    return false;
  } finally {
    // A client that never connected has nothing to close; its end() failing changes nothing.
    await client.end().catch(() => undefined);
  }
}

/** Creates the portolan database when missing, then applies every migration. */
export async function createAndMigrate(url: (db: string) => string): Promise<void> {
  const client = new pg.Client({ connectionString: url('postgres') });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', ['portolan']);
    if (found.rowCount === 0) await client.query('CREATE DATABASE portolan');
  } finally {
    await client.end();
  }
  const db = openDatabase(url('portolan'), { max: 1 });
  try {
    await migrateToLatest(db);
  } finally {
    await db.destroy();
  }
}

/** The postgres system user, which runs Postgres when the stack is started as root. */
export function postgresUser(): { uid: number; gid: number } {
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch (cause) {
    throw new StackServiceError(
      'STACK_START_FAILED',
      'postgres',
      'running as root needs the "postgres" system user (created by the postgresql package)',
      { cause },
    );
  }
}
