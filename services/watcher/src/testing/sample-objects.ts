// Minimal valid API objects for tests and benchmarks.
import type { KubeObject } from '@portolan/kube-sim';

/** An Ingress routing `host` to Service `service` port 80. */
export function ingress(
  namespace: string,
  name: string,
  host = `${name}.example.com`,
  service = name,
  extra: Record<string, string> = {},
): KubeObject {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { namespace, name, annotations: extra },
    spec: {
      ingressClassName: 'portolan',
      rules: [
        {
          host,
          http: {
            paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: service, port: { number: 80 } } } }],
          },
        },
      ],
    },
  } as KubeObject;
}

/** A ClusterIP Service with port 80 → 8080. */
export function service(namespace: string, name: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { namespace, name },
    spec: { type: 'ClusterIP', ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }] },
  } as KubeObject;
}

/** An EndpointSlice of Service `svc` with `n` ready endpoints starting at 10.<a>.<b>.<c>. */
export function endpointSlice(namespace: string, name: string, svc: string, n: number, base = 0): KubeObject {
  const endpoints = Array.from({ length: n }, (_, i) => {
    const v = base + i;
    return { addresses: [`10.${(v >> 16) & 255}.${(v >> 8) & 255}.${v & 255}`], conditions: { ready: true } };
  });
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { namespace, name, labels: { 'kubernetes.io/service-name': svc } },
    addressType: 'IPv4',
    endpoints,
    ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
  } as KubeObject;
}

/** A Namespace. */
export function namespace(name: string): KubeObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } as KubeObject;
}

/** A TLS Secret with fake PEM material. */
export function tlsSecret(namespace: string, name: string, labels: Record<string, string> = {}): KubeObject {
  const b64 = (s: string): string => Buffer.from(s).toString('base64');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'kubernetes.io/tls',
    metadata: { namespace, name, labels },
    data: {
      'tls.crt': b64('-----BEGIN CERTIFICATE-----\nMIIB-fake-cert\n-----END CERTIFICATE-----\n'),
      'tls.key': b64('-----BEGIN PRIVATE KEY-----\nSUPERSECRETKEYMATERIAL\n-----END PRIVATE KEY-----\n'),
    },
  } as KubeObject;
}
