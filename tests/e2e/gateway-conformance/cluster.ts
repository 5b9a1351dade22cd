import { randomBytes } from 'node:crypto';
import { stringify } from 'yaml';
import { startEchoBackends, type EchoBackends } from '@portolan/echo-backend';
import { selfSignedCertificate } from '../manifests.ts';
import { startPipeline, type Pipeline } from '../pipeline-harness.ts';
import { GENERATED_SECRETS, INFRA_NAMESPACE, loadBase, type Manifest } from './index.ts';

/**
 * The cluster side of the Gateway API conformance runner: one pipeline (one HAProxy appliance answering the class
 * under test), the base objects, and a stand-in for the controllers the simulator lacks: echo "pods" for every base
 * Deployment (distinct loopback addresses, port 3000 as upstream's targetPort) and EndpointSlices for every Service
 * that selects them.
 */

export const GATEWAY_CLASS = 'portolan';
export const CONTROLLER_NAME = 'portolan.dev/gateway-controller';
export const APPLIANCE = 'edge';
/** Addresses the appliance gives Gateways, one each (the base alone has three Gateways on port 80). */
export const GATEWAY_ADDRESSES = Array.from({ length: 20 }, (_, i) => `127.0.40.${i + 1}`);
/** The port every echo pod listens on: upstream's Service targetPort. */
export const POD_PORT = 3000;
export const BASE_NAMESPACES = [INFRA_NAMESPACE, 'gateway-conformance-app-backend', 'gateway-conformance-web-backend'];
const NODE_NAME = 'conformance-node-1';

/** One echo pod standing in for a pod of a base Deployment. */
export interface Pod {
  readonly name: string;
  readonly namespace: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly address: string;
  readonly nodeName: string;
}

/** A running conformance environment. */
export interface ConformanceCluster extends AsyncDisposable {
  readonly p: Pipeline;
  /** Pods by `namespace/deployment`. */
  readonly pods: ReadonlyMap<string, readonly Pod[]>;
  /** The certificate (PEM) of each generated Secret, by `namespace/name`. */
  readonly certificates: ReadonlyMap<string, string>;
  stop(): Promise<void>;
}

/** Pods for every Deployment of the base: `replicas` each, on 127.0.47.x, named like ReplicaSet pods. */
export function plannedPods(base: readonly Manifest[]): Map<string, Pod[]> {
  const pods = new Map<string, Pod[]>();
  let next = 1;
  for (const d of base.filter((m) => m.kind === 'Deployment')) {
    const spec = d.spec as { replicas?: number; template?: { metadata?: { labels?: Record<string, string> } } };
    const hash = randomBytes(5).toString('hex').slice(0, 9);
    const namespace = d.metadata.namespace ?? 'default';
    const list = Array.from({ length: spec.replicas ?? 1 }, () => ({
      name: `${d.metadata.name}-${hash}-${randomBytes(3).toString('hex').slice(0, 5)}`,
      namespace,
      labels: spec.template?.metadata?.labels ?? {},
      address: `127.0.47.${next++}`,
      nodeName: NODE_NAME,
    }));
    pods.set(`${namespace}/${d.metadata.name}`, list);
  }
  return pods;
}

/** A manifest as upstream's applier writes it: the class under test on Gateways, the controller on GatewayClasses. */
export function prepared(m: Manifest): Manifest {
  const spec = (m.spec ?? {}) as Record<string, unknown>;
  if (m.kind === 'Gateway') return { ...m, spec: { ...spec, gatewayClassName: GATEWAY_CLASS } };
  if (m.kind === 'GatewayClass') return { ...m, spec: { ...spec, controllerName: CONTROLLER_NAME } };
  // Gateway API v1.3.0, the release under test, serves ReferenceGrant as v1beta1 only (so do the simulator and the
  // watcher); upstream's newer manifests say v1 for the same spec.
  if (m.kind === 'ReferenceGrant') return { ...m, apiVersion: 'gateway.networking.k8s.io/v1beta1' };
  return m;
}

/** YAML stream of manifests. */
export function yamlOf(manifests: readonly object[]): string {
  return manifests.map((m) => `---\n${stringify(m)}`).join('');
}

interface ServicePort {
  name?: string;
  targetPort?: number | string;
  port: number;
  appProtocol?: string;
}

/** The EndpointSlice the endpoint-slice controller would write for a Service selecting some of `pods`, or none. */
export function controllerSlice(service: Manifest, pods: readonly Pod[]): Manifest | null {
  const spec = service.spec as { selector?: Record<string, string>; ports?: ServicePort[] } | undefined;
  const selector = spec?.selector;
  if (selector === undefined || Object.keys(selector).length === 0) return null;
  const namespace = service.metadata.namespace ?? 'default';
  const selected = pods.filter(
    (pod) => pod.namespace === namespace && Object.entries(selector).every(([k, v]) => pod.labels[k] === v),
  );
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: `${service.metadata.name}-portolan`,
      namespace,
      labels: { 'kubernetes.io/service-name': service.metadata.name },
    },
    addressType: 'IPv4',
    ports: (spec?.ports ?? []).map((p) => ({
      name: p.name ?? '',
      port: typeof p.targetPort === 'number' ? p.targetPort : p.port,
      protocol: 'TCP',
      ...(p.appProtocol === undefined ? {} : { appProtocol: p.appProtocol }),
    })),
    endpoints: selected.map((pod) => podEndpoint(pod)),
  };
}

/** One ready endpoint of a pod, as the controller writes it. */
export function podEndpoint(pod: Pod): Record<string, unknown> {
  return {
    addresses: [pod.address],
    conditions: { ready: true, serving: true, terminating: false },
    targetRef: { kind: 'Pod', name: pod.name, namespace: pod.namespace },
    nodeName: pod.nodeName,
  };
}

/** The EndpointSlices the controller would write for the Services among `manifests`. */
export function controllerSlices(
  manifests: readonly Manifest[],
  pods: ReadonlyMap<string, readonly Pod[]>,
): Manifest[] {
  const all = [...pods.values()].flat();
  return manifests
    .filter((m) => m.kind === 'Service')
    .map((s) => controllerSlice(s, all))
    .filter((s): s is Manifest => s !== null);
}

/** Starts the pipeline, the echo pods, the base objects and the generated Secrets. */
export async function startCluster(): Promise<ConformanceCluster> {
  const base = loadBase();
  const pods = plannedPods(base);
  const echo: EchoBackends = await startEchoBackends(
    [...pods.entries()].flatMap(([key, list]) =>
      list.map((pod) => ({
        address: pod.address,
        port: POD_PORT,
        context: { namespace: pod.namespace, ingress: '', service: key.split('/')[1]!, pod: pod.name },
      })),
    ),
  );
  let p: Pipeline;
  try {
    p = await startPipeline({
      appliances: [
        {
          name: APPLIANCE,
          driver: 'haproxy',
          ingressControllers: ['portolan.dev/ingress-controller'],
          gatewayAddresses: GATEWAY_ADDRESSES,
          replicas: [`${APPLIANCE}-a`],
        },
      ],
    });
  } catch (error) {
    await echo.close();
    throw error;
  }
  const stop = async (): Promise<void> => {
    await p.stop();
    await echo.close();
  };
  try {
    const certificates = await applyBase(p, base, pods);
    return { p, pods, certificates, stop, [Symbol.asyncDispose]: stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The base (no Deployments: the simulator has none; the echo pods stand in), its EndpointSlices and Secrets. */
async function applyBase(p: Pipeline, base: readonly Manifest[], pods: ReadonlyMap<string, readonly Pod[]>) {
  const gatewayClass = {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'GatewayClass',
    metadata: { name: GATEWAY_CLASS },
  };
  const objects = base.filter((m) => m.kind !== 'Deployment').map(prepared);
  await p.apply(
    yamlOf([
      { ...gatewayClass, spec: { controllerName: CONTROLLER_NAME } },
      ...objects,
      ...controllerSlices(objects, pods),
    ]),
  );
  const certificates = new Map<string, string>();
  for (const s of GENERATED_SECRETS) {
    const cert = selfSignedCertificate(s.hosts);
    try {
      const args = [
        'create',
        'secret',
        'tls',
        s.name,
        '-n',
        s.namespace,
        '--cert',
        cert.certFile,
        '--key',
        cert.keyFile,
      ];
      await p.kubectl(args);
      certificates.set(`${s.namespace}/${s.name}`, cert.certificatePem);
    } finally {
      cert.dispose();
    }
  }
  return certificates;
}
