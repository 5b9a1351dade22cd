import { localStack } from './local-stack.ts';
import type { StackEndpoints } from './stack-config.ts';

/** Where integration tests get real Postgres, NATS and Redis from. */
export interface TestStack extends StackEndpoints {
  /** 'local' processes (default) or 'testcontainers' (machines with a Docker engine). */
  readonly provider: 'local' | 'testcontainers';
}

let cached: Promise<TestStack> | null = null;

/**
 * The test stack for this process, chosen by PORTOLAN_TEST_STACK (`local`, the default, or `testcontainers`).
 * Local: the stack `npm test` started (started here if it is not running, so one test file can run alone).
 */
export function testStack(): Promise<TestStack> {
  cached ??= (process.env.PORTOLAN_TEST_STACK ?? 'local') === 'testcontainers' ? containerStack() : localTestStack();
  return cached;
}

async function localTestStack(): Promise<TestStack> {
  const stack = localStack({ profile: 'data' });
  await stack.up();
  return { provider: 'local', ...stack.endpoints };
}

/** Starts Postgres, NATS (JetStream) and Redis containers; they are removed when the process exits (Ryuk). */
async function containerStack(): Promise<TestStack> {
  const [{ PostgreSqlContainer }, { NatsContainer }, { RedisContainer }] = await Promise.all([
    import('@testcontainers/postgresql'),
    import('@testcontainers/nats'),
    import('@testcontainers/redis'),
  ]);
  const [postgres, nats, redis] = await Promise.all([
    new PostgreSqlContainer('postgres:15')
      .withUsername('portolan')
      .withPassword('portolan')
      .withDatabase('portolan')
      .start(),
    new NatsContainer('nats:2.10').withJetStream().start(),
    new RedisContainer('redis:7').start(),
  ]);
  return {
    provider: 'testcontainers',
    postgresUrl: postgres.getConnectionUri(),
    natsUrl: `nats://${nats.getHost()}:${nats.getMappedPort(4222)}`,
    redisUrl: redis.getConnectionUrl(),
  };
}
