import { apiVersionOf, resourceTypes, type ResourceType } from './resource-types.ts';

const allVerbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const statusVerbs = ['get', 'patch', 'update'];

function verbsOf(type: ResourceType): string[] {
  return type.kind === 'Namespace' ? allVerbs.filter((v) => v !== 'deletecollection') : allVerbs;
}

function typesIn(group: string, version: string): ResourceType[] {
  return resourceTypes.filter((t) => t.group === group && t.version === version);
}

/** The served API groups other than the core group, with their versions. */
export function servedGroups(): { group: string; version: string }[] {
  const seen = new Map<string, string>();
  for (const t of resourceTypes) if (t.group !== '' && !seen.has(t.group)) seen.set(t.group, t.version);
  return [...seen].map(([group, version]) => ({ group, version }));
}

/** `/api`: the APIVersions document of the legacy core group. */
export function apiVersionsDocument(serverAddress: string): Record<string, unknown> {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function groupEntry(group: string, version: string): Record<string, unknown> {
  const gv = { groupVersion: `${group}/${version}`, version };
  return { name: group, versions: [gv], preferredVersion: gv };
}

/** `/apis`: the APIGroupList of every named group. */
export function apiGroupListDocument(): Record<string, unknown> {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: servedGroups().map((g) => groupEntry(g.group, g.version)) };
}

/** `/apis/<group>`: one APIGroup, or undefined when the group is not served. */
export function apiGroupDocument(group: string): Record<string, unknown> | undefined {
  const found = servedGroups().find((g) => g.group === group);
  return found === undefined
    ? undefined
    : { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(found.group, found.version) };
}

/** `/api/v1` or `/apis/<group>/<version>`: the APIResourceList, or undefined when not served. */
export function apiResourceListDocument(group: string, version: string): Record<string, unknown> | undefined {
  const types = typesIn(group, version);
  if (types.length === 0) return undefined;
  const resources = types.flatMap((t) => {
    const main = {
      name: t.plural,
      singularName: t.singular,
      namespaced: t.namespaced,
      kind: t.kind,
      verbs: verbsOf(t),
      ...(t.shortNames.length > 0 ? { shortNames: t.shortNames } : {}),
      ...(t.categories.length > 0 ? { categories: t.categories } : {}),
    };
    const status = {
      name: `${t.plural}/status`,
      singularName: '',
      namespaced: t.namespaced,
      kind: t.kind,
      verbs: statusVerbs,
    };
    return t.hasStatus ? [main, status] : [main];
  });
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: apiVersionOf(types[0] as ResourceType), resources };
}

function discoveryResource(t: ResourceType): Record<string, unknown> {
  const responseKind = { group: t.group, version: t.version, kind: t.kind };
  return {
    resource: t.plural,
    responseKind,
    scope: t.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: t.singular,
    verbs: verbsOf(t),
    ...(t.shortNames.length > 0 ? { shortNames: t.shortNames } : {}),
    ...(t.categories.length > 0 ? { categories: t.categories } : {}),
    ...(t.hasStatus ? { subresources: [{ subresource: 'status', responseKind, verbs: statusVerbs }] } : {}),
  };
}

function discoveryGroup(group: string, version: string): Record<string, unknown> {
  return {
    metadata: group === '' ? { creationTimestamp: null } : { name: group, creationTimestamp: null },
    versions: [{ version, resources: typesIn(group, version).map(discoveryResource), freshness: 'Current' }],
  };
}

/** Aggregated discovery (apidiscovery.k8s.io/v2 APIGroupDiscoveryList) for `/api` (core) or `/apis` (named groups). */
export function aggregatedDiscoveryDocument(core: boolean): Record<string, unknown> {
  const items = core ? [discoveryGroup('', 'v1')] : servedGroups().map((g) => discoveryGroup(g.group, g.version));
  return { kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', metadata: {}, items };
}

/** `/version`: the version.Info document for a configured `major.minor[.patch]`. */
export function versionDocument(version: string): Record<string, unknown> {
  const [major = '1', minor = '31', patch = '0'] = version.replace(/^v/, '').split('.');
  return {
    major,
    minor,
    gitVersion: `v${major}.${minor}.${patch}`,
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2024-08-13T07:28:49Z',
    goVersion: 'go1.22.5',
    compiler: 'gc',
    platform: 'linux/amd64',
  };
}
