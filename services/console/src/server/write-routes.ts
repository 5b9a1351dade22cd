import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { actorOf } from '@portolan/access';
import { approve, resume, rollback } from '@portolan/audit';
import type { ConsoleEnv } from './authenticate.ts';
import { authorized } from './authenticate.ts';
import { json, writeErrorResponses } from './openapi.ts';
import { knownAppliance, type ReadDeps } from './read-routes.ts';
import { ApplianceParam, ApproveBody, ReasonBody, report, RollbackBody } from './schemas.ts';

const tags = ['write'];

/** A JSON request body of the OpenAPI document. */
function body<S extends z.ZodType>(schema: S) {
  return { required: true, content: { 'application/json': { schema } } };
}

/** POST …/approve, …/rollback, …/resume: operators only; each records the caller's identity and reason. */
export function writeRoutes(app: OpenAPIHono<ConsoleEnv>, deps: ReadDeps): void {
  approveRoute(app, deps);
  rollbackRoute(app, deps);
  resumeRoute(app, deps);
}

function approveRoute(app: OpenAPIHono<ConsoleEnv>, deps: ReadDeps): void {
  const Approve = report('ApproveReport', 'The approval, the removals it released and the apply that followed.', {
    appliance: z.string(),
  });
  app.openapi(
    createRoute({
      method: 'post',
      path: '/appliances/{name}/approve',
      tags,
      request: { params: ApplianceParam, body: body(ApproveBody) },
      responses: { 200: json(Approve, 'Approved'), ...writeErrorResponses },
    }),
    async (c) => {
      const actor = actorOf(authorized(c.get('identity'), 'write', 'approve held removals'));
      const { name } = knownAppliance(deps, c.req.valid('param'));
      const b = c.req.valid('json');
      const r = await approve(deps.audit, { appliance: name, reason: b.reason, actor, waitMs: b.waitSeconds * 1000 });
      return c.json(r as unknown as z.infer<typeof Approve>, 200);
    },
  );
}

function rollbackRoute(app: OpenAPIHono<ConsoleEnv>, deps: ReadDeps): void {
  const Rollback = report('RollbackReport', 'The diff, the rollback snapshot appended, the pin and the apply.', {
    appliance: z.string(),
    rollbackSnapshot: z.string().nullable(),
  });
  app.openapi(
    createRoute({
      method: 'post',
      path: '/appliances/{name}/rollback',
      tags,
      request: { params: ApplianceParam, body: body(RollbackBody) },
      responses: { 200: json(Rollback, 'Rolled back'), ...writeErrorResponses },
    }),
    async (c) => {
      const actor = actorOf(authorized(c.get('identity'), 'write', 'roll back'));
      const { name } = knownAppliance(deps, c.req.valid('param'));
      const b = c.req.valid('json');
      const r = await rollback(deps.audit, {
        appliance: name,
        to: b.to,
        reason: b.reason,
        actor,
        waitMs: b.waitSeconds * 1000,
      });
      return c.json(r as unknown as z.infer<typeof Rollback>, 200);
    },
  );
}

function resumeRoute(app: OpenAPIHono<ConsoleEnv>, deps: ReadDeps): void {
  const Resume = report('ResumeReport', 'The pin removed and the plan released.', { appliance: z.string() });
  app.openapi(
    createRoute({
      method: 'post',
      path: '/appliances/{name}/resume',
      tags,
      request: { params: ApplianceParam, body: body(ReasonBody) },
      responses: { 200: json(Resume, 'Resumed'), ...writeErrorResponses },
    }),
    async (c) => {
      const actor = actorOf(authorized(c.get('identity'), 'write', 'resume planning'));
      const { name } = knownAppliance(deps, c.req.valid('param'));
      const r = await resume(deps.audit, { appliance: name, reason: c.req.valid('json').reason, actor });
      return c.json(r as unknown as z.infer<typeof Resume>, 200);
    },
  );
}
