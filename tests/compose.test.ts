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

test('docker-compose.yml runs NATS with sync_interval always, Postgres, Redis and the four services', () => {
  const names = Object.keys(compose.services).sort();
  for (const infra of ['nats', 'postgres', 'redis']) assert.ok(names.includes(infra), `${infra} is defined`);
  const natsConf = readFileSync(path.join(root, 'infra', 'nats', 'nats.conf'), 'utf8');
  assert.match(natsConf, /sync_interval:\s*always/);
  assert.ok(compose.services.nats?.volumes?.some((v) => v.startsWith('./infra/nats/nats.conf:')));
  const portolan = names.filter((n) => compose.services[n]!.build !== undefined);
  const entries = new Set(portolan.map((n) => compose.services[n]!.command![0]!));
  for (const main of ['services/watcher/src/main.ts', 'services/planner/src/main.ts', 'services/applier/src/main.ts'])
    assert.ok(entries.has(main), `${main} is run`);
  assert.ok(entries.has('services/leader/src/main.ts'), 'the leader service is run');
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

test('the example fleet config mounted into the containers is valid', async () => {
  const { parseFleetConfig } = await import('@portolan/fleet-config');
  const text = readFileSync(path.join(root, 'infra', 'examples', 'fleet.compose.yaml'), 'utf8');
  const { config } = parseFleetConfig(text, 'fleet.compose.yaml', '/etc/portolan');
  assert.deepEqual(
    config.appliances.map((a) => a.name),
    ['edge'],
  );
});
