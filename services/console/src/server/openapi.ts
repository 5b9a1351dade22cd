import type { z } from '@hono/zod-openapi';
import { ErrorSchema } from './schemas.ts';

/** A JSON response of the OpenAPI document. */
export function json<S extends z.ZodType>(schema: S, description: string) {
  return { content: { 'application/json': { schema } }, description };
}

/** The error answers every route may give. */
export const errorResponses = {
  400: json(ErrorSchema, 'The request names something malformed'),
  401: json(ErrorSchema, 'No token, or one that names nobody'),
  403: json(ErrorSchema, 'The role does not allow this call'),
  404: json(ErrorSchema, 'No such appliance, snapshot or apply'),
} as const;

/** The answers of a write: the errors above and a conflict. */
export const writeErrorResponses = {
  ...errorResponses,
  409: json(ErrorSchema, 'The history moved under the call; nothing was changed'),
} as const;
