import { z } from 'zod';

// Where the engines live. Each may name several nodes, so that a client follows a failover without a restart; the
// parsed config still holds one string per engine, the form every client takes, so a one-node config reads as before.

/** A NATS URL, or the list of a cluster's URLs; parsed as one comma-separated string (the form `nats --server` takes). */
export const busUrl = z
  .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
  .transform((v) => (Array.isArray(v) ? v.join(',') : v));

const sentinel = z.strictObject({
  host: z.string().min(1),
  port: z.number().int().min(1).max(65535),
});

/** One Sentinel's address. */
export type SentinelAddress = z.output<typeof sentinel>;

/** The `redis-sentinel://h1:p1,h2:p2/<master name>` URL of a set of Sentinels (the form Lettuce and redis-py read). */
export function sentinelUrl(sentinels: readonly SentinelAddress[], name: string): string {
  return `redis-sentinel://${sentinels.map((s) => `${s.host}:${s.port}`).join(',')}/${name}`;
}

/**
 * The lease store: a Redis URL, or Sentinels and the name they monitor the master under. With Sentinels, `redisUrl`
 * is filled in as their `redis-sentinel://` URL, which the lease client reads.
 */
export const leases = z
  .strictObject({
    redisUrl: z.string().min(1).optional(),
    /** Sentinels to ask for the current master; the lease follows a Sentinel failover. */
    sentinels: z.array(sentinel).min(1).optional(),
    /** The master's name in the Sentinels' `sentinel monitor` line. */
    sentinelName: z.string().min(1).optional(),
    /** Lease TTL. Crash takeover ≈ ttl + retry. */
    ttlMs: z.number().int().min(500).default(4000),
    renewEveryMs: z.number().int().min(100).default(1000),
    retryEveryMs: z.number().int().min(100).default(500),
  })
  .superRefine((l, ctx) => {
    if (l.redisUrl === undefined && l.sentinels === undefined)
      ctx.addIssue({ code: 'custom', path: ['redisUrl'], message: 'required (or name sentinels)' });
    if (l.redisUrl !== undefined && l.sentinels !== undefined)
      ctx.addIssue({ code: 'custom', path: ['sentinels'], message: 'give redisUrl or sentinels, not both' });
    if (l.sentinelName !== undefined && l.sentinels === undefined)
      ctx.addIssue({ code: 'custom', path: ['sentinelName'], message: 'only with sentinels' });
  })
  .transform(({ redisUrl, ...rest }) => ({
    redisUrl: redisUrl ?? sentinelUrl(rest.sentinels ?? [], rest.sentinelName ?? 'portolan'),
    ...rest,
    ...(rest.sentinels === undefined ? {} : { sentinelName: rest.sentinelName ?? 'portolan' }),
  }));
