import { apiVersionOf, resourceTypes, type ResourceType } from './resource-types.ts';
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

/**
 * `/openapi/v3/<gv>`: a minimal OpenAPI v3 document — paths with their GVK and parameters but no schemas,
 * so kubectl sends `fieldValidation` and computes strategic merge patches from its built-in types.
 */
export function openApiV3Document(path: string, version: string): Record<string, unknown> | undefined {
  const types = resourceTypes.filter((t) => gvPath(t.group, t.version) === path);
  if (types.length === 0) return undefined;
  const paths: Record<string, unknown> = {};
  for (const t of types) {
    const gvk = { group: t.group, version: t.version, kind: t.kind };
    const op = (action: string) => ({
      operationId: `${action}${t.kind}`,
      parameters: action === 'patch' || action === 'replace' ? [fieldValidation] : [],
      responses: { '200': { description: 'OK' } },
      'x-kubernetes-action': action,
      'x-kubernetes-group-version-kind': gvk,
    });
    // A custom resource's patch names its media types, without the strategic merge patch: kubectl then sends
    // JSON merge patches, as it does for any CRD.
    const patch = t.custom ? { ...op('patch'), requestBody: { content: customPatchBodies } } : op('patch');
    paths[itemPath(t)] = { get: op('get'), put: op('replace'), patch, delete: op('delete') };
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: `v${version}` },
    paths,
    components: { schemas: {} },
    'x-api-version': apiVersionOf(types[0] as ResourceType),
  };
}
