// libpq's multi-host URL (`postgres://u@h1:p1,h2:p2/db?target_session_attrs=read-write`) on node-postgres, which
// reads only one host: one pool per host, and each connection taken from the host that last accepted writes, or
// else from the next one that does. A host that refuses the connection, or answers `transaction_read_only = on`
// (a standby), is skipped, as libpq skips it; so after a standby's promotion the next checkout finds the new
// primary, and no process restarts.
import { PortolanError } from '@portolan/errors';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';

/** No host of a multi-host URL accepted a writable session (all down, or all standbys, as during a failover). */
export class NoWritableHostError extends PortolanError {
  readonly code = 'STORE_NO_WRITABLE_HOST';
}

/**
 * The hosts of a libpq multi-host URL, each as a single-host URL of its own (the other parts kept, the
 * `target_session_attrs` parameter dropped: every pool built from them asks for a writable host); null when the URL
 * names one host.
 */
export function splitHostList(url: string): string[] | null {
  const parts = /^(postgres(?:ql)?:\/\/)([^@/?#]*@)?([^/?#]*)(.*)$/s.exec(url);
  if (parts === null) return null;
  const hosts = parts[3]!.split(',');
  if (hosts.length < 2) return null;
  const rest = parts[4]!.replace(/([?&])target_session_attrs=[^&#]*&?/, '$1').replace(/[?&](#|$)/, '$1');
  return hosts.map((host) => `${parts[1]}${parts[2] ?? ''}${host}${rest}`);
}

/** A kysely pool over several hosts that hands out connections to the writable one only. */
export class WritableHostPool implements PostgresPool {
  private readonly pools: readonly pg.Pool[];
  private readonly urls: readonly string[];
  /** Connections already found writable: a session cannot become read-only (demotion restarts the server). */
  private readonly verified = new WeakSet<pg.PoolClient>();
  private current = 0;

  constructor(urls: readonly string[], pool: (url: string) => pg.Pool) {
    this.urls = urls;
    this.pools = urls.map(pool);
  }

  async connect(): Promise<PostgresPoolClient> {
    const failures: string[] = [];
    for (let i = 0; i < this.pools.length; i++) {
      const index = (this.current + i) % this.pools.length;
      const found = await this.writableClient(index);
      if (found.ok) {
        this.current = index;
        return found.client;
      }
      failures.push(`${hostOf(this.urls[index]!)}: ${found.reason}`);
    }
    throw new NoWritableHostError(`no writable Postgres host: ${failures.join('; ')}`);
  }

  async end(): Promise<void> {
    await Promise.all(this.pools.map((p) => p.end()));
  }

  /** A connection from host `index` when that host accepts writes; else why not. */
  private async writableClient(
    index: number,
  ): Promise<{ ok: true; client: pg.PoolClient } | { ok: false; reason: string }> {
    let client: pg.PoolClient;
    try {
      client = await this.pools[index]!.connect();
    } catch (e) {
      // Refused, timed out or shutting down: this host is not the one to write to now; the next is tried.
      return { ok: false, reason: e instanceof Error ? e.message : String(e) };
    }
    if (this.verified.has(client)) return { ok: true, client };
    try {
      const { rows } = await client.query<{ transaction_read_only: string }>('SHOW transaction_read_only');
      if (rows[0]?.transaction_read_only === 'off') {
        this.verified.add(client);
        return { ok: true, client };
      }
      client.release(true);
      return { ok: false, reason: 'read-only (a standby)' };
    } catch (e) {
      // The host went away between connecting and answering: drop the connection, try the next host.
      client.release(true);
      return { ok: false, reason: e instanceof Error ? e.message : String(e) };
    }
  }
}

/** `host:port` of a single-host URL, for messages (never the credentials). */
function hostOf(url: string): string {
  return /^[^:]+:\/\/(?:[^@/]*@)?([^/?#]*)/.exec(url)?.[1] ?? '(unparsable URL)';
}
