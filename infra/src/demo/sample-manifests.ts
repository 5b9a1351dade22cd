/**
 * The demo's Kubernetes objects: one namespace, an IngressClass per appliance, three Services with endpoints on the
 * echo backends, an Ingress per appliance, and a Gateway with a 90/10 canary HTTPRoute on HAProxy.
 */

/** Echo backends standing in for pods: distinct loopback addresses, one port. */
export const demoBackends = {
  web: ['127.0.10.1', '127.0.10.2'],
  api: ['127.0.10.3'],
  canary: ['127.0.10.4'],
  port: 9000,
} as const;

/** The address the demo Gateway asks for: its own, so it shares HAProxy's HTTP port with the Ingresses. */
export const DEMO_GATEWAY_ADDRESS = '127.0.0.2';

/**
 * Multi-document YAML applied with kubectl against the simulator (the pods listen on `echoPort`; the Gateway
 * listens on `gatewayPort` of DEMO_GATEWAY_ADDRESS).
 */
// eslint-disable-next-line max-lines-per-function -- the manifests read best as one YAML document, top to bottom
export function sampleManifests(echoPort: number = demoBackends.port, gatewayPort = 8080): string {
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
${service('web')}${service('api')}${service('web-canary')}${slice('web', demoBackends.web)}${slice('api', demoBackends.api)}${slice('web-canary', demoBackends.canary)}---
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
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: portolan
spec:
  controllerName: portolan.dev/gateway-controller
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: demo
  namespace: demo
spec:
  gatewayClassName: portolan
  addresses:
    - { type: IPAddress, value: ${DEMO_GATEWAY_ADDRESS} }
  listeners:
    - { name: http, port: ${gatewayPort}, protocol: HTTP }
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: canary
  namespace: demo
spec:
  parentRefs: [{ name: demo }]
  hostnames: [canary.demo.local]
  rules:
    - backendRefs:
        - { name: web, port: 80, weight: 90 }
        - { name: web-canary, port: 80, weight: 10 }
`;
}
