import { mkdirSync } from 'node:fs';
import { ensureBinaries, stackBinaries } from './system-packages.ts';
import { stackConfig, stackEndpoints, type StackConfig, type StackEndpoints } from './stack-config.ts';
import type { ServiceStatus, StackService } from './services/daemon-service.ts';
import { postgresService } from './services/postgres.ts';
import { natsService } from './services/nats.ts';
import { redisService } from './services/redis.ts';
import { haproxyService } from './services/haproxy.ts';

/** Which services to run: the full stack, or only what the tests need (no HAProxy listener on 8080). */
export type StackProfile = 'full' | 'data';

/** The local stack: private Postgres, NATS (JetStream), Redis and HAProxy under one state folder. */
export interface LocalStack {
  readonly config: StackConfig;
  readonly endpoints: StackEndpoints;
  /** Installs what is missing, then starts every service that is not already running. Idempotent. */
  up(): Promise<void>;
  /** Stops every service (data is kept). */
  down(): Promise<void>;
  status(): Promise<readonly ServiceStatus[]>;
}

/** Builds the local stack for a config (defaults: `.portolan/stack` under the working directory). */
export function localStack(
  options: { config?: Partial<StackConfig>; profile?: StackProfile; log?: (line: string) => void } = {},
): LocalStack {
  const config = stackConfig(options.config);
  const log = options.log ?? (() => {});
  const profile = options.profile ?? 'full';
  const wanted =
    profile === 'full'
      ? (['postgres', 'nats', 'redis', 'haproxy', 'pebble'] as const)
      : (['postgres', 'nats', 'redis'] as const);
  let services: StackService[] | null = null;
  const build = (): StackService[] => {
    if (services !== null) return services;
    const bins = ensureBinaries(
      wanted.map((w) => stackBinaries[w]),
      config.install,
      log,
    );
    const path = (n: string): string => bins.get(n)!;
    services = [
      postgresService(config, path('postgres')),
      natsService(config, path('nats-server')),
      redisService(config, path('redis-server')),
      ...(profile === 'full' ? [haproxyService(config, path('haproxy'))] : []),
    ];
    return services;
  };
  return {
    config,
    endpoints: stackEndpoints(config),
    async up() {
      mkdirSync(config.stateDir, { recursive: true });
      for (const s of build()) {
        log(`starting ${s.name} on 127.0.0.1:${s.port}`);
        await s.start();
      }
    },
    async down() {
      // Stopping needs no binaries: build without installing anything.
      const all = services ?? buildForStop(config);
      for (const s of [...all].reverse()) await s.stop();
    },
    async status() {
      const all = services ?? buildForStop(config);
      return Promise.all(all.map((s) => s.status()));
    },
  };
}

/** Service handles for stop/status only: the binary paths are not needed to signal a pid. */
function buildForStop(config: StackConfig): StackService[] {
  return [
    postgresService(config, 'postgres'),
    natsService(config, 'nats-server'),
    redisService(config, 'redis-server'),
    haproxyService(config, 'haproxy'),
  ];
}
