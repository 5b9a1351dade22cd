import { CoreV1Api, KubeConfig, NetworkingV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { ClusterConfig } from '@portolan/fleet-config';
import type { LoadBalancerIngress } from '../core/ingress-status.ts';
import type { ObjectEventDraft } from '../core/kube-write-plan.ts';

/** The few Kubernetes calls the applier makes on one cluster. */
export interface KubeApi {
  /** An Ingress's resourceVersion and `status.loadBalancer.ingress`; null when the Ingress is gone. */
  readIngressStatus(namespace: string, name: string): Promise<{ resourceVersion: string; entries: LoadBalancerIngress[] } | null>;
  /** Merge-patches the status subresource; the resourceVersion makes a concurrent writer's change a conflict. */
  patchIngressStatus(namespace: string, name: string, resourceVersion: string, entries: readonly LoadBalancerIngress[]): Promise<void>;
  createEvent(event: ObjectEventDraft, reportingInstance: string, now: Date): Promise<void>;
}

const statusCode = (e: unknown): number | undefined => (e as { code?: number }).code;

/** KubeApi over @kubernetes/client-node, authenticated from the cluster's kubeconfig (or in-cluster config). */
export class ClientNodeKubeApi implements KubeApi {
  private readonly networking: NetworkingV1Api;
  private readonly core: CoreV1Api;

  constructor(cluster: Pick<ClusterConfig, 'kubeconfig' | 'context'>) {
    const kc = new KubeConfig();
    if (cluster.kubeconfig === undefined) kc.loadFromCluster();
    else kc.loadFromFile(cluster.kubeconfig);
    if (cluster.context !== undefined) kc.setCurrentContext(cluster.context);
    this.networking = kc.makeApiClient(NetworkingV1Api);
    this.core = kc.makeApiClient(CoreV1Api);
  }

  async readIngressStatus(namespace: string, name: string): Promise<{ resourceVersion: string; entries: LoadBalancerIngress[] } | null> {
    try {
      const ing = await this.networking.readNamespacedIngressStatus({ namespace, name });
      const entries = (ing.status?.loadBalancer?.ingress ?? []).map((e) => ({ ...(e.ip ? { ip: e.ip } : {}), ...(e.hostname ? { hostname: e.hostname } : {}) }));
      return { resourceVersion: ing.metadata?.resourceVersion ?? '', entries };
    } catch (e) {
      if (statusCode(e) === 404) return null;
      throw e;
    }
  }

  async patchIngressStatus(namespace: string, name: string, resourceVersion: string, entries: readonly LoadBalancerIngress[]): Promise<void> {
    const body = { metadata: { resourceVersion }, status: { loadBalancer: { ingress: entries } } };
    await this.networking.patchNamespacedIngressStatus({ namespace, name, body }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
  }

  async createEvent(event: ObjectEventDraft, reportingInstance: string, now: Date): Promise<void> {
    const { ref } = event;
    const apiVersion = ref.kind === 'Ingress' || ref.kind === 'IngressClass' ? 'networking.k8s.io/v1' : ref.kind === 'EndpointSlice' ? 'discovery.k8s.io/v1' : 'v1';
    await this.core.createNamespacedEvent({
      namespace: ref.namespace === '' ? 'default' : ref.namespace,
      body: {
        metadata: { generateName: `${ref.name}.`, namespace: ref.namespace === '' ? 'default' : ref.namespace },
        involvedObject: { apiVersion, kind: ref.kind, name: ref.name, ...(ref.namespace === '' ? {} : { namespace: ref.namespace }) },
        type: event.type,
        reason: event.reason,
        message: event.message.slice(0, 1024),
        source: { component: 'portolan-applier' },
        reportingComponent: 'portolan.dev/applier',
        reportingInstance,
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
      },
    });
  }
}
