import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { serve, type ServerType } from '@hono/node-server';
import { kubernetesTokenReviewer, type TokenReviewer } from '@portolan/access';
import { auditContextFor } from '@portolan/audit';
import type { LoadedFleetConfig } from '@portolan/fleet-config';
import type { Logger } from '@portolan/telemetry';
import { LiveFeed } from './live/live-feed.ts';
import { ConsoleUsageError } from './run-config.ts';
import { consoleApp } from './server/console-app.ts';

/** The package folder: web/ holds the UI sources and its build script, dist/web the bundle. */
const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** A running console. */
export interface RunningConsole {
  /** Where it serves, e.g. `http://127.0.0.1:8480`. */
  readonly url: string;
  close(): Promise<void>;
}

/** How to start it: the fleet config, and overrides of its `console` section. */
export interface ConsoleOptions {
  readonly fleet: LoadedFleetConfig;
  readonly log: Logger;
  /** host:port, overriding console.listen (port 0: any free port). */
  readonly listen?: string;
  /** How often the live feed reads the store. */
  readonly pollMs?: number;
}

/**
 * The web bundle's folder, built first when missing (the package's install builds it; a checkout whose install
 * skipped scripts builds it here).
 */
export async function webBundle(): Promise<string> {
  const dir = path.join(packageDir, 'dist', 'web');
  if (!existsSync(path.join(dir, 'index.html')))
    await promisify(execFile)(process.execPath, [path.join(packageDir, 'web', 'build.mjs')], { cwd: packageDir });
  return dir;
}

/** Starts the console on the fleet config's store; it serves until closed. */
export async function startConsole(options: ConsoleOptions): Promise<RunningConsole> {
  const { config } = options.fleet;
  const section = config.console ?? { listen: '127.0.0.1:8480', tokens: [] };
  const [host, port] = splitListen(options.listen ?? section.listen);
  const audit = auditContextFor(options.fleet);
  const feed = new LiveFeed(audit.db, options.pollMs === undefined ? {} : { intervalMs: options.pollMs });
  feed.onError = (e) => options.log.warn({ err: e }, 'the live feed could not read the store; retrying');
  const app = consoleApp({
    audit,
    auth: { tokens: section.tokens, review: reviewerFor(options.fleet) },
    feed,
    webDir: path.relative(process.cwd(), await webBundle()) || '.',
    log: options.log,
  });
  const tls = section.tls;
  const serverOptions =
    tls === undefined ? {} : { cert: await readFile(tls.certFile), key: await readFile(tls.keyFile) };
  const server: ServerType = await new Promise((resolve) => {
    const s = serve(
      {
        fetch: app.fetch,
        hostname: host,
        port,
        ...(tls === undefined ? {} : { createServer: createHttpsServer, serverOptions }),
      },
      () => resolve(s),
    );
  });
  const bound = (server.address() as AddressInfo).port;
  const url = `${tls === undefined ? 'http' : 'https'}://${host.includes(':') ? `[${host}]` : host}:${bound}`;
  return {
    url,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Event streams stay open until their clients leave; closing the console ends them.
      if ('closeAllConnections' in server) server.closeAllConnections();
      await closed;
      await audit.close();
    },
  };
}

/** A TokenReview reviewer when the console section names a cluster. */
function reviewerFor(fleet: LoadedFleetConfig): TokenReviewer | null {
  const review = fleet.config.console?.tokenReview;
  if (review === undefined) return null;
  const cluster = fleet.config.clusters.find((c) => c.name === review.cluster)!;
  return kubernetesTokenReviewer({
    kubeconfig: cluster.kubeconfig ?? null,
    context: cluster.context ?? null,
    operatorGroups: review.operatorGroups,
    viewerGroups: review.viewerGroups,
    audiences: review.audiences,
    cacheSeconds: review.cacheSeconds,
  });
}

/** `host:port` (IPv6 in brackets) as host and port. */
function splitListen(listen: string): [string, number] {
  const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(listen);
  if (m === null) throw new ConsoleUsageError(`listen "${listen}" is not host:port`);
  return [m[1]!, Number(m[2])];
}
