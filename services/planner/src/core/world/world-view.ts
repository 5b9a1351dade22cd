import type {
  GatewayKind,
  TrimmedGatewayObject,
  TrimmedNamespace,
  TrimmedEndpointSlice,
  TrimmedIngress,
  TrimmedIngressClass,
  TrimmedNode,
  TrimmedSecret,
  TrimmedService,
} from '@portolan/kube-model';

/** Read access to the folded world that the planning stages need (implemented by World). */
export interface WorldView {
  /** Clusters with at least one object, sorted. */
  clusterNames(): readonly string[];
  ingresses(cluster: string): Iterable<TrimmedIngress>;
  ingress(cluster: string, namespace: string, name: string): TrimmedIngress | undefined;
  ingressClasses(cluster: string): ReadonlyMap<string, TrimmedIngressClass>;
  services(cluster: string): Iterable<TrimmedService>;
  service(cluster: string, namespace: string, name: string): TrimmedService | undefined;
  /** The live EndpointSlices of one Service (a fresh array: resolving members reads it on every endpoint change). */
  slicesOfService(cluster: string, namespace: string, service: string): readonly TrimmedEndpointSlice[];
  secret(cluster: string, namespace: string, name: string): TrimmedSecret | undefined;
  nodes(cluster: string): Iterable<TrimmedNode>;
  /** The objects of one Gateway API kind in a cluster. */
  gatewayObjects<K extends GatewayKind>(cluster: string, kind: K): Iterable<TrimmedGatewayObject<K>>;
  namespace(cluster: string, name: string): TrimmedNamespace | undefined;
  /** Why an appliance refused this object (its own check; see World.refuse), or null: it is left out of that plan. */
  refusalOf(
    appliance: string,
    cluster: string,
    kind: 'Ingress' | 'Secret' | 'HTTPRoute',
    namespace: string,
    name: string,
  ): string | null;
  /** Why an appliance keeps serving an Ingress its fleet config no longer selects (a held removal), or null. */
  selectionHeldFor(appliance: string, cluster: string, namespace: string, name: string): string | null;
}
