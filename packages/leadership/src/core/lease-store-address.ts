/**
 * Where the lease store is, from the one string the fleet config holds: a plain Redis URL, or the
 * `redis-sentinel://h1:p1,h2:p2/<master name>` form, in which case the client asks the Sentinels for the current
 * master and follows a failover (the new master's run_id then makes the next leader wait one TTL).
 */
export type LeaseStoreAddress =
  | { readonly type: 'redis'; readonly url: string }
  | {
      readonly type: 'sentinel';
      readonly sentinels: readonly { readonly host: string; readonly port: number }[];
      readonly name: string;
    };

/** A `redis-sentinel://` URL that names no usable Sentinel or master, as data. */
export interface LeaseStoreAddressProblem {
  readonly type: 'InvalidLeaseStoreAddress';
  readonly reason: string;
  readonly message: string;
}

const SENTINEL_SCHEME = 'redis-sentinel://';

/** Reads the lease store's address; anything not `redis-sentinel://` is handed to the Redis client as a URL. */
export function parseLeaseStoreAddress(
  text: string,
): { ok: true; address: LeaseStoreAddress } | { ok: false; problem: LeaseStoreAddressProblem } {
  if (!text.startsWith(SENTINEL_SCHEME)) return { ok: true, address: { type: 'redis', url: text } };
  const bad = (reason: string, message: string): { ok: false; problem: LeaseStoreAddressProblem } => ({
    ok: false,
    problem: { type: 'InvalidLeaseStoreAddress', reason, message: `${text}: ${message}` },
  });
  const rest = text.slice(SENTINEL_SCHEME.length);
  const slash = rest.indexOf('/');
  const hosts = slash < 0 ? rest : rest.slice(0, slash);
  const name = slash < 0 ? '' : rest.slice(slash + 1);
  if (name === '' || name.includes('/')) return bad('NoMasterName', 'name the master after the Sentinels: /<name>');
  const sentinels: { host: string; port: number }[] = [];
  for (const entry of hosts.split(',')) {
    const colon = entry.lastIndexOf(':');
    const host = colon < 0 ? entry : entry.slice(0, colon);
    const port = colon < 0 ? 26379 : Number(entry.slice(colon + 1));
    if (host === '' || !Number.isInteger(port) || port < 1 || port > 65535)
      return bad('BadSentinel', `"${entry}" is not host:port`);
    sentinels.push({ host, port });
  }
  return { ok: true, address: { type: 'sentinel', sentinels, name } };
}
