import { leaf, setInfo, type ErrorInfo } from './error-body.ts';
import type { FieldSpec, ResourceSchema } from './schema/index.ts';
import type { Json, Properties } from './validate-properties.ts';

/** Answers whether an object of `type` named `name` exists. */
export type Exists = (type: string, name: string) => boolean;

/**
 * Finds names that refer to missing objects. In strict mode every reference is checked; otherwise only the
 * ones vTM always checks (a traffic IP group's machines must be traffic managers of the cluster).
 */
export function checkReferences(
  schema: ResourceSchema,
  props: Properties,
  exists: Exists,
  strict: boolean,
): ErrorInfo | null {
  const info: ErrorInfo = {};
  for (const [section, keys] of Object.entries(schema.sections)) {
    for (const [key, spec] of Object.entries(keys)) {
      checkValue(spec, props[section]?.[key], [section, key], { exists, strict, info });
    }
  }
  return Object.keys(info).length === 0 ? null : info;
}

interface Walk {
  readonly exists: Exists;
  readonly strict: boolean;
  readonly info: ErrorInfo;
}

function checkValue(spec: FieldSpec, value: Json | undefined, path: readonly string[], walk: Walk): void {
  if (value === undefined) return;
  if (spec.kind === 'table' && Array.isArray(value)) {
    for (const row of value as Record<string, Json>[]) {
      for (const [column, columnSpec] of Object.entries(spec.columns)) {
        checkValue(columnSpec, row[column], [...path, String(row[spec.key]), column], walk);
      }
    }
    return;
  }
  if ((spec.kind !== 'string' && spec.kind !== 'list') || spec.ref === undefined) return;
  if (!walk.strict && spec.alwaysCheckRef !== true) return;
  const names = Array.isArray(value) ? value : [value];
  const missing = names.filter(
    (n): n is string => typeof n === 'string' && n !== '' && !walk.exists(spec.ref as string, n),
  );
  if (missing.length > 0) {
    setInfo(
      walk.info,
      path,
      leaf('reference.not_found', `Reference to non-existent ${spec.ref} '${missing.join("', '")}'`),
    );
  }
}

/** Whether one object refers to `targetType/targetName` (strict mode refuses to delete what is in use). */
export function refersTo(schema: ResourceSchema, props: Properties, targetType: string, targetName: string): boolean {
  let found = false;
  const visit = (spec: FieldSpec, value: Json | undefined): void => {
    if (value === undefined || found) return;
    if (spec.kind === 'table' && Array.isArray(value)) {
      for (const row of value as Record<string, Json>[]) {
        for (const [column, columnSpec] of Object.entries(spec.columns)) visit(columnSpec, row[column]);
      }
    } else if ((spec.kind === 'string' || spec.kind === 'list') && spec.ref === targetType) {
      found = Array.isArray(value) ? value.includes(targetName) : value === targetName;
    }
  };
  for (const [section, keys] of Object.entries(schema.sections)) {
    for (const [key, spec] of Object.entries(keys)) visit(spec, props[section]?.[key]);
  }
  return found;
}
