import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

/** One named health check: ok, or not with a reason shown on /readyz. */
export type HealthCheck = () => { ok: true } | { ok: false; reason: string };

/** Serves /healthz (alive), /readyz (all readiness checks pass) and /metrics (Prometheus). */
export interface HealthServer {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * The address health and metrics listen on: `PORTOLAN_HEALTH_HOST` when set (127.0.0.1 keeps them on the machine),
 * else every interface, so kubelet probes and Prometheus scrapes sent to a pod's IP reach them.
 */
export function healthHost(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const host = env['PORTOLAN_HEALTH_HOST']?.trim();
  return host === undefined || host === '' ? undefined : host;
}

/**
 * Starts the health server. `live` checks fail /healthz (the process should be restarted);
 * `ready` checks fail /readyz (do not route work here: inputs stale, not synced).
 */
export async function startHealthServer(options: {
  port: number;
  /** Default: `healthHost()` (all interfaces unless PORTOLAN_HEALTH_HOST says otherwise). */
  host?: string;
  registry: Registry;
  live?: Record<string, HealthCheck>;
  ready?: Record<string, HealthCheck>;
}): Promise<HealthServer> {
  const evaluate = (checks: Record<string, HealthCheck> = {}): { ok: boolean; body: string } => {
    const failures = Object.entries(checks).flatMap(([name, check]) => {
      const r = check();
      return r.ok ? [] : [`${name}: ${r.reason}`];
    });
    return { ok: failures.length === 0, body: failures.length === 0 ? 'ok\n' : `${failures.join('\n')}\n` };
  };
  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    const respond = (status: number, body: string, type = 'text/plain; charset=utf-8'): void => {
      res.writeHead(status, { 'content-type': type });
      res.end(body);
    };
    if (url.startsWith('/healthz')) {
      const r = evaluate(options.live);
      return respond(r.ok ? 200 : 503, r.body);
    }
    if (url.startsWith('/readyz')) {
      const r = evaluate({ ...options.live, ...options.ready });
      return respond(r.ok ? 200 : 503, r.body);
    }
    if (url.startsWith('/metrics')) {
      options.registry.metrics().then(
        (m) => respond(200, m, options.registry.contentType),
        (e: unknown) => respond(500, String(e)),
      );
      return;
    }
    respond(404, 'not found\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? healthHost(), () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
