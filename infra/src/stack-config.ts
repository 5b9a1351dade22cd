import path from 'node:path';
import { StackSettingError } from './errors.ts';

/** Where the local stack keeps its state, and its private ports. The only module in infra/ that reads env. */
export interface StackConfig {
  /** One folder holding every service's data, logs and pid files. */
  readonly stateDir: string;
  readonly postgresPort: number;
  readonly natsPort: number;
  readonly natsMonitorPort: number;
  readonly redisPort: number;
  /** HAProxy's HTTP and HTTPS listener ports and its stats/health port. */
  readonly haproxyHttpPort: number;
  readonly haproxyHttpsPort: number;
  readonly haproxyStatsPort: number;
  /** Install missing system packages with apt-get (on by default; off when PORTOLAN_NO_INSTALL=1). */
  readonly install: boolean;
}

/** Builds the stack config from defaults, `PORTOLAN_*` environment variables and explicit overrides. */
export function stackConfig(overrides: Partial<StackConfig> = {}, env: NodeJS.ProcessEnv = process.env): StackConfig {
  const num = (name: string, fallback: number): number => {
    const v = env[name];
    if (v === undefined || v === '') return fallback;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1 || n > 65535) throw new StackSettingError(`${name}=${v} is not a port number`);
    return n;
  };
  return {
    stateDir: path.resolve(env.PORTOLAN_STATE_DIR ?? path.join(process.cwd(), '.portolan', 'stack')),
    postgresPort: num('PORTOLAN_POSTGRES_PORT', 15432),
    natsPort: num('PORTOLAN_NATS_PORT', 14222),
    natsMonitorPort: num('PORTOLAN_NATS_MONITOR_PORT', 18222),
    redisPort: num('PORTOLAN_REDIS_PORT', 16379),
    haproxyHttpPort: num('PORTOLAN_HAPROXY_HTTP_PORT', 8080),
    haproxyHttpsPort: num('PORTOLAN_HAPROXY_HTTPS_PORT', 8443),
    haproxyStatsPort: num('PORTOLAN_HAPROXY_STATS_PORT', 18404),
    install: env.PORTOLAN_NO_INSTALL !== '1',
    ...overrides,
  };
}

/** Connection URLs of a running stack. */
export interface StackEndpoints {
  readonly postgresUrl: string;
  readonly natsUrl: string;
  readonly redisUrl: string;
}

/** The URLs clients use to reach the local stack described by `config`. */
export function stackEndpoints(config: StackConfig): StackEndpoints {
  return {
    postgresUrl: `postgres://portolan@127.0.0.1:${config.postgresPort}/portolan`,
    natsUrl: `nats://127.0.0.1:${config.natsPort}`,
    redisUrl: `redis://127.0.0.1:${config.redisPort}`,
  };
}
