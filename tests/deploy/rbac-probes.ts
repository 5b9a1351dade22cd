// One probe per permission the rendered ClusterRoles grant: the request a service makes that needs it, made by the
// service's own client code (the watcher's KubeApiClient, request paths and Event recorder; the applier's
// ClientNodeKubeApi) with the service's token read from its service-account folder, as in a pod.
import { ClientNodeKubeApi, type KubeApi } from '@portolan/applier';
import type { KubeSim } from '@portolan/kube-sim';
import {
  KubeApiClient,
  KubeEventRecorder,
  planWatchStreams,
  streamRequestPath,
  WATCHED_KINDS,
  type WatchedKind,
} from '@portolan/watcher';
import type { Manifest } from './render.ts';

/** One permission a rendered ClusterRole grants. */
export interface Grant {
  readonly role: string;
  readonly apiGroup: string;
  readonly resource: string;
  readonly verb: string;
}

/** How a grant is named in probe tables and failure messages. */
export const grantKey = (g: Grant): string => `${g.role}: ${g.verb} ${g.apiGroup || 'core'}/${g.resource}`;

/** Every (verb, group, resource) a ClusterRole's rules grant. */
export function grantsOf(role: Manifest): Grant[] {
  const rules = (role.rules ?? []) as { apiGroups: string[]; resources: string[]; verbs: string[] }[];
  return rules.flatMap((r) =>
    r.apiGroups.flatMap((apiGroup) =>
      r.resources.flatMap((resource) =>
        r.verbs.map((verb) => ({ role: role.metadata.name, apiGroup, resource, verb })),
      ),
    ),
  );
}

/** The objects the probes read and write (created with the admin token). */
const ns = 'rbac-probe';

/** A probe: resolves when the request it makes is allowed; rejects with the client's error otherwise. */
export type Probe = () => Promise<unknown>;

const groupOf = (kind: WatchedKind): string => /^\/apis\/([^/]+)\//.exec(kind.apiPrefix)?.[1] ?? '';

/** The watcher's list and watch of each kind it follows (its own stream plan and paths), and its Event. */
function watcherProbes(client: KubeApiClient, sim: KubeSim): Map<string, Probe> {
  const probes = new Map<string, Probe>();
  for (const stream of planWatchStreams(WATCHED_KINDS, 'all-except-kube-system', 'portolan.dev/tls=true')) {
    const grant = { role: 'portolan-watcher', apiGroup: groupOf(stream.kind), resource: stream.kind.resource };
    probes.set(grantKey({ ...grant, verb: 'list' }), () =>
      client.getJson(streamRequestPath(stream, { type: 'list', limit: 500 })),
    );
    probes.set(grantKey({ ...grant, verb: 'watch' }), async () => {
      const stop = new AbortController();
      const path = streamRequestPath(stream, {
        type: 'watch',
        resourceVersion: String(sim.store.resourceVersion),
        timeoutSeconds: 5,
      });
      await client.openWatch(path, { signal: stop.signal });
      stop.abort();
    });
  }
  const recorder = new KubeEventRecorder(client);
  probes.set(grantKey({ role: 'portolan-watcher', apiGroup: '', resource: 'events', verb: 'create' }), () => {
    const ing = ingress(sim);
    return recorder.warn(
      { ...ing, apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', namespace: ns },
      'RbacProbe',
      'the watcher may record Events',
      new Date(),
    );
  });
  return probes;
}

function ingress(sim: KubeSim): { name: string; uid: string; resourceVersion: string } {
  const o = sim.objects.get({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', namespace: ns, name: 'web' });
  return { name: 'web', uid: o?.metadata?.uid ?? '', resourceVersion: o?.metadata?.resourceVersion ?? '' };
}

/** The applier's reads and writes of Ingress status and its Events (its KubeApi, as the write-back calls it). */
function applierProbes(api: KubeApi, sim: KubeSim): Map<string, Probe> {
  const ref = { cluster: 'local', kind: 'Ingress' as const, namespace: ns, name: 'web' };
  const draft = { ref, type: 'Warning' as const, reason: 'RbacProbe', message: 'the applier may record Events' };
  const grant = (apiGroup: string, resource: string, verb: string): string =>
    grantKey({ role: 'portolan-applier', apiGroup, resource, verb });
  return new Map<string, Probe>([
    [
      grant('networking.k8s.io', 'ingresses', 'get'),
      async () => {
        await api.readUid(ref);
        await api.readIngressStatus(ns, 'web');
      },
    ],
    [
      grant('networking.k8s.io', 'ingresses/status', 'patch'),
      () => api.patchIngressStatus(ns, 'web', ingress(sim).resourceVersion, [{ ip: '192.0.2.7' }]),
    ],
    [grant('', 'events', 'list'), () => api.findEvent(draft, ingress(sim).uid)],
    ...gatewayStatusProbes(api, grant),
    [grant('', 'events', 'create'), () => api.createEvent(draft, ingress(sim).uid, 'rbac-probe', new Date())],
    [
      grant('', 'events', 'patch'),
      async () => {
        if (!(await api.patchEventCount(ns, 'probe.1', 2, new Date()))) throw new Error('the Event is gone');
      },
    ],
  ]);
}

const GATEWAY = 'gateway.networking.k8s.io';
const gatewayObjects = [
  { kind: 'GatewayClass' as const, resource: 'gatewayclasses', namespace: '', version: 'v1' },
  { kind: 'Gateway' as const, resource: 'gateways', namespace: ns, version: 'v1' },
  { kind: 'HTTPRoute' as const, resource: 'httproutes', namespace: ns, version: 'v1' },
  { kind: 'TLSRoute' as const, resource: 'tlsroutes', namespace: ns, version: 'v1alpha2' },
];

/** The applier's read of each Gateway API object it writes status on, and its status patch. */
function gatewayStatusProbes(api: KubeApi, grant: (group: string, resource: string, verb: string) => string) {
  return gatewayObjects.flatMap(({ kind, resource, namespace }): [string, Probe][] => {
    const ref = { cluster: 'local', kind, namespace, name: 'probe' };
    const read = async () => {
      const o = await api.readGatewayStatus(ref);
      if (o === null) throw new Error(`${kind} probe is gone`);
      return o;
    };
    return [
      [grant(GATEWAY, resource, 'get'), read],
      [
        grant(GATEWAY, `${resource}/status`, 'patch'),
        async () => {
          const { resourceVersion } = await readAsAdmin(kind);
          await api.patchGatewayStatus(
            ref,
            resourceVersion,
            kind.endsWith('Route') ? { parents: [] } : { conditions: [] },
          );
        },
      ],
    ];
  });
}

let simForProbes: KubeSim | undefined;
/** The probe object's resourceVersion, read with the admin token (so the patch probe needs only `patch`). */
async function readAsAdmin(kind: string): Promise<{ resourceVersion: string }> {
  const o = simForProbes!.objects.get({
    apiVersion: `${GATEWAY}/${gatewayObjects.find((o) => o.kind === kind)!.version}`,
    kind,
    namespace: kind === 'GatewayClass' ? '' : ns,
    name: 'probe',
  });
  return { resourceVersion: o?.metadata?.resourceVersion ?? '' };
}

/** Creates what the probes address and returns every probe by grant key. */
export async function serviceProbes(
  sim: KubeSim,
  serviceAccountRoot: (service: 'watcher' | 'applier') => string,
): Promise<Map<string, Probe>> {
  sim.objects.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  simForProbes = sim;
  sim.objects.create({
    apiVersion: `${GATEWAY}/v1`,
    kind: 'GatewayClass',
    metadata: { name: 'probe' },
    // Another controller's class: the running applier leaves these objects' status alone, so its writes never
    // race the status probes below (a 409 Conflict instead of the 200 or 403 a probe tells apart).
    spec: { controllerName: 'example.com/not-portolan' },
  });
  sim.objects.create({
    apiVersion: `${GATEWAY}/v1`,
    kind: 'Gateway',
    metadata: { name: 'probe', namespace: ns },
    spec: { gatewayClassName: 'probe', listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }] },
  });
  sim.objects.create({
    apiVersion: `${GATEWAY}/v1`,
    kind: 'HTTPRoute',
    metadata: { name: 'probe', namespace: ns },
    spec: { parentRefs: [{ name: 'probe' }] },
  });
  sim.objects.create({
    apiVersion: `${GATEWAY}/v1alpha2`,
    kind: 'TLSRoute',
    metadata: { name: 'probe', namespace: ns },
    spec: { parentRefs: [{ name: 'probe' }], rules: [{ backendRefs: [{ name: 'web', port: 443 }] }] },
  });
  sim.objects.create({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name: 'web', namespace: ns },
    spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } } },
  });
  sim.objects.create({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'probe.1', namespace: ns },
    involvedObject: { kind: 'Ingress', namespace: ns, name: 'web' },
    reason: 'RbacProbe',
    count: 1,
  });
  const env = process.env;
  const client = await KubeApiClient.fromKubeconfig({ env, serviceAccountRoot: serviceAccountRoot('watcher') });
  const api = new ClientNodeKubeApi({}, { serviceAccountRoot: serviceAccountRoot('applier') });
  return new Map([...watcherProbes(client, sim), ...applierProbes(api, sim)]);
}

/** Whether a probe's error is the API server's 403 (the watcher's client and client-node word it differently). */
export function isForbidden(e: unknown): boolean {
  const status = (e as { status?: number; code?: number }).status ?? (e as { code?: number }).code;
  return status === 403;
}
