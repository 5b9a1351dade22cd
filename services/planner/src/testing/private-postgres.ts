// A private Postgres for fault tests: its own data folder and free port, stopped and started with pg_ctl, so a test
// can take the database away from a planner without touching the shared test stack other test files use.
import { PortolanError } from '@portolan/errors';
import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { findBinary, freePort, stackBinaries } from '@portolan/infra';

const run = promisify(execFile);

/** How Postgres is stopped: `fast` rolls back and disconnects every session; `immediate` is a crash (no checkpoint). */
export type StopMode = 'fast' | 'immediate';

/** A pg_ctl step of the private Postgres failed; the message carries the server log's last lines. */
export class PrivatePostgresError extends PortolanError {
  readonly code = 'PRIVATE_POSTGRES_FAILED';
}

/** A Postgres server owned by one test. */
export interface PrivatePostgres {
  /** The `postgres` database as the trusted `portolan` role. */
  readonly url: string;
  /** How many times `stop` took the server down. */
  readonly stops: number;
  readonly running: boolean;
  /** Stops the server and waits until it is gone. */
  stop(mode: StopMode): Promise<void>;
  /** Starts the server (crash recovery included) and waits until it accepts connections; nothing when it runs. */
  start(): Promise<void>;
  /** Stops the server and deletes its data folder. */
  destroy(): Promise<void>;
}

/** Creates a cluster under a fresh temporary folder on a free port and starts it (as `postgres` when run as root). */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const postgres = findBinary(stackBinaries.postgres);
  if (postgres === null)
    throw new PrivatePostgresError(
      'postgres is not installed (the test stack installs it: run any integration test once)',
    );
  const bin = path.dirname(postgres);
  const dir = mkdtempSync(path.join(tmpdir(), 'portolan-outage-pg-'));
  const data = path.join(dir, 'data');
  const logFile = path.join(dir, 'postgres.log');
  const port = await freePort();
  // pg_ctl refuses to run as root; the stack runs Postgres as the `postgres` system user then, and so do we.
  const user: { uid?: number; gid?: number } = process.getuid?.() === 0 ? postgresUser() : {};
  if (user.uid !== undefined && user.gid !== undefined) chownSync(dir, user.uid, user.gid);
  const pgCtl = async (...args: string[]): Promise<void> => {
    try {
      await run(path.join(bin, 'pg_ctl'), ['-D', data, ...args], { ...user, timeout: 60_000 });
    } catch (cause) {
      const tail = existsSync(logFile)
        ? readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-10).join('\n')
        : '(no log)';
      throw new PrivatePostgresError(`pg_ctl ${args.at(-1)} failed: ${(cause as Error).message}\n${tail}`, { cause });
    }
  };
  execFileSync(
    path.join(bin, 'initdb'),
    ['-D', data, '-U', 'portolan', '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-sync'],
    { stdio: 'ignore', ...user },
  );
  // fsync=off: `immediate` kills the server, not the machine, so committed WAL survives in the page cache anyway, and
  // the fault loop's dozens of restarts stay cheap on a shared CI disk.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=40 -c shared_buffers=16MB`;
  const url = `postgres://portolan@127.0.0.1:${port}/postgres`;
  let stops = 0;
  let running = false;
  // Stops and starts run one after another: a test's restart timer and its clean-up may both ask for a start.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(step: () => Promise<T>): Promise<T> => {
    const result = queue.then(step);
    queue = result.catch(() => undefined); // the caller gets the failure; the queue only keeps the order
    return result;
  };
  const start = (): Promise<void> =>
    serial(async () => {
      if (running) return;
      // -w: pg_ctl returns once the server accepts connections (after crash recovery, for an `immediate` stop).
      await pgCtl('-l', logFile, '-o', options, '-w', '-t', '60', 'start');
      running = true;
    });
  await start();
  return {
    url,
    get stops() {
      return stops;
    },
    get running() {
      return running;
    },
    stop(mode) {
      return serial(async () => {
        if (!running) return;
        running = false;
        stops++;
        await pgCtl('-m', mode, '-w', '-t', '60', 'stop');
      });
    },
    start,
    async destroy() {
      await serial(async () => {
        if (running) await pgCtl('-m', 'immediate', '-w', 'stop');
        running = false;
      }).finally(() => rmSync(dir, { recursive: true, force: true }));
    },
  };
}

function postgresUser(): { uid: number; gid: number } {
  const id = (flag: string): number => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}
