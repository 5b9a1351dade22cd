import { apiVersionOf, resourceTypes, virtualResourceTypes, type ResourceType } from './resource-types.ts';

const allVerbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const statusVerbs = ['get', 'patch', 'update'];

/** Stored resources, then the create-only ones: everything discovery lists. */
const discoverableTypes: readonly ResourceType[] = [...resourceTypes, ...virtualResourceTypes];

function verbsOf(type: ResourceType): string[] {
  if (virtualResourceTypes.includes(type)) return ['create'];
  return type.kind === 'Namespace' ? allVerbs.filter((v) => v !== 'deletecollection') : allVerbs;
}

function typesIn(group: string, version: string): ResourceType[] {
  return discoverableTypes.filter((t) => t.group === group && t.version === version);
}

/** Orders versions as discovery lists them: GA before beta before alpha, higher numbers first (v1, v1beta1, v1alpha2). */
export function compareVersions(a: string, b: string): number {
  const rank = (v: string): [number, number, number] => {
    const m = /^v(\d+)(?:(beta|alpha)(\d+))?$/.exec(v);
    if (m === null) return [0, 0, 0];
    const stability = m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1;
    return [stability, Number(m[1]), Number(m[3] ?? 0)];
  };
  const [x, y] = [rank(a), rank(b)];
  return y[0] - x[0] || y[1] - x[1] || y[2] - x[2];
}

/** The served API groups other than the core group, each with its versions, the preferred one first. */
export function servedGroups(): { group: string; versions: string[] }[] {
  const seen = new Map<string, Set<string>>();
  for (const t of discoverableTypes) {
    if (t.group === '') continue;
    const versions = seen.get(t.group) ?? new Set<string>();
    versions.add(t.version);
    seen.set(t.group, versions);
  }
  return [...seen].map(([group, versions]) => ({ group, versions: [...versions].sort(compareVersions) }));
}

/** `/api`: the APIVersions document of the legacy core group. */
export function apiVersionsDocument(serverAddress: string): Record<string, unknown> {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function groupEntry(group: string, versions: readonly string[]): Record<string, unknown> {
  const gvs = versions.map((version) => ({ groupVersion: `${group}/${version}`, version }));
  return { name: group, versions: gvs, preferredVersion: gvs[0] };
}

/** `/apis`: the APIGroupList of every named group. */
export function apiGroupListDocument(): Record<string, unknown> {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: servedGroups().map((g) => groupEntry(g.group, g.versions)) };
}

/** `/apis/<group>`: one APIGroup, or undefined when the group is not served. */
export function apiGroupDocument(group: string): Record<string, unknown> | undefined {
  const found = servedGroups().find((g) => g.group === group);
  return found === undefined
    ? undefined
    : { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(found.group, found.versions) };
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

function discoveryGroup(group: string, versions: readonly string[]): Record<string, unknown> {
  return {
    metadata: group === '' ? { creationTimestamp: null } : { name: group, creationTimestamp: null },
    versions: versions.map((version) => ({
      version,
      resources: typesIn(group, version).map(discoveryResource),
      freshness: 'Current',
    })),
  };
}

/** Aggregated discovery (apidiscovery.k8s.io/v2 APIGroupDiscoveryList) for `/api` (core) or `/apis` (named groups). */
export function aggregatedDiscoveryDocument(core: boolean): Record<string, unknown> {
  const items = core ? [discoveryGroup('', ['v1'])] : servedGroups().map((g) => discoveryGroup(g.group, g.versions));
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
