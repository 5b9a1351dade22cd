import { OpenAPIHono } from '@hono/zod-openapi';
import { serveStatic } from '@hono/node-server/serve-static';
import { HTTPException } from 'hono/http-exception';
import { secureHeaders } from 'hono/secure-headers';
import { CommandFailed, statusReport, type AuditContext } from '@portolan/audit';
import type { Logger } from '@portolan/telemetry';
import type { LiveFeed } from '../live/live-feed.ts';
import { ApiError, errorBody, type ErrorStatus } from './api-error.ts';
import { requireIdentity, type Authenticators, type ConsoleEnv } from './authenticate.ts';
import { eventsRoute } from './events-route.ts';
import { applianceRoutes, fleetRoutes, snapshotRoutes } from './read-routes.ts';
import { writeRoutes } from './write-routes.ts';

/** What the console serves from. */
export interface ConsoleDeps {
  readonly audit: AuditContext;
  readonly auth: Authenticators;
  readonly feed: LiveFeed;
  /** The built web UI (index.html and its assets). */
  readonly webDir: string;
  readonly log: Logger;
  readonly now?: () => Date;
  /** How long a status report is reused (it asks NATS, Redis and Postgres). */
  readonly statusCacheMs?: number;
}

/** The statuses an audit failure answers with. */
const auditStatus: Record<CommandFailed['kind'], ErrorStatus> = { 'not-found': 404, invalid: 400, conflict: 409 };

/** The console's HTTP app: the API under /api/v1 (every call authenticated) and the web UI at /. */
export function consoleApp(deps: ConsoleDeps): OpenAPIHono<ConsoleEnv> {
  const now = deps.now ?? (() => new Date());
  const api = new OpenAPIHono<ConsoleEnv>({
    defaultHook: (result, c) => {
      if (!result.success) {
        const issue = result.error.issues[0];
        const where = issue === undefined ? '' : `${issue.path.map(String).join('.') || result.target}: `;
        return c.json(errorBody('InvalidRequest', `${where}${issue?.message ?? 'invalid'}`), 400);
      }
      return undefined;
    },
  });
  const auth = requireIdentity(deps.auth);
  api.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: { title: 'Portolan console', version: 'v1', description: 'Fleet status, history, diff, explain and writes.' },
    security: [{ bearer: [] }],
  });
  api.openAPIRegistry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer' });
  eventsRoute(api, deps.feed, auth);
  api.use('*', async (c, next) => (c.req.path.endsWith('/openapi.json') ? next() : auth(c, next)));
  const reads = { audit: deps.audit, now, status: cachedStatus(deps, now) };
  fleetRoutes(api, reads);
  applianceRoutes(api, reads);
  snapshotRoutes(api, reads);
  writeRoutes(api, reads);
  api.notFound((c) => c.json(errorBody('NotFound', `no API route ${c.req.method} ${c.req.path}`), 404));

  const app = new OpenAPIHono<ConsoleEnv>();
  app.onError((e, c) => {
    const [status, code, message] = answerFor(e);
    if (status >= 500) deps.log.error({ err: e, path: c.req.path }, 'console request failed');
    return c.json(errorBody(code, message), status);
  });
  app.use('*', secureHeaders({ contentSecurityPolicy: contentSecurityPolicy, referrerPolicy: 'no-referrer' }));
  app.get('/healthz', (c) => c.text('ok'));
  app.route('/api/v1', api);
  app.use('/*', serveStatic({ root: deps.webDir }));
  // Client-side routes live in the fragment; anything else unknown is the app shell.
  app.get('*', serveStatic({ root: deps.webDir, path: 'index.html' }));
  return app;
}

const contentSecurityPolicy = {
  defaultSrc: ["'self'"],
  imgSrc: ["'self'", 'data:'],
  styleSrc: ["'self'"],
  connectSrc: ["'self'"],
  frameAncestors: ["'none'"],
  formAction: ["'self'"],
  baseUri: ["'none'"],
};

/** The status code, error code and message of a failure. */
function answerFor(e: unknown): [ErrorStatus | 500, string, string] {
  if (e instanceof ApiError) return [e.status, e.code, e.message];
  if (e instanceof CommandFailed) return [auditStatus[e.kind], e.code, e.message];
  if (e instanceof HTTPException && e.status < 500) return [e.status as ErrorStatus, 'InvalidRequest', e.message];
  return [500, 'Internal', 'the console failed to answer; its log has the cause'];
}

/** The status report, reused for `statusCacheMs` (default 2 s), one computation at a time. */
function cachedStatus(deps: ConsoleDeps, now: () => Date): () => Promise<unknown> {
  let last: { at: number; report: Promise<unknown> } | null = null;
  const ttl = deps.statusCacheMs ?? 2000;
  return async () => {
    const t = Date.now();
    if (last === null || t - last.at > ttl) {
      const report = statusReport(deps.audit, now()).catch((e: unknown) => {
        last = null;
        throw e;
      });
      last = { at: t, report };
    }
    return last.report;
  };
}
