import { badRequest, type ApiError } from './api-error.ts';
import { parseFieldSelector, type FieldSelector } from './field-selector.ts';
import { parseLabelSelector, type LabelSelector } from './label-selector.ts';
import type { ResourceType } from './resource-types.ts';
import type { IncludeObject } from './table.ts';

/** The list/watch query parameters of a collection GET, parsed and validated. */
export interface CollectionQuery {
  readonly watch: boolean;
  readonly namespace: string;
  readonly labels: LabelSelector;
  readonly fields: FieldSelector;
  readonly limit?: number;
  readonly continueToken?: string;
  readonly resourceVersion?: string;
  readonly resourceVersionMatch?: string;
  readonly timeoutSeconds?: number;
  readonly allowWatchBookmarks: boolean;
  readonly sendInitialEvents: boolean;
  readonly includeObject: IncludeObject;
}

function flag(params: URLSearchParams, name: string): boolean {
  const v = params.get(name);
  return v === 'true' || v === '1';
}

function optionalInt(params: URLSearchParams, name: string): number | undefined | ApiError {
  const v = params.get(name);
  if (v === null || v === '') return undefined;
  return /^\d+$/.test(v) ? Number(v) : badRequest(`invalid ${name}: ${v}`);
}

/** Parses the query of a list or watch request; bad selectors and numbers become 400s. */
export function parseCollectionQuery(
  params: URLSearchParams,
  type: ResourceType,
  namespace: string,
): CollectionQuery | ApiError {
  const labels = parseLabelSelector(params.get('labelSelector'));
  if (!labels.ok) return badRequest(labels.message);
  const fields = parseFieldSelector(params.get('fieldSelector'), type);
  if (!fields.ok) return badRequest(fields.message);
  const limit = optionalInt(params, 'limit');
  if (typeof limit === 'object') return limit;
  const timeoutSeconds = optionalInt(params, 'timeoutSeconds');
  if (typeof timeoutSeconds === 'object') return timeoutSeconds;
  const match = params.get('resourceVersionMatch') ?? undefined;
  if (match !== undefined && match !== '' && match !== 'Exact' && match !== 'NotOlderThan')
    return badRequest(`resourceVersionMatch: Unsupported value: "${match}"`);
  const include = params.get('includeObject') ?? 'Metadata';
  if (include !== 'None' && include !== 'Metadata' && include !== 'Object')
    return badRequest(`includeObject: Unsupported value: "${include}"`);
  return {
    watch: flag(params, 'watch'),
    namespace,
    labels: labels.selector,
    fields: fields.selector,
    limit,
    timeoutSeconds,
    continueToken: params.get('continue') ?? undefined,
    resourceVersion: params.get('resourceVersion') ?? undefined,
    resourceVersionMatch: match === '' ? undefined : match,
    allowWatchBookmarks: flag(params, 'allowWatchBookmarks'),
    sendInitialEvents: flag(params, 'sendInitialEvents'),
    includeObject: include,
  };
}
