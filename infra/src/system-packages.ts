import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { StackServiceError } from './errors.ts';

/** A system binary the stack needs and the Debian package that ships it. */
export interface SystemBinary {
  readonly name: string;
  readonly debianPackage: string;
  /** Absolute paths to try before PATH (Debian puts some daemons outside PATH). */
  readonly candidates: readonly string[];
}

/** The binaries of the local stack. */
export const stackBinaries = {
  nats: {
    name: 'nats-server',
    debianPackage: 'nats-server',
    candidates: ['/usr/sbin/nats-server', '/usr/bin/nats-server'],
  },
  redis: { name: 'redis-server', debianPackage: 'redis-server', candidates: ['/usr/bin/redis-server'] },
  haproxy: { name: 'haproxy', debianPackage: 'haproxy', candidates: ['/usr/sbin/haproxy'] },
  pebble: { name: 'pebble', debianPackage: 'pebble', candidates: ['/usr/bin/pebble'] },
  postgres: { name: 'postgres', debianPackage: 'postgresql', candidates: postgresCandidates() },
} as const satisfies Record<string, SystemBinary>;

function postgresCandidates(): string[] {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return [];
  return readdirSync(base)
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a))
    .map((v) => `${base}/${v}/bin/postgres`);
}

/** Finds a binary: known locations first, then PATH. Null when absent. */
export function findBinary(binary: SystemBinary): string | null {
  for (const c of binary.candidates) if (existsSync(c)) return c;
  const which = spawnSync('sh', ['-c', `command -v ${binary.name}`], { encoding: 'utf8' });
  const found = which.stdout.trim();
  return which.status === 0 && found !== '' ? found : null;
}

let aptUpdated = false;

/**
 * Installs the Debian packages of every missing binary (apt-get update once, then install), and returns
 * the resolved paths. Without root, or with install off, a missing binary is an error naming the package.
 */
export function ensureBinaries(
  binaries: readonly SystemBinary[],
  install: boolean,
  log: (line: string) => void = () => {},
): Map<string, string> {
  const missing = binaries.filter((b) => findBinary(b) === null);
  if (missing.length > 0) {
    const packages = [...new Set(missing.map((b) => b.debianPackage))];
    if (!install || process.getuid?.() !== 0) {
      throw new StackServiceError(
        'STACK_INSTALL_FAILED',
        missing.map((b) => b.name).join(', '),
        `not installed; run: sudo apt-get install -y ${packages.join(' ')}`,
      );
    }
    log(`installing ${packages.join(' ')} with apt-get`);
    try {
      const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
      if (!aptUpdated) execFileSync('apt-get', ['update'], { stdio: 'ignore', env });
      aptUpdated = true;
      execFileSync('apt-get', ['install', '-y', '--no-install-recommends', ...packages], { stdio: 'ignore', env });
    } catch (cause) {
      throw new StackServiceError('STACK_INSTALL_FAILED', packages.join(', '), 'apt-get install failed', { cause });
    }
    // Debian starts some of these as system services on install; the stack runs its own private instances instead.
    for (const unit of ['nats-server', 'redis-server', 'haproxy', 'postgresql'])
      spawnSync('systemctl', ['disable', '--now', unit], { stdio: 'ignore' });
  }
  const resolved = new Map<string, string>();
  for (const b of binaries) {
    const p = findBinary(b);
    if (p === null)
      throw new StackServiceError('STACK_INSTALL_FAILED', b.name, `still missing after installing ${b.debianPackage}`);
    resolved.set(b.name, p);
  }
  return resolved;
}
