/** The demo's Kubernetes objects: one namespace, an IngressClass per appliance, two Services with endpoints on the echo backends. */

/** Echo backends standing in for pods: distinct loopback addresses, one port. */
export const demoBackends = {
  web: ['127.0.10.1', '127.0.10.2'],
  api: ['127.0.10.3'],
  port: 9000,
} as const;

/** Multi-document YAML applied with kubectl against the simulator (the pods listen on `echoPort`). */
// eslint-disable-next-line max-lines-per-function -- the manifests read best as one YAML document, top to bottom
export function sampleManifests(echoPort: number = demoBackends.port): string {
  const slice = (service: string, addresses: readonly string[]): string => `---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: ${service}-demo
  namespace: demo
  labels:
    kubernetes.io/service-name: ${service}
addressType: IPv4
ports:
  - name: http
    port: ${echoPort}
    protocol: TCP
endpoints:
${addresses.map((a) => `  - addresses: ["${a}"]\n    conditions: { ready: true, serving: true, terminating: false }`).join('\n')}
`;
  const service = (name: string): string => `---
apiVersion: v1
kind: Service
metadata:
  name: ${name}
  namespace: demo
spec:
  selector: { app: ${name} }
  ports:
    - name: http
      port: 80
      targetPort: ${echoPort}
`;
  return `apiVersion: v1
kind: Namespace
metadata:
  name: demo
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: portolan
  annotations:
    ingressclass.kubernetes.io/is-default-class: "true"
spec:
  controller: portolan.dev/ingress-controller
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: vtm
spec:
  controller: pulsesecure.net/vtm-ingress-controller
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: loadmaster
spec:
  controller: portolan.dev/loadmaster
${service('web')}${service('api')}${slice('web', demoBackends.web)}${slice('api', demoBackends.api)}---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: demo
  namespace: demo
spec:
  ingressClassName: portolan
  rules:
    - host: demo.local
      http:
        paths:
          - path: /
            pathType: Prefix
            backend: { service: { name: web, port: { name: http } } }
          - path: /api
            pathType: Prefix
            backend: { service: { name: api, port: { number: 80 } } }
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: demo-vtm
  namespace: demo
spec:
  ingressClassName: vtm
  rules:
    - host: demo.local
      http:
        paths:
          - path: /
            pathType: Prefix
            backend: { service: { name: web, port: { number: 80 } } }
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: demo-loadmaster
  namespace: demo
  annotations:
    kemp.ax/vsip: 127.0.0.1
    kemp.ax/vsport: "8081"
spec:
  ingressClassName: loadmaster
  rules:
    - host: demo.local
      http:
        paths:
          - path: /
            pathType: Prefix
            backend: { service: { name: web, port: { number: 80 } } }
`;
}
