import { errorMessage } from '@portolan/errors';
import { Redis, type RedisOptions } from 'ioredis';
import { parseLeaseStoreAddress } from '../core/lease-store-address.ts';
import { LeaseStoreError } from '../errors.ts';

// Compare-and-pexpire: extends the key only while it still holds our value.
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`;
// Compare-and-delete: releases only our own lease.
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

/** What a lease key holds right now. */
export interface LeaseInspection {
  readonly value: string;
  readonly remainingMs: number;
}

/**
 * Lease commands on Redis (docs/architecture.md, "Leadership and fencing"). The offline queue is off and every command has a timeout, so a command
 * is never held while disconnected and sent late after its lease may have passed (ioredis#285/#1164): it fails now and the caller decides.
 */
export class RedisLeaseClient {
  readonly redis: Redis;

  /** `url` is a Redis URL or a `redis-sentinel://h1:p1,h2:p2/<master>` URL (then the current master is used). */
  constructor(url: string, options: { commandTimeoutMs: number; name?: string }) {
    const parsed = parseLeaseStoreAddress(url);
    if (!parsed.ok) throw new LeaseStoreError(parsed.problem.message);
    const common: RedisOptions = {
      enableOfflineQueue: false,
      commandTimeout: options.commandTimeoutMs,
      maxRetriesPerRequest: 0,
      connectTimeout: Math.max(options.commandTimeoutMs, 500),
      retryStrategy: (times) => Math.min(50 * times, 500),
      connectionName: options.name ?? 'portolan-leader',
    };
    const address = parsed.address;
    this.redis =
      address.type === 'redis'
        ? new Redis(address.url, common)
        : new Redis({
            ...common,
            sentinels: address.sentinels.map((s) => ({ host: s.host, port: s.port })),
            name: address.name,
            sentinelRetryStrategy: (times) => Math.min(50 * times, 500),
          });
    // Connection errors surface as failed commands; an unhandled 'error' event would crash the process.
    this.redis.on('error', () => {});
  }

  /** SET NX PX and INFO in one MULTI, so the run_id is the one of the incarnation that granted the lease. */
  async acquire(key: string, value: string, ttlMs: number): Promise<{ ok: true; runId: string } | { ok: false }> {
    const replies = await this.call('acquire', () =>
      this.redis.multi().set(key, value, 'PX', ttlMs, 'NX').info('server').exec(),
    );
    if (replies === null) throw new LeaseStoreError('acquire: transaction aborted');
    const [set, info] = replies;
    if (set?.[0] || info?.[0]) throw new LeaseStoreError('acquire failed', { cause: set?.[0] ?? info?.[0] });
    if (set?.[1] !== 'OK') return { ok: false };
    const runId = /run_id:([0-9a-f]+)/.exec(String(info?.[1]))?.[1];
    if (runId === undefined) throw new LeaseStoreError('acquire: INFO server has no run_id');
    return { ok: true, runId };
  }

  /** Extends our lease to `ttlMs`; false when the key is gone or held by someone else. */
  async renew(key: string, value: string, ttlMs: number): Promise<boolean> {
    const r = await this.call('renew', () => this.redis.eval(RENEW, 1, key, value, ttlMs));
    return Number(r) === 1;
  }

  /** Deletes our lease; false when it was not ours any more. */
  async release(key: string, value: string): Promise<boolean> {
    const r = await this.call('release', () => this.redis.eval(RELEASE, 1, key, value));
    return Number(r) === 1;
  }

  /** The current holder's value and remaining TTL, or null when nobody holds the lease. */
  async inspect(key: string): Promise<LeaseInspection | null> {
    const replies = await this.call('inspect', () => this.redis.multi().get(key).pttl(key).exec());
    // Fails closed: an aborted transaction or a failed reply is an error, never "nobody holds the lease".
    if (replies === null) throw new LeaseStoreError('inspect: transaction aborted');
    const [get, pttl] = replies;
    if (get?.[0] || pttl?.[0]) throw new LeaseStoreError('inspect failed', { cause: get?.[0] ?? pttl?.[0] });
    const value = get?.[1];
    if (typeof value !== 'string') return null;
    return { value, remainingMs: Number(pttl?.[1]) };
  }

  /** Resolves once connected (commands before that fail at once, the offline queue being off). */
  async ready(timeoutMs: number): Promise<void> {
    if (this.redis.status === 'ready') return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.redis.off('ready', onReady);
        reject(new LeaseStoreError(`redis not reachable within ${timeoutMs} ms`));
      }, timeoutMs);
      const onReady = (): void => {
        clearTimeout(timer);
        resolve();
      };
      this.redis.once('ready', onReady);
    });
  }

  /** Closes the connection without waiting for pending replies. */
  close(): void {
    this.redis.disconnect();
  }

  private async call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (cause) {
      throw cause instanceof LeaseStoreError
        ? cause
        : new LeaseStoreError(`redis ${what}: ${errorMessage(cause)}`, { cause });
    }
  }
}
