import { z } from '@hono/zod-openapi';

// The API's request and response shapes, as registered in its OpenAPI document. Reports keep the fields the audit
// CLI prints with `-o json`: the API and the CLI answer alike.

export const ErrorSchema = z
  .object({ error: z.object({ code: z.string(), message: z.string() }) })
  .openapi('Error', { description: 'A stable code and a message that names the object and the reason.' });

export const ApplianceParam = z.object({
  name: z
    .string()
    .min(1)
    .max(63)
    .openapi({ param: { name: 'name', in: 'path' }, example: 'edge' }),
});

export const SessionSchema = z
  .object({ name: z.string(), role: z.enum(['viewer', 'operator']), via: z.enum(['token', 'kubernetes']) })
  .openapi('Session');

const SnapshotHeadSchema = z
  .object({
    id: z.string(),
    createdAt: z.string(),
    origin: z.string(),
    held: z.boolean(),
    holdReason: z.string().nullable(),
  })
  .openapi('SnapshotHead');

export const AppliancesSchema = z
  .object({
    appliances: z.array(
      z.object({
        name: z.string(),
        driver: z.string(),
        clusters: z.array(z.string()),
        head: SnapshotHeadSchema.nullable(),
        pin: z
          .object({
            snapshotId: z.string(),
            reason: z.string().nullable(),
            since: z.string(),
            actor: z.string().nullable(),
          })
          .nullable(),
        lastApply: z
          .object({ id: z.string(), status: z.string(), finishedAt: z.string(), snapshotId: z.string() })
          .nullable(),
      }),
    ),
  })
  .openapi('Appliances');

export const MetricsSchema = z
  .object({
    appliance: z.string(),
    applies: z.array(
      z.object({
        at: z.string(),
        snapshotId: z.string(),
        status: z.string(),
        trigger: z.string(),
        durationMs: z.number(),
        lagMs: z.number().nullable().openapi({
          description: 'From the archiving of the last Kubernetes change the snapshot folds to the end of its apply.',
        }),
      }),
    ),
  })
  .openapi('ApplyMetrics');

/** A report of the audit: documented by its top-level fields, passed through whole. */
export function report(name: string, description: string, fields: Record<string, z.ZodType>) {
  return z.looseObject(fields).openapi(name, { description });
}

export const timeQuery = z
  .string()
  .max(64)
  .optional()
  .openapi({ description: 'An RFC 3339 time, or relative to now: -30m, -2h, -1d.', example: '-1h' });

export const HistoryQuery = z.object({
  since: timeQuery,
  until: timeQuery,
  object: z
    .string()
    .max(253)
    .optional()
    .openapi({ description: 'Only snapshots a matching Kubernetes object caused.' }),
  kind: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .openapi({
      description: 'Entry kinds to keep (repeatable): snapshot, apply, drift, hold, approval, rollback, resume.',
    }),
});

export const ReasonBody = z.object({
  reason: z.string().trim().min(1).max(1000).openapi({ description: 'Why: recorded with the identity of the caller.' }),
});

export const RollbackBody = ReasonBody.extend({
  to: z.string().regex(/^\d+$/).openapi({ description: 'The snapshot to roll back to.', example: '42' }),
  waitSeconds: z.number().min(0).max(60).default(0).openapi({ description: 'Wait this long for the apply.' }),
});

export const ApproveBody = ReasonBody.extend({
  waitSeconds: z.number().min(0).max(60).default(10),
});
