import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import {
  atReport,
  diffReport,
  explainReport,
  historyReport,
  operationsReport,
  parseTimeSpec,
  requireSnapshot,
  showReport,
  type AuditContext,
} from '@portolan/audit';
import { applianceSummaries, applyPoints } from '../adapters/fleet-queries.ts';
import { ApiError } from './api-error.ts';
import type { ConsoleEnv } from './authenticate.ts';
import { errorResponses, json } from './openapi.ts';
import {
  AppliancesSchema,
  ApplianceParam,
  HistoryQuery,
  MetricsSchema,
  report,
  SessionSchema,
  timeQuery,
} from './schemas.ts';

/** What the read routes need. */
export interface ReadDeps {
  readonly audit: AuditContext;
  readonly now: () => Date;
  /** The status report, reused for a moment: it asks NATS, Redis and Postgres each time. */
  readonly status: () => Promise<unknown>;
}

/** A time query parameter: null when absent; an unreadable one is a 400 that names the parameter. */
export function timeParam(name: string, value: string | undefined, now: Date): Date | null {
  if (value === undefined || value === '') return null;
  const r = parseTimeSpec(value, now);
  if (!r.ok) throw new ApiError(400, 'InvalidTime', `${name}: ${r.message}`);
  return r.at;
}

const tags = ['read'];

/** GET /session, /status, /appliances, /appliances/{name}/metrics. */
export function fleetRoutes(app: OpenAPIHono<ConsoleEnv>, deps: ReadDeps): void {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/session',
      tags,
      responses: { 200: json(SessionSchema, 'Who is calling'), ...errorResponses },
    }),
    (c) => c.json(c.get('identity'), 200),
  );
  const StatusSchema = report('StatusReport', 'Clusters, planner, appliances with leaders and lag, stream, holds.', {
    at: z.string(),
    problems: z.array(z.unknown()),
  });
  app.openapi(
    createRoute({
      method: 'get',
      path: '/status',
      tags,
      responses: { 200: json(StatusSchema, 'Fleet status'), ...errorResponses },
    }),
    async (c) => c.json((await deps.status()) as z.infer<typeof StatusSchema>, 200),
  );
  app.openapi(
    createRoute({
      method: 'get',
      path: '/appliances',
      tags,
      responses: { 200: json(AppliancesSchema, 'The fleet'), ...errorResponses },
    }),
    async (c) => c.json({ appliances: await applianceSummaries(deps.audit.db, deps.audit.fleet.config) }, 200),
  );
  app.openapi(
    createRoute({
      method: 'get',
      path: '/appliances/{name}/metrics',
      tags,
      request: { params: ApplianceParam, query: z.object({ since: timeQuery }) },
      responses: { 200: json(MetricsSchema, 'Apply durations and lags'), ...errorResponses },
    }),
    async (c) => {
      const { name } = knownAppliance(deps, c.req.valid('param'));
      const now = deps.now();
      const since = timeParam('since', c.req.valid('query').since, now) ?? new Date(now.getTime() - 3_600_000);
      return c.json({ appliance: name, applies: await applyPoints(deps.audit.db, name, since) }, 200);
    },
  );
}

/** The appliance of a path, when the fleet config names it (404 otherwise). */
export function knownAppliance(deps: ReadDeps, p: { name: string }): { name: string } {
  if (!deps.audit.fleet.config.appliances.some((a) => a.name === p.name))
    throw new ApiError(404, 'UnknownAppliance', `unknown appliance "${p.name}"`);
  return p;
}

/** GET /appliances/{name}/history, …/applies/{id}/operations, …/explain, …/at. */
export function applianceRoutes(app: OpenAPIHono<ConsoleEnv>, deps: ReadDeps): void {
  const History = report('HistoryReport', 'Snapshots, applies, drift, holds and operator actions in time order.', {
    appliance: z.string(),
    entries: z.array(z.unknown()),
  });
  app.openapi(
    createRoute({
      method: 'get',
      path: '/appliances/{name}/history',
      tags,
      request: { params: ApplianceParam, query: HistoryQuery },
      responses: { 200: json(History, 'The history'), ...errorResponses },
    }),
    async (c) => {
      const { name } = knownAppliance(deps, c.req.valid('param'));
      const q = c.req.valid('query');
      const now = deps.now();
      const kinds = q.kind === undefined ? undefined : [q.kind].flat();
      const r = await historyReport(deps.audit, {
        appliance: name,
        since: timeParam('since', q.since, now),
        until: timeParam('until', q.until, now),
        ...(q.object === undefined ? {} : { object: q.object }),
        ...(kinds === undefined ? {} : { kinds }),
      });
      return c.json(r as unknown as z.infer<typeof History>, 200);
    },
  );
  const Operations = report(
    'OperationsReport',
    'Every operation one apply sent (payloads name secrets, never hold them).',
    {
      appliance: z.string(),
      operations: z.array(z.unknown()),
    },
  );
  app.openapi(
    createRoute({
      method: 'get',
      path: '/appliances/{name}/applies/{id}/operations',
      tags,
      request: { params: ApplianceParam.extend({ id: z.string().regex(/^\d+$/) }) },
      responses: { 200: json(Operations, 'The operations'), ...errorResponses },
    }),
    async (c) => {
      const { name, id } = c.req.valid('param');
      knownAppliance(deps, { name });
      const r = await operationsReport(deps.audit, { appliance: name, apply: id });
      return c.json(r as unknown as z.infer<typeof Operations>, 200);
    },
  );
  explainAndAt(app, deps);
}

/** GET …/explain and …/at. */
function explainAndAt(app: OpenAPIHono<ConsoleEnv>, deps: ReadDeps): void {
  const Explain = report('ExplainReport', 'Which Kubernetes objects a vendor object or request comes from.', {
    appliance: z.string(),
    target: z.unknown(),
  });
  app.openapi(
    createRoute({
      method: 'get',
      path: '/appliances/{name}/explain',
      tags,
      request: {
        params: ApplianceParam,
        query: z.object({
          q: z.string().min(1).max(2048).openapi({ description: 'A vendor object name, or host/path.' }),
          snapshot: z.string().regex(/^\d+$/).optional(),
          method: z.string().max(16).optional(),
        }),
      },
      responses: { 200: json(Explain, 'The explanation'), ...errorResponses },
    }),
    async (c) => {
      const { name } = knownAppliance(deps, c.req.valid('param'));
      const q = c.req.valid('query');
      const r = await explainReport(deps.audit, {
        appliance: name,
        query: q.q,
        ...(q.snapshot === undefined ? {} : { snapshot: q.snapshot }),
        ...(q.method === undefined ? {} : { method: q.method }),
      });
      return c.json(r as unknown as z.infer<typeof Explain>, 200);
    },
  );
  const At = report('AtReport', 'What the appliance held at a time: the read-back of the apply then live.', {
    appliance: z.string(),
    time: z.string(),
  });
  app.openapi(
    createRoute({
      method: 'get',
      path: '/appliances/{name}/at',
      tags,
      request: { params: ApplianceParam, query: z.object({ time: timeQuery }) },
      responses: { 200: json(At, 'The configuration then'), ...errorResponses },
    }),
    async (c) => {
      const { name } = knownAppliance(deps, c.req.valid('param'));
      const time = timeParam('time', c.req.valid('query').time, deps.now()) ?? deps.now();
      return c.json((await atReport(deps.audit, name, time)) as unknown as z.infer<typeof At>, 200);
    },
  );
}

/** GET /snapshots/{id} and /diff. */
export function snapshotRoutes(app: OpenAPIHono<ConsoleEnv>, deps: ReadDeps): void {
  const Show = report('ShowReport', "A snapshot's desired state object by object (and vendor objects).", {
    snapshot: z.unknown(),
    desired: z.unknown(),
  });
  app.openapi(
    createRoute({
      method: 'get',
      path: '/snapshots/{id}',
      tags,
      request: {
        params: z.object({
          id: z
            .string()
            .regex(/^\d+$/)
            .openapi({ param: { name: 'id', in: 'path' } }),
        }),
        query: z.object({ vendor: z.enum(['true', 'false']).optional() }),
      },
      responses: { 200: json(Show, 'The snapshot'), ...errorResponses },
    }),
    async (c) => {
      const r = await showReport(deps.audit, {
        snapshot: c.req.valid('param').id,
        vendor: c.req.valid('query').vendor === 'true',
      });
      return c.json(r as unknown as z.infer<typeof Show>, 200);
    },
  );
  const Diff = report('DiffReport', 'Object-level differences between two snapshots and the vendor operations.', {
    from: z.unknown(),
    to: z.unknown(),
    objects: z.array(z.unknown()),
  });
  app.openapi(
    createRoute({
      method: 'get',
      path: '/diff',
      tags,
      request: { query: z.object({ from: z.string().regex(/^\d+$/), to: z.string().regex(/^\d+$/) }) },
      responses: { 200: json(Diff, 'The diff'), ...errorResponses },
    }),
    async (c) => {
      const q = c.req.valid('query');
      const [a, b] = [await requireSnapshot(deps.audit, q.from), await requireSnapshot(deps.audit, q.to)];
      return c.json((await diffReport(deps.audit, a, b)) as unknown as z.infer<typeof Diff>, 200);
    },
  );
}
