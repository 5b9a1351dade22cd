import {
  CustomObjectsApi,
  CoreV1Api,
  KubeConfig,
  KubernetesObjectApi,
  NetworkingV1Api,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import type { JsonObject, ObjectRef } from '@portolan/desired-state';
import type { ClusterConfig } from '@portolan/fleet-config';
import type { LoadBalancerIngress } from '../core/ingress-status.ts';
import type { ObjectEventDraft } from '../core/kube-write-plan.ts';

/** The few Kubernetes calls the applier makes on one cluster. */
export interface KubeApi {
  /** An Ingress's resourceVersion and `status.loadBalancer.ingress`; null when the Ingress is gone. */
  readIngressStatus(
    namespace: string,
    name: string,
  ): Promise<{ resourceVersion: string; entries: LoadBalancerIngress[]; uid?: string } | null>;
  /** Merge-patches the status subresource; the resourceVersion makes a concurrent writer's change a conflict. */
  patchIngressStatus(
    namespace: string,
    name: string,
    resourceVersion: string,
    entries: readonly LoadBalancerIngress[],
  ): Promise<void>;
  /** The object's uid (what `kubectl describe` finds its Events by); null when the object does not exist. */
  readUid(ref: ObjectRef): Promise<string | null>;
  /** An Event already recorded for this object, reason, message and source (after a restart or a leader change). */
  findEvent(event: ObjectEventDraft, uid: string): Promise<RecordedEvent | null>;
  /** Creates the Event (count 1) on the object with that uid; returns where it was stored. */
  createEvent(event: ObjectEventDraft, uid: string, reportingInstance: string, now: Date): Promise<RecordedEvent>;
  /** Aggregates a repeat: sets `count` and `lastTimestamp` (firstTimestamp stays); false when the Event is gone. */
  patchEventCount(namespace: string, name: string, count: number, now: Date): Promise<boolean>;
  /** A Gateway API object's resourceVersion and status; null when the object is gone. */
  readGatewayStatus(ref: ObjectRef): Promise<{ resourceVersion: string; status: JsonObject | undefined } | null>;
  /** Merge-patches a Gateway API object's status subresource at that resourceVersion. */
  patchGatewayStatus(ref: ObjectRef, resourceVersion: string, status: JsonObject): Promise<void>;
}

/** Where the Gateway API kinds the applier writes status on are served. */
const GATEWAY_RESOURCES: Readonly<Record<string, { plural: string; version: string }>> = {
  GatewayClass: { plural: 'gatewayclasses', version: 'v1' },
  Gateway: { plural: 'gateways', version: 'v1' },
  HTTPRoute: { plural: 'httproutes', version: 'v1' },
  TLSRoute: { plural: 'tlsroutes', version: 'v1alpha2' },
};

function gatewayResource(ref: ObjectRef): { group: string; version: string; plural: string; name: string } {
  const resource = GATEWAY_RESOURCES[ref.kind];
  if (resource === undefined) throw new RangeError(`${ref.kind} has no Gateway API status`);
  return { group: 'gateway.networking.k8s.io', ...resource, name: ref.name };
}

/** Where an Event is stored and how often it was seen. */
export interface RecordedEvent {
  readonly namespace: string;
  readonly name: string;
  readonly count: number;
}

/** `source.component` of every Event the applier writes (with the reason and message, what aggregates repeats). */
export const EVENT_SOURCE = 'portolan-applier';

const statusCode = (e: unknown): number | undefined => (e as { code?: number }).code;

/** KubeApi over @kubernetes/client-node, authenticated from the cluster's kubeconfig (or in-cluster config). */
export class ClientNodeKubeApi implements KubeApi {
  private readonly networking: NetworkingV1Api;
  private readonly core: CoreV1Api;
  private readonly objects: KubernetesObjectApi;
  private readonly custom: CustomObjectsApi;

  /** `serviceAccountRoot` stands in for `/` when the in-cluster service-account files are read (tests). */
  constructor(cluster: Pick<ClusterConfig, 'kubeconfig' | 'context'>, options: { serviceAccountRoot?: string } = {}) {
    const kc = new KubeConfig();
    if (cluster.kubeconfig === undefined) kc.loadFromCluster(options.serviceAccountRoot ?? '');
    else kc.loadFromFile(cluster.kubeconfig);
    if (cluster.context !== undefined) kc.setCurrentContext(cluster.context);
    this.networking = kc.makeApiClient(NetworkingV1Api);
    this.core = kc.makeApiClient(CoreV1Api);
    this.objects = KubernetesObjectApi.makeApiClient(kc);
    this.custom = kc.makeApiClient(CustomObjectsApi);
  }

  async readGatewayStatus(ref: ObjectRef): Promise<{ resourceVersion: string; status: JsonObject | undefined } | null> {
    const r = gatewayResource(ref);
    try {
      // The object itself (`get` on the kind), as for Ingress status: the ClusterRole grants `<kind>/status` patch only.
      const o = (await (ref.namespace === ''
        ? this.custom.getClusterCustomObject(r)
        : this.custom.getNamespacedCustomObject({ ...r, namespace: ref.namespace }))) as {
        metadata?: { resourceVersion?: string };
        status?: JsonObject;
      };
      return { resourceVersion: o.metadata?.resourceVersion ?? '', status: o.status };
    } catch (e) {
      if (statusCode(e) === 404) return null;
      throw e;
    }
  }

  async patchGatewayStatus(ref: ObjectRef, resourceVersion: string, status: JsonObject): Promise<void> {
    const r = gatewayResource(ref);
    const body = { metadata: { resourceVersion }, status };
    const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
    if (ref.namespace === '') await this.custom.patchClusterCustomObjectStatus({ ...r, body }, merge);
    else await this.custom.patchNamespacedCustomObjectStatus({ ...r, namespace: ref.namespace, body }, merge);
  }

  async readUid(ref: ObjectRef): Promise<string | null> {
    try {
      const o = await this.objects.read({
        apiVersion: apiVersionOf(ref.kind),
        kind: ref.kind,
        metadata: { name: ref.name, ...(ref.namespace === '' ? {} : { namespace: ref.namespace }) },
      });
      return o.metadata?.uid ?? null;
    } catch (e) {
      if (statusCode(e) === 404) return null;
      throw e;
    }
  }

  async findEvent(event: ObjectEventDraft, uid: string): Promise<RecordedEvent | null> {
    const namespace = eventNamespace(event.ref);
    const list = await this.core.listNamespacedEvent({
      namespace,
      fieldSelector: `involvedObject.uid=${uid},reason=${event.reason}`,
    });
    const message = eventMessage(event);
    const found = list.items.find(
      (e) => e.message === message && e.source?.component === EVENT_SOURCE && e.type === event.type,
    );
    return found?.metadata?.name === undefined
      ? null
      : { namespace, name: found.metadata.name, count: found.count ?? 1 };
  }

  async readIngressStatus(
    namespace: string,
    name: string,
  ): Promise<{ resourceVersion: string; entries: LoadBalancerIngress[]; uid?: string } | null> {
    try {
      // The Ingress itself, not its /status: the object carries its status, and reading it needs only `get` on
      // `ingresses` (RBAC grants a subresource separately; the ClusterRole gives `ingresses/status` patch only).
      const ing = await this.networking.readNamespacedIngress({ namespace, name });
      const entries = (ing.status?.loadBalancer?.ingress ?? []).map((e) => ({
        ...(e.ip ? { ip: e.ip } : {}),
        ...(e.hostname ? { hostname: e.hostname } : {}),
      }));
      return {
        resourceVersion: ing.metadata?.resourceVersion ?? '',
        entries,
        ...(ing.metadata?.uid === undefined ? {} : { uid: ing.metadata.uid }),
      };
    } catch (e) {
      if (statusCode(e) === 404) return null;
      throw e;
    }
  }

  async patchIngressStatus(
    namespace: string,
    name: string,
    resourceVersion: string,
    entries: readonly LoadBalancerIngress[],
  ): Promise<void> {
    const body = { metadata: { resourceVersion }, status: { loadBalancer: { ingress: entries } } };
    await this.networking.patchNamespacedIngressStatus(
      { namespace, name, body },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  }

  async createEvent(
    event: ObjectEventDraft,
    uid: string,
    reportingInstance: string,
    now: Date,
  ): Promise<RecordedEvent> {
    const { ref } = event;
    const namespace = eventNamespace(ref);
    const created = await this.core.createNamespacedEvent({
      namespace,
      body: {
        metadata: { generateName: `${ref.name}.`, namespace },
        involvedObject: {
          apiVersion: apiVersionOf(ref.kind),
          kind: ref.kind,
          name: ref.name,
          uid,
          ...(ref.namespace === '' ? {} : { namespace: ref.namespace }),
        },
        type: event.type,
        reason: event.reason,
        message: eventMessage(event),
        source: { component: EVENT_SOURCE },
        reportingComponent: 'portolan.dev/applier',
        reportingInstance,
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
      },
    });
    return { namespace, name: created.metadata?.name ?? '', count: 1 };
  }

  async patchEventCount(namespace: string, name: string, count: number, now: Date): Promise<boolean> {
    try {
      await this.core.patchNamespacedEvent(
        { namespace, name, body: { count, lastTimestamp: now.toISOString() } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      return true;
    } catch (e) {
      if (statusCode(e) === 404) return false;
      throw e;
    }
  }
}

/** The apiVersion an object of this kind is read at (Events name their object by uid, read first). */
function apiVersionOf(kind: ObjectRef['kind']): string {
  const gateway = GATEWAY_RESOURCES[kind];
  if (gateway !== undefined) return `gateway.networking.k8s.io/${gateway.version}`;
  if (kind === 'ReferenceGrant') return 'gateway.networking.k8s.io/v1beta1';
  return kind === 'Ingress' || kind === 'IngressClass'
    ? 'networking.k8s.io/v1'
    : kind === 'EndpointSlice'
      ? 'discovery.k8s.io/v1'
      : 'v1';
}

/** The Event API is namespaced: Events of cluster-scoped objects (IngressClass, Node) are stored in `default`. */
function eventNamespace(ref: ObjectRef): string {
  return ref.namespace === '' ? 'default' : ref.namespace;
}

/** The message as stored (the API server refuses messages over 1 KiB). */
function eventMessage(event: ObjectEventDraft): string {
  return event.message.slice(0, 1024);
}
