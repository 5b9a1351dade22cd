import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

const root = path.resolve(import.meta.dirname, '..');
interface ComposeService {
  build?: unknown;
  image?: string;
  command?: string[];
  entrypoint?: string[];
  user?: string;
  labels?: Record<string, string>;
  volumes?: string[];
  secrets?: (string | { source: string; target: string })[];
}
const compose = parse(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, ComposeService>;
  secrets: Record<string, { file: string }>;
};

/** The source file that handles a command's flags: a service main, or the CLI command module. */
function sourceOf(command: readonly string[]): string {
  const entry = command[0]!;
  if (!entry.endsWith('portolan.js')) return path.join(root, entry);
  const words = command
    .slice(1)
    .filter((w) => !w.startsWith('-'))
    .slice(0, 2);
  return path.join(root, 'packages', 'cli', 'src', 'commands', `${words.join('-')}.ts`);
}

test('docker-compose.yml runs the HA engines: 3 NATS nodes, a Postgres primary and standby, Redis and 3 Sentinels', () => {
  const names = Object.keys(compose.services).sort();
  const engines = ['nats-1', 'nats-2', 'nats-3', 'postgres-1', 'postgres-2', 'redis-1', 'redis-2'];
  for (const e of [...engines, 'sentinel-1', 'sentinel-2', 'sentinel-3']) assert.ok(names.includes(e), `${e} runs`);
  assert.equal(names.filter((n) => /^(nats|postgres|redis|sentinel)\b/.test(n)).length, 10, 'ten engine nodes');
  const natsConf = readFileSync(path.join(root, 'infra', 'nats', 'nats.conf'), 'utf8');
  assert.match(natsConf, /sync_interval:\s*always/);
  for (const n of ['nats-1', 'nats-2', 'nats-3']) {
    const nats = compose.services[n]!;
    const flag = (f: string): string | undefined => nats.command![nats.command!.indexOf(f) + 1];
    assert.ok(
      nats.volumes?.some((v) => v.startsWith('./infra/nats/nats.conf:')),
      `${n} runs the production config`,
    );
    assert.equal(flag('--name'), n, `${n} has its own server name (JetStream clustering needs one)`);
    assert.equal(flag('--cluster_name'), 'portolan');
    assert.deepEqual(
      flag('--routes')?.split(',').sort(),
      ['nats-1', 'nats-2', 'nats-3'].map((h) => `nats://${h}:6222`),
    );
  }
  const primary = compose.services['postgres-1']!.command!.join(' ');
  assert.match(primary, /synchronous_standby_names=\*/, 'the primary waits for its standby');
  assert.match(primary, /synchronous_commit=on/);
  const standby = compose.services['postgres-2']!;
  const standbyScript = readFileSync(path.join(root, 'infra', 'postgres', 'standby-entrypoint.sh'), 'utf8');
  assert.deepEqual(standby.entrypoint, ['/usr/local/bin/standby-entrypoint.sh']);
  assert.match(standbyScript, /pg_basebackup -h "\$primary" -U replicator .*-R/, 'a streaming standby of postgres-1');
  const init = readFileSync(path.join(root, 'infra', 'postgres', 'primary-init.sh'), 'utf8');
  assert.match(init, /CREATE ROLE replicator WITH REPLICATION/);
  assert.ok(compose.services['postgres-1']!.image?.startsWith('postgres:'), 'the official (Debian) image');
  assert.deepEqual(compose.services['redis-2']!.command!.slice(-3), ['--replicaof', 'redis-1', '6379']);
  const sentinelConf = readFileSync(path.join(root, 'infra', 'redis', 'sentinel.conf'), 'utf8');
  assert.match(sentinelConf, /^sentinel monitor portolan redis-1 6379 2$/m, 'quorum 2 of the 3 Sentinels');
});

test('docker-compose.yml runs a watcher, a planner and an applier of every group in each of two sites', () => {
  const portolan = Object.entries(compose.services).filter(([, s]) => s.build !== undefined);
  const sites = new Map<string, string[]>();
  for (const [name, s] of portolan) {
    const site = s.labels?.['dev.portolan.site'];
    assert.ok(site !== undefined, `${name} names its site`);
    const args = s.command!;
    const role = args[0]!.split('/')[1]!;
    const what = role === 'applier' ? `applier ${args[args.indexOf('--appliance') + 1]}` : role;
    sites.set(site, [...(sites.get(site) ?? []), what]);
  }
  assert.deepEqual([...sites.keys()].sort(), ['a', 'b']);
  for (const [site, roles] of sites)
    for (const r of ['watcher', 'planner', 'applier edge']) assert.ok(roles.includes(r), `site ${site} runs ${r}`);
  assert.ok([...sites.values()].flat().includes('leader'), 'the leader service is run');
  const ids = portolan.map(([, s]) => s.command!).filter((c) => c.includes('--id'));
  assert.deepEqual(ids.map((c) => c[c.indexOf('--id') + 1]).sort(), ['edge-a', 'edge-b'], 'one replica per site');
});

test('every entry point, flag, mounted file and build file that docker-compose.yml names exists', () => {
  assert.ok(existsSync(path.join(root, 'infra', 'container', 'Dockerfile')));
  for (const [name, service] of Object.entries(compose.services)) {
    for (const v of (service.volumes ?? []) as string[]) {
      const host = v.split(':')[0]!;
      if (host.startsWith('./')) assert.ok(existsSync(path.join(root, host)), `${name}: mounted ${host} exists`);
    }
    if (service.build === undefined) continue;
    const command = service.command!;
    const source = sourceOf(command);
    assert.ok(existsSync(source), `${name}: ${path.relative(root, source)} exists`);
    // Flags may be parsed in a module beside the entry point (run-config.ts, run-watcher.ts...).
    const dir = path.dirname(source);
    const sources = readdirSync(dir)
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
      .map((f) => readFileSync(path.join(dir, f), 'utf8'))
      .join('\n');
    const flags = command.filter((w) => w.startsWith('--')).map((w) => w.slice(2));
    // Either a parseArgs option (`flag: { type … }`) or a hand-written parser comparing with '--flag'.
    for (const flag of flags)
      assert.match(
        sources,
        new RegExp(`['"]--${flag}['"]|['"]?${flag}['"]?\\s*:\\s*\\{`),
        `${name}: flag --${flag} is parsed next to ${path.relative(root, source)}`,
      );
  }
});

test('the example fleet config mounted into the containers is valid and names every engine node', async () => {
  const { parseFleetConfig } = await import('@portolan/fleet-config');
  const text = readFileSync(path.join(root, 'infra', 'examples', 'fleet.compose.yaml'), 'utf8');
  const { config } = parseFleetConfig(text, 'fleet.compose.yaml', '/etc/portolan');
  assert.deepEqual(
    config.appliances.map((a) => a.name),
    ['edge'],
  );
  const raw = parse(text) as { bus: { url: unknown } };
  assert.deepEqual(raw.bus.url, ['nats://nats-1:4222', 'nats://nats-2:4222', 'nats://nats-3:4222'], 'a list');
  assert.equal(config.bus.replicas, 3);
  assert.equal(
    config.store.url,
    'postgres://portolan@postgres-1:5432,postgres-2:5432/portolan?target_session_attrs=read-write',
  );
  assert.deepEqual(
    config.leases.sentinels?.map((s) => `${s.host}:${s.port}`),
    ['sentinel-1:26379', 'sentinel-2:26379', 'sentinel-3:26379'],
  );
  assert.equal(config.leases.sentinelName, 'portolan');
  // Every host the fleet config names is a service of the compose file.
  const hosts = [...text.matchAll(/(nats-\d|postgres-\d|sentinel-\d)/g)].map((m) => m[1]!);
  for (const h of new Set(hosts)) assert.ok(compose.services[h] !== undefined, `${h} is a compose service`);
});
