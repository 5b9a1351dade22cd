import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Kubernetes objects the end-to-end tests apply with kubectl, as YAML documents. */

/** A Namespace. */
export function namespace(name: string): string {
  return `---
apiVersion: v1
kind: Namespace
metadata: { name: ${name} }
`;
}

/** A GatewayClass `portolan` answered by Portolan's default gateway controller. */
export function gatewayClass(): string {
  return `---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: { name: portolan }
spec: { controllerName: portolan.dev/gateway-controller }
`;
}

/** An IngressClass answering `controller`. */
export function ingressClass(name: string, controller: string): string {
  return `---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: { name: ${name} }
spec: { controller: ${JSON.stringify(controller)} }
`;
}

/** A ClusterIP Service with one named port 80 → targetPort, plus optional labels and annotations. */
export function service(
  ns: string,
  name: string,
  targetPort: number,
  meta: { labels?: Record<string, string>; annotations?: Record<string, string> } = {},
): string {
  return `---
apiVersion: v1
kind: Service
metadata:
  name: ${name}
  namespace: ${ns}
  labels: ${JSON.stringify(meta.labels ?? {})}
  annotations: ${JSON.stringify(meta.annotations ?? {})}
spec:
  selector: { app: ${name} }
  ports:
    - { name: http, port: 80, targetPort: ${targetPort} }
`;
}

/** The EndpointSlice of a Service: one ready endpoint per address, all on `port` (the "pods"). */
export function endpointSlice(ns: string, serviceName: string, addresses: readonly string[], port: number): string {
  return `---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: ${serviceName}-1
  namespace: ${ns}
  labels: { kubernetes.io/service-name: ${serviceName} }
addressType: IPv4
ports:
  - { name: http, port: ${port}, protocol: TCP }
endpoints: ${addresses.length === 0 ? '[]' : ''}
${addresses.map((a) => `  - addresses: ["${a}"]\n    conditions: { ready: true, serving: true, terminating: false }`).join('\n')}
`;
}

/** One HTTP path of an Ingress rule. */
export interface IngressPath {
  readonly path: string;
  readonly type: 'Exact' | 'Prefix' | 'ImplementationSpecific';
  readonly service: string;
}

/** An Ingress (networking.k8s.io/v1) from rules, an optional default backend, TLS entries and annotations. */
export function ingress(
  ns: string,
  name: string,
  spec: {
    className: string;
    rules?: readonly { host?: string; paths: readonly IngressPath[] }[];
    defaultBackend?: string;
    tls?: readonly { hosts: readonly string[]; secretName: string }[];
    annotations?: Record<string, string>;
  },
): string {
  const backend = (svc: string): string => `{ service: { name: ${svc}, port: { number: 80 } } }`;
  const rules = (spec.rules ?? [])
    .map(
      (r) => `    - ${r.host === undefined ? '' : `host: ${JSON.stringify(r.host)}\n      `}http:
        paths:
${r.paths.map((p) => `          - { path: ${JSON.stringify(p.path)}, pathType: ${p.type}, backend: ${backend(p.service)} }`).join('\n')}`,
    )
    .join('\n');
  return `---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: ${name}
  namespace: ${ns}
  annotations: ${JSON.stringify(spec.annotations ?? {})}
spec:
  ingressClassName: ${spec.className}
${spec.defaultBackend === undefined ? '' : `  defaultBackend: ${backend(spec.defaultBackend)}\n`}${spec.tls === undefined ? '' : `  tls: ${JSON.stringify(spec.tls)}\n`}${rules === '' ? '' : `  rules:\n${rules}\n`}`;
}

/** A self-signed certificate and key for `hosts` made with openssl (PEM text); the key never leaves the test. */
export function selfSignedCertificate(hosts: readonly string[]): {
  certificatePem: string;
  privateKeyPem: string;
  certFile: string;
  keyFile: string;
  dispose(): void;
} {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ptl-e2e-cert-'));
  const certFile = path.join(dir, 'tls.crt');
  const keyFile = path.join(dir, 'tls.key');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      `/CN=${hosts[0]}`,
      '-addext',
      `subjectAltName=${hosts.map((h) => `DNS:${h}`).join(',')}`,
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  );
  return {
    certificatePem: readFileSync(certFile, 'utf8'),
    privateKeyPem: readFileSync(keyFile, 'utf8'),
    certFile,
    keyFile,
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
