// The custom resources the simulator serves (the Gateway API kinds) and what the API server's CRD handler does
// with each write of one: prune and default against the version's schema, then validate.
import { isJsonObject } from './json-value.ts';
import type { FieldProblem } from './kind-rules.ts';
import { gatewayClassSchema, gatewaySchema, referenceGrantSchema } from './gateway-schemas.ts';
import type { KubeObject, ResourceType } from './resource-types.ts';
import { grpcRouteSchema, tlsRouteSchema } from './grpc-tls-route-schemas.ts';
import { httpRouteSchema } from './route-schemas.ts';
import { pruneAndDefault, validateAgainstSchema } from './schema-validation.ts';
import type { SchemaNode } from './structural-schema.ts';

/** The fieldValidation query parameter: what a write does with fields the schema does not declare. */
export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

/** The schema of each custom kind; every served version of a kind has the same one. */
const schemasByKind: Readonly<Record<string, SchemaNode>> = {
  GatewayClass: gatewayClassSchema,
  Gateway: gatewaySchema,
  HTTPRoute: httpRouteSchema,
  GRPCRoute: grpcRouteSchema,
  ReferenceGrant: referenceGrantSchema,
  TLSRoute: tlsRouteSchema,
};

/** The structural schema of a custom resource type, or undefined for a built-in one. */
export function customResourceSchemaOf(type: ResourceType): SchemaNode | undefined {
  return type.custom ? schemasByKind[type.kind] : undefined;
}

/** What normalizing a custom resource found: validation failures, and the fields pruning dropped. */
export interface CustomResourceFindings {
  readonly problems: FieldProblem[];
  /** Paths of fields the schema does not declare (`spec.foo`), for fieldValidation Warn and Strict. */
  readonly unknownFields: string[];
}

/**
 * Prunes and defaults `obj` in place, as the CRD handler does on decoding a request, then validates it (`old`,
 * the stored object on updates, is what transition rules compare with).
 */
export function normalizeCustomResource(
  type: ResourceType,
  obj: KubeObject,
  old: KubeObject | undefined,
): CustomResourceFindings {
  const schema = customResourceSchemaOf(type);
  if (schema === undefined) return { problems: [], unknownFields: [] };
  const unknownFields: string[] = [];
  const pruned = pruneAndDefault(schema, obj, '', unknownFields);
  for (const key of Object.keys(obj)) delete obj[key];
  if (isJsonObject(pruned)) Object.assign(obj, pruned);
  return { problems: validateAgainstSchema(schema, obj, old), unknownFields };
}
