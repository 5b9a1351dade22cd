// A Postgres primary and its streaming standby. Which node is primary is recorded in a file beside the nodes, moved
// only by `promote`. A node that is not the recorded primary is started as a standby of it: when its data is not
// already a standby of that primary (the old primary after a promotion, or a first start), it is replaced by a fresh
// base backup. The primary waits for the standby to flush each commit (a synchronous standby), so a promoted standby
// holds every acknowledged commit; a primary alone (after a promotion) commits without waiting.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { HaStackConfig } from '../ha-stack-config.ts';
import { StackServiceError } from '../errors.ts';
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
}

/** Builds the pair for an HA stack config. */
export function postgresPair(config: HaStackConfig, postgresBinary: string): PostgresPair {
  const runAs = process.getuid?.() === 0 ? postgresUser() : undefined;
  const home = postgresHome(config.stateDir, runAs);
  const marker = path.join(config.stateDir, 'postgres-primary');
  const primary = (): 0 | 1 => (existsSync(marker) && readFileSync(marker, 'utf8').trim() === '2' ? 1 : 0);
  const url = (i: 0 | 1, db = 'portolan'): string => `postgres://portolan@127.0.0.1:${config.postgres[i]}/${db}`;
  const node = (i: 0 | 1): StackService => {
    const dir = `${home}-${i + 1}`;
    const dataDir = path.join(dir, 'data');
    const bin = path.dirname(postgresBinary);
    return daemonService({
      name: `postgres-${i + 1}`,
      port: config.postgres[i],
      dir,
      command: postgresBinary,
      args: postgresArgs(dataDir, config.postgres[i], dir),
      ...(runAs === undefined ? {} : { runAs }),
      stopSignal: 'SIGINT',
      startTimeoutMs: 60_000,
      prepare: () => {
        if (i === primary()) return preparePostgres(config.stateDir, dir, dataDir, bin, runAs);
        preparePostgresHome(config.stateDir, dir, runAs);
        prepareStandby(dataDir, bin, config.postgres[primary()], runAs);
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
  };
}

/** Replaces `dataDir` with a base backup of the primary on `primaryPort`, unless it already follows that primary. */
function prepareStandby(
  dataDir: string,
  bin: string,
  primaryPort: number,
  runAs: { uid: number; gid: number } | undefined,
) {
  const autoConf = path.join(dataDir, 'postgresql.auto.conf');
  const follows =
    existsSync(path.join(dataDir, 'standby.signal')) &&
    existsSync(autoConf) &&
    readFileSync(autoConf, 'utf8').includes(`port=${primaryPort} `);
  if (follows) return;
  rmSync(dataDir, { recursive: true, force: true });
  try {
    const args = ['-D', dataDir, '-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'portolan', '-X', 'stream', '-R'];
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
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}
