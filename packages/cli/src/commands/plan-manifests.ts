import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { DesiredState } from '@portolan/desired-state';
import type { ApplianceConfig, ClusterConfig } from '@portolan/fleet-config';
import type { KubeKind, KubeWatchEvent } from '@portolan/kube-model';
import { UsageError } from '../command.ts';
import { isSystemError } from '@portolan/errors';

/** One parsed manifest document and where it came from. */
export interface ManifestDoc {
  readonly source: string;
  readonly object: unknown;
}

/** What `portolan plan` computed. */
export interface ManifestPlan {
  readonly desired: DesiredState;
  readonly root: string;
  readonly plannerVersion: string;
  readonly summary: readonly string[];
  readonly notes: readonly string[];
}

const KINDS: readonly KubeKind[] = ['Ingress', 'IngressClass', 'Service', 'EndpointSlice', 'Secret', 'Node'];

/** Reads manifest files and directories (*.yaml, *.yml, *.json), every document, `kind: List` flattened. */
export async function readManifestFiles(files: readonly string[]): Promise<ManifestDoc[]> {
  const out: ManifestDoc[] = [];
  for (const f of files) {
    const info = await stat(f).catch((e: unknown) => {
      if (isSystemError(e, 'ENOENT', 'ENOTDIR')) throw new UsageError(`${f}: no such file or directory`, { cause: e });
      throw e;
    });
    const paths = info.isDirectory()
      ? (await readdir(f))
          .filter((n) => /\.(ya?ml|json)$/.test(n))
          .sort()
          .map((n) => path.join(f, n))
      : [f];
    for (const p of paths) out.push(...parseManifestText(await readFile(p, 'utf8'), p));
  }
  return out;
}

/** Parses manifest text (multi-document YAML or JSON). */
export function parseManifestText(text: string, source: string): ManifestDoc[] {
  const out: ManifestDoc[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) throw new UsageError(`${source}: ${doc.errors[0]!.message}`);
    const value: unknown = doc.toJS();
    const items =
      isRecord(value) && value['kind'] === 'List' && Array.isArray(value['items']) ? value['items'] : [value];
    for (const object of items) if (object !== null && object !== undefined) out.push({ source, object });
  }
  return out;
}

/** Plans manifests for one appliance (the fleet profile's, or a default one of `driver`). */
export async function planManifests(
  docs: readonly ManifestDoc[],
  o: {
    profileFile?: string | undefined;
    appliance?: string | undefined;
    cluster?: string | undefined;
    driver: 'haproxy' | 'vtm' | 'loadmaster';
  },
): Promise<ManifestPlan> {
  const [{ Planner, PLANNER_VERSION }, { fleetConfigSchema, loadFleetConfig }] = await Promise.all([
    import('@portolan/planner'),
    import('@portolan/fleet-config'),
  ]);
  const notes: string[] = [];
  let clusters: ClusterConfig[];
  let appliance: ApplianceConfig;
  if (o.profileFile !== undefined) {
    const { config } = await loadFleetConfig(o.profileFile);
    const named =
      o.appliance === undefined
        ? config.appliances.length === 1
          ? config.appliances[0]
          : undefined
        : config.appliances.find((a) => a.name === o.appliance);
    if (named === undefined)
      throw new UsageError(
        `${o.appliance === undefined ? 'the fleet config has several appliances; pick one with --appliance' : `no appliance "${o.appliance}"`} (${config.appliances.map((a) => a.name).join(', ')})`,
      );
    appliance = named;
    clusters = config.clusters;
  } else {
    const fleet = fleetConfigSchema.parse({
      version: 1,
      clusters: [{ name: o.cluster ?? 'local' }],
      appliances: [{ name: 'local', driver: o.driver, ...DEFAULT_SECTIONS[o.driver] }],
      bus: { url: 'nats://unused' },
      store: { url: 'postgres://unused' },
      leases: { redisUrl: 'redis://unused' },
      secrets: { keyFile: 'unused' },
    });
    appliance = fleet.appliances[0]!;
    clusters = fleet.clusters;
  }
  const cluster = o.cluster ?? appliance.clusters?.[0] ?? clusters[0]!.name;
  if (!clusters.some((c) => c.name === cluster))
    throw new UsageError(`cluster "${cluster}" is not in the fleet config (${clusters.map((c) => c.name).join(', ')})`);
  const events = manifestEvents(docs, cluster, notes);
  if (!docs.some((d) => isRecord(d.object) && d.object['kind'] === 'IngressClass'))
    events.unshift(...assumedClasses(docs, cluster, appliance.ingressControllers[0]!, notes));
  const planner = new Planner({ clusters, appliances: [appliance] });
  for (const e of events) planner.applyEvent(e);
  const [plan] = planner.planDirty();
  const desired = plan!.desired;
  const { summarizeDesiredState } = await import('./plan-summary.ts');
  return { desired, root: plan!.root, plannerVersion: PLANNER_VERSION, summary: summarizeDesiredState(desired), notes };
}

const DEFAULT_SECTIONS = {
  haproxy: { haproxy: { configDir: 'unused', masterSocket: 'unused', httpPort: 80, httpsPort: 443 } },
  vtm: {
    vtm: {
      url: 'https://vtm.invalid:9070',
      username: 'unused',
      passwordFile: 'unused',
      defaultTrafficIpGroup: 'default',
    },
  },
  loadmaster: { loadmaster: { url: 'https://loadmaster.invalid', apiKeyFile: 'unused', defaultAddress: '192.0.2.1' } },
} as const;

/** Manifests → watch events; plaintext TLS data is replaced by a local fingerprint, never carried. */
function manifestEvents(docs: readonly ManifestDoc[], cluster: string, notes: string[]): KubeWatchEvent[] {
  const events: KubeWatchEvent[] = [];
  for (const { object, source } of docs) {
    if (!isRecord(object)) continue;
    const kind = object['kind'];
    if (typeof kind !== 'string' || !(KINDS as readonly string[]).includes(kind)) continue;
    const body = kind === 'Secret' ? sealLocally(object) : object;
    const meta = isRecord(body['metadata']) ? body['metadata'] : {};
    const namespaced = kind !== 'IngressClass' && kind !== 'Node';
    const withNs =
      namespaced && meta['namespace'] === undefined ? { ...body, metadata: { ...meta, namespace: 'default' } } : body;
    if (typeof meta['name'] !== 'string') notes.push(`${source}: a ${kind} without metadata.name is ignored`);
    events.push({ cluster, kind: kind as KubeKind, type: 'ADDED', object: withNs });
  }
  return events;
}

function sealLocally(secret: Record<string, unknown>): Record<string, unknown> {
  const { data, stringData, ...rest } = secret;
  const d = isRecord(data) ? data : {};
  const s = isRecord(stringData) ? stringData : {};
  const part = (k: string): string =>
    String(s[k] ?? (typeof d[k] === 'string' ? Buffer.from(d[k], 'base64').toString('utf8') : ''));
  const crt = part('tls.crt');
  const key = part('tls.key');
  if (crt === '' && key === '') return rest;
  const fingerprint = createHash('sha256').update(crt).update('\u0000').update(key).digest('hex');
  return { ...rest, data: { fingerprint } };
}

function assumedClasses(
  docs: readonly ManifestDoc[],
  cluster: string,
  controller: string,
  notes: string[],
): KubeWatchEvent[] {
  const names = new Set<string>(['portolan']);
  for (const { object } of docs) {
    if (!isRecord(object) || object['kind'] !== 'Ingress') continue;
    const spec = isRecord(object['spec']) ? object['spec'] : {};
    if (typeof spec['ingressClassName'] === 'string') names.add(spec['ingressClassName']);
  }
  notes.push(
    `no IngressClass in the manifests: assuming ${[...names].sort().join(', ')} (default) belong to ${controller}`,
  );
  return [...names].sort().map((name) => ({
    cluster,
    kind: 'IngressClass' as const,
    type: 'ADDED' as const,
    object: {
      kind: 'IngressClass',
      metadata: { name, annotations: { 'ingressclass.kubernetes.io/is-default-class': String(name === 'portolan') } },
      spec: { controller },
    },
  }));
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}
