import { apiVersionOf, resourceTypes, virtualResourceTypes, type ResourceType } from './resource-types.ts';
import { servedGroups } from './discovery.ts';

/** The group-version path of an OpenAPI v3 document (`api/v1`, `apis/networking.k8s.io/v1`). */
function gvPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

/** `/openapi/v3`: the index of per-group-version documents (kubectl reads it to check `fieldValidation` support). */
export function openApiV3Index(hash: string): Record<string, unknown> {
  const gvs = [
    { group: '', version: 'v1' },
    ...servedGroups().flatMap((g) => g.versions.map((version) => ({ group: g.group, version }))),
  ];
  const paths: Record<string, unknown> = {};
  for (const { group, version } of gvs)
    paths[gvPath(group, version)] = { serverRelativeURL: `/openapi/v3/${gvPath(group, version)}?hash=${hash}` };
  return { paths };
}

const fieldValidation = {
  name: 'fieldValidation',
  in: 'query',
  description:
    'fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields.',
  schema: { type: 'string', uniqueItems: true },
};

const customPatchBodies = Object.fromEntries(
  ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'].map((m) => [
    m,
    { schema: { type: 'object' } },
  ]),
);

function itemPath(t: ResourceType): string {
  const prefix = t.group === '' ? `/api/${t.version}` : `/apis/${t.group}/${t.version}`;
  return t.namespaced ? `${prefix}/namespaces/{namespace}/${t.plural}/{name}` : `${prefix}/${t.plural}/{name}`;
}

function operation(t: ResourceType, action: string): Record<string, unknown> {
  return {
    operationId: `${action}${t.kind}`,
    parameters: action === 'patch' || action === 'replace' || action === 'post' ? [fieldValidation] : [],
    responses: { '200': { description: 'OK' } },
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': { group: t.group, version: t.version, kind: t.kind },
  };
}

/**
 * The paths of one type: an object's get, replace, patch and delete; a virtual type's collection create. That one
 * also lists a patch with `fieldValidation`, which the server answers 405: kubectl decides whether to send the
 * parameter from patch operations alone, and the simulator has no OpenAPI v2 for kubectl's fallback to read.
 */
function pathsOf(t: ResourceType): Record<string, unknown> {
  if (virtualResourceTypes.includes(t))
    return {
      [`/apis/${t.group}/${t.version}/${t.plural}`]: { post: operation(t, 'post'), patch: operation(t, 'patch') },
    };
  const op = (action: string) => operation(t, action);
  // A custom resource's patch names its media types, without the strategic merge patch: kubectl then sends
  // JSON merge patches, as it does for any CRD.
  const patch = t.custom ? { ...op('patch'), requestBody: { content: customPatchBodies } } : op('patch');
  return { [itemPath(t)]: { get: op('get'), put: op('replace'), patch, delete: op('delete') } };
}

/**
 * `/openapi/v3/<gv>`: a minimal OpenAPI v3 document — paths with their GVK and parameters but no schemas,
 * so kubectl sends `fieldValidation` and computes strategic merge patches from its built-in types.
 */
export function openApiV3Document(path: string, version: string): Record<string, unknown> | undefined {
  const types = [...resourceTypes, ...virtualResourceTypes].filter((t) => gvPath(t.group, t.version) === path);
  if (types.length === 0) return undefined;
  const paths = Object.fromEntries(types.flatMap((t) => Object.entries(pathsOf(t))));
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: `v${version}` },
    paths,
    components: { schemas: {} },
    'x-api-version': apiVersionOf(types[0] as ResourceType),
  };
}
