// `npm test`: states the Node version, starts a private test stack (installing system packages when missing),
// runs every test file of the repo with node's test runner, then stops the stack.
// `--unit` runs only the pure tests (*.test.ts without .int.), with no stack.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const unitOnly = process.argv.includes('--unit');
const extra = process.argv.slice(2).filter((a) => a !== '--unit');

process.stdout.write(`# Node.js ${process.version} (${process.execPath})\n`);
if (Number(process.versions.node.split('.')[0]) < 24) {
  process.stderr.write(
    'tests must run on Node.js 24: run them through `npm test` so node_modules/.bin/node (the node@24 devDependency) is used\n',
  );
  process.exit(1);
}
// Loaded after the version check: the workspace packages are TypeScript, which only Node 24 runs.
const { ensureBinaries, freePort, isAlive, localStack, stackBinaries } = await import('@portolan/infra');

// The test stack lives apart from `portolan up`'s, on its own ports, so both can run at once. A preferred port
// that something else holds (another checkout's stack, say) is swapped for a free one: tests read the ports from env.
const stateDir = process.env.PORTOLAN_STATE_DIR ?? path.join(root, '.portolan', 'test-stack');
const preferred: Record<string, [number, string]> = {
  PORTOLAN_POSTGRES_PORT: [25432, 'postgres'],
  PORTOLAN_NATS_PORT: [24222, 'nats'],
  PORTOLAN_NATS_MONITOR_PORT: [28222, 'nats'],
  PORTOLAN_REDIS_PORT: [26379, 'redis'],
};
const stackEnv: Record<string, string> = { PORTOLAN_STATE_DIR: stateDir };
for (const [name, [port, service]] of Object.entries(preferred)) {
  stackEnv[name] = process.env[name] ?? String(await usablePort(port, service));
}
Object.assign(process.env, stackEnv);

/** `port` when it is free or held by this state dir's own service; otherwise a free port. */
async function usablePort(port: number, service: string): Promise<number> {
  const pidFile = path.join(stateDir, service, `${service}.pid`);
  const ours = existsSync(pidFile) && isAlive(Number(readFileSync(pidFile, 'utf8').trim()));
  if (ours || !(await isListening(port))) return port;
  const free = await freePort();
  process.stdout.write(`# port ${port} is taken by another process: the test ${service} uses ${free}\n`);
  return free;
}

function isListening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ port, host: '127.0.0.1' });
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

const useLocalStack = !unitOnly && (process.env.PORTOLAN_TEST_STACK ?? 'local') === 'local';
const stack = localStack({ profile: 'data', log: (l) => process.stdout.write(`# stack: ${l}\n`) });
if (!unitOnly) {
  // Tests start their own HAProxy and Pebble instances, drive the real kubectl and a browser: install them.
  ensureBinaries(
    [
      stackBinaries.haproxy,
      stackBinaries.pebble,
      {
        name: 'kubectl',
        debianPackage: 'kubernetes-client',
        candidates: ['/usr/bin/kubectl', '/usr/local/bin/kubectl'],
      },
      // The console's browser tests drive Debian's Chromium with playwright-core.
      { name: 'chromium', debianPackage: 'chromium', candidates: ['/usr/bin/chromium'] },
    ],
    true,
    (l) => process.stdout.write(`# ${l}\n`),
  );
}
if (useLocalStack) await stack.up();

/** Every test file of the repo, outside node_modules, build output and state folders. */
function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.isDirectory())
      return ['node_modules', 'dist', '.git', '.portolan'].includes(e.name) ? [] : testFiles(path.join(dir, e.name));
    return e.name.endsWith('.test.ts') ? [path.relative(root, path.join(dir, e.name))] : [];
  });
}
const files = testFiles(root)
  .filter((f) => !unitOnly || (!f.includes('.int.test.') && !f.split(path.sep).includes('e2e')))
  .sort();
/**
 * Files that mark themselves `@serial` near the top are the fault loops that load the whole machine (killing and
 * restarting engines while work flows). They run after the rest, one at a time: two of them side by side starve
 * each other's engine restarts, which tests the machine's load, not Portolan.
 */
const isSerial = (f: string): boolean => readFileSync(path.join(root, f), 'utf8').slice(0, 2000).includes('@serial');
const parallel = files.filter((f) => !isSerial(f));
const serial = files.filter(isSerial);

/**
 * Runs node's test runner over `list` in a process group of its own. `--test-timeout` bounds each test but not its
 * hooks, and a hook that never returns would hold CI until its own limit; past `deadlineMs` the whole group (the
 * runner, its test files and the servers they started) is stopped and the run counts as failed.
 */
function runTests(list: readonly string[], concurrency: string, deadlineMs: number): Promise<number> {
  const args = ['--test', '--test-reporter=spec', `--test-concurrency=${concurrency}`, '--test-timeout=300000'];
  const child = spawn(process.execPath, [...args, ...extra, ...list], { cwd: root, stdio: 'inherit', detached: true });
  const signalGroup = (signal: NodeJS.Signals): void => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // The group is gone already.
    }
  };
  // Detached, the group sees neither the terminal's Ctrl-C nor a stop sent to this script: pass them on, and end.
  const interrupted = (): void => {
    signalGroup('SIGTERM');
    process.exitCode = 130;
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  const overdue = setTimeout(() => {
    process.stdout.write(`# ${list.join(', ')}: not done after ${deadlineMs / 60_000} min; stopping it\n`);
    signalGroup('SIGTERM');
    setTimeout(() => signalGroup('SIGKILL'), 10_000).unref();
  }, deadlineMs);
  return new Promise((resolve) =>
    child.on('exit', (c, signal) => {
      clearTimeout(overdue);
      process.off('SIGINT', interrupted);
      process.off('SIGTERM', interrupted);
      signalGroup('SIGKILL');
      resolve(c ?? (signal ? 1 : 0));
    }),
  );
}

const minutes = (n: number): number => n * 60_000;
// An empty list would make node's runner look for test files by itself: run nothing instead.
let code =
  parallel.length === 0 ? 0 : await runTests(parallel, process.env.PORTOLAN_TEST_CONCURRENCY ?? '3', minutes(40));
if (serial.length > 0) {
  // One file at a time, each under its own deadline, so that one stuck fault loop costs its own time, not the rest's.
  process.stdout.write(`# fault loops, one at a time: ${serial.join(', ')}\n`);
  for (const file of serial) code = Math.max(code, await runTests([file], '1', minutes(10)));
}

if (useLocalStack && process.env.PORTOLAN_KEEP_STACK !== '1') await stack.down();
process.exit(code);
