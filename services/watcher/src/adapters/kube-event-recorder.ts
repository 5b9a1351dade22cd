import type { KubeApiClient } from './kube-api-client.ts';

/** The object a Kubernetes Event is about. */
export interface InvolvedObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly resourceVersion: string;
}

/**
 * Writes Kubernetes Events (core/v1) about objects, so `kubectl describe` shows what the watcher did with them.
 * Cluster-scoped objects get their Events in `default`, as the API server's own components do.
 */
export class KubeEventRecorder {
  private readonly client: KubeApiClient;
  private readonly component: string;

  constructor(client: KubeApiClient, component = 'portolan-watcher') {
    this.client = client;
    this.component = component;
  }

  /** Creates one Warning Event; `now` names and timestamps it. */
  async warn(about: InvolvedObject, reason: string, message: string, now: Date): Promise<void> {
    const namespace = about.namespace === '' ? 'default' : about.namespace;
    const stamp = now.toISOString().replace(/\.\d+Z$/, 'Z');
    await this.client.postJson(`/api/v1/namespaces/${encodeURIComponent(namespace)}/events`, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${about.name}.${now.getTime().toString(16)}`, namespace },
      involvedObject: { ...about, namespace: about.namespace === '' ? undefined : about.namespace },
      reason,
      message,
      type: 'Warning',
      source: { component: this.component },
      reportingComponent: this.component,
      firstTimestamp: stamp,
      lastTimestamp: stamp,
      count: 1,
    });
  }
}
