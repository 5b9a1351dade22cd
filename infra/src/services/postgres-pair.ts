// A Postgres primary and its streaming standby. Which node is primary is recorded in a file beside the nodes, moved
// only by `promote`. A node that is not the recorded primary is started as a standby of it: when its data is not
// already a standby of that primary (the old primary after a promotion, or a first start), it is replaced by a fresh
// base backup. The primary waits for the standby to flush each commit (a synchronous standby), so a promoted standby
// holds every acknowledged commit; a primary alone (after a promotion) commits without waiting.
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { nodeCommand, nodeHost, type HaStackConfig } from '../ha-stack-config.ts';
import { StackServiceError } from '../errors.ts';
import { waitFor } from '../process-control.ts';
import { daemonService, type StackService } from './daemon-service.ts';
import { postgresHome } from './postgres-home.ts';
import {
  createAndMigrate,
  postgresAnswers,
  postgresArgs,
  postgresUser,
  preparePostgres,
  preparePostgresHome,
} from './postgres.ts';

/** Postgres node 1 and node 2, and the operation that promotes the standby. */
export interface PostgresPair {
  readonly nodes: readonly [StackService, StackService];
  /** The recorded primary: 0 for node 1, 1 for node 2. */
  primary(): 0 | 1;
  /** Promotes the standby (whose primary is gone) and records it as the primary. Returns its index. */
  promote(): Promise<0 | 1>;
  /**
   * Off: the primary stops waiting for its standby (what a failover manager does when the standby is lost, e.g.
   * Patroni's synchronous mode). On: once the standby has flushed everything written so far, the primary waits for
   * it again (as when the standby starts).
   */
  synchronous(on: boolean): Promise<void>;
}

/** Builds the pair for an HA stack config. */
export function postgresPair(config: HaStackConfig, postgresBinary: string): PostgresPair {
  const runAs = process.getuid?.() === 0 ? postgresUser() : undefined;
  const home = postgresHome(config.stateDir, runAs);
  const marker = path.join(config.stateDir, 'postgres-primary');
  const primary = (): 0 | 1 => (existsSync(marker) && readFileSync(marker, 'utf8').trim() === '2' ? 1 : 0);
  const host = (i: 0 | 1): string => nodeHost(config, `postgres-${i + 1}`);
  const url = (i: 0 | 1, db = 'portolan'): string => `postgres://portolan@${host(i)}:${config.postgres[i]}/${db}`;
  const node = (i: 0 | 1): StackService => {
    const dir = `${home}-${i + 1}`;
    const dataDir = path.join(dir, 'data');
    const bin = path.dirname(postgresBinary);
    const name = `postgres-${i + 1}`;
    return daemonService({
      name,
      port: config.postgres[i],
      host: host(i),
      dir,
      ...placedCommand(config, name, postgresBinary, postgresArgs(dataDir, config.postgres[i], dir, host(i)), runAs),
      stopSignal: 'SIGINT',
      startTimeoutMs: 60_000,
      prepare: () => {
        if (i === primary()) {
          preparePostgres(config.stateDir, dir, dataDir, bin, runAs);
          // A standby's base backup copies the primary's pg_hba.conf with it.
          if (config.sites !== undefined) allowSubnet(dataDir, config.sites.subnet);
          return;
        }
        preparePostgresHome(config.stateDir, dir, runAs);
        prepareStandby(dataDir, bin, { host: host(primary()), port: config.postgres[primary()] }, runAs);
      },
      healthy: () => postgresAnswers(url(i, 'postgres')),
      afterStart: async () => {
        if (i === primary()) {
          // Alone until the standby is back: a commit that waited for it would wait for ever.
          await setSynchronousStandby(url(i, 'postgres'), false);
          await createAndMigrate((db) => url(i, db));
        } else await setSynchronousStandby(url(primary(), 'postgres'), true);
      },
    });
  };
  return {
    nodes: [node(0), node(1)],
    primary,
    async promote() {
      const standby: 0 | 1 = primary() === 0 ? 1 : 0;
      await sql(url(standby, 'postgres'), 'SELECT pg_promote(true, 60)');
      await setSynchronousStandby(url(standby, 'postgres'), false);
      writeFileSync(marker, `${standby + 1}\n`);
      return standby;
    },
    async synchronous(on) {
      const primaryUrl = url(primary(), 'postgres');
      if (on) await standbyCaughtUp(primaryUrl);
      await setSynchronousStandby(primaryUrl, on);
    },
  };
}

/**
 * The command of a Postgres node: as it is, with the postgres user's ids; or, placed in a site, `ip netns exec`
 * started as root (entering a namespace needs it) then `setpriv` to the postgres user, each replacing itself so the
 * pid stays Postgres's.
 */
function placedCommand(
  config: HaStackConfig,
  name: string,
  binary: string,
  args: readonly string[],
  runAs: { uid: number; gid: number } | undefined,
): { command: string; args: string[]; runAs?: { uid: number; gid: number } } {
  if (config.sites === undefined)
    return { command: binary, args: [...args], ...(runAs === undefined ? {} : { runAs }) };
  if (runAs === undefined) return nodeCommand(config, name, binary, args);
  const ids = ['--reuid', String(runAs.uid), '--regid', String(runAs.gid), '--clear-groups', '--'];
  return nodeCommand(config, name, 'setpriv', [...ids, binary, ...args]);
}

/** Lets the sites' /24 connect and replicate (initdb's pg_hba.conf only trusts loopback). */
function allowSubnet(dataDir: string, subnet: string): void {
  const hba = path.join(dataDir, 'pg_hba.conf');
  const lines = `host all all ${subnet} trust\nhost replication all ${subnet} trust\n`;
  if (!readFileSync(hba, 'utf8').includes(lines)) appendFileSync(hba, `# the HA stack's sites\n${lines}`);
}

/** Waits until a streaming standby has flushed everything the primary had written when this was called. */
async function standbyCaughtUp(primaryUrl: string, timeoutMs = 60_000): Promise<void> {
  const [{ lsn }] = (await rows(primaryUrl, 'SELECT pg_current_wal_lsn()::text AS lsn')) as [{ lsn: string }];
  const caughtUp = async (): Promise<boolean> =>
    (
      await rows(
        primaryUrl,
        "SELECT 1 FROM pg_stat_replication WHERE state = 'streaming' AND flush_lsn >= $1::pg_lsn",
        [lsn],
      )
    ).length > 0;
  if (!(await waitFor(caughtUp, timeoutMs, 200)))
    throw new StackServiceError(
      'STACK_NOT_RUNNING',
      'postgres',
      `the standby did not reach ${lsn} within ${timeoutMs} ms`,
    );
}

/** Replaces `dataDir` with a base backup of the primary at `primaryAt`, unless it already follows that primary. */
function prepareStandby(
  dataDir: string,
  bin: string,
  primaryAt: { host: string; port: number },
  runAs: { uid: number; gid: number } | undefined,
) {
  const autoConf = path.join(dataDir, 'postgresql.auto.conf');
  const follows =
    existsSync(path.join(dataDir, 'standby.signal')) &&
    existsSync(autoConf) &&
    readFileSync(autoConf, 'utf8').includes(`port=${primaryAt.port} `);
  if (follows) return;
  rmSync(dataDir, { recursive: true, force: true });
  try {
    const at = ['-h', primaryAt.host, '-p', String(primaryAt.port)];
    const args = ['-D', dataDir, ...at, '-U', 'portolan', '-X', 'stream', '-R'];
    execFileSync(path.join(bin, 'pg_basebackup'), [...args, '-c', 'fast'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(runAs ?? {}),
    });
  } catch (cause) {
    const stderr = String((cause as { stderr?: Buffer }).stderr ?? '');
    throw new StackServiceError('STACK_START_FAILED', 'postgres', `pg_basebackup failed: ${stderr.trim()}`, { cause });
  }
}

/** Makes the primary on `url` wait for a standby's flush before a commit returns (on), or not (off). */
async function setSynchronousStandby(url: string, on: boolean): Promise<void> {
  await sql(
    url,
    on ? "ALTER SYSTEM SET synchronous_standby_names = '*'" : 'ALTER SYSTEM RESET synchronous_standby_names',
  );
  await sql(url, 'SELECT pg_reload_conf()');
}

async function sql(url: string, text: string): Promise<void> {
  await rows(url, text);
}

async function rows(url: string, text: string, values: unknown[] = []): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return (await client.query(text, values)).rows;
  } finally {
    await client.end();
  }
}
