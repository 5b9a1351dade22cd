import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseManifestText, planManifests } from './plan-manifests.ts';

const run = promisify(execFile);
const BIN = path.join(import.meta.dirname, '..', '..', 'bin', 'portolan.js');
const KEY_B64 = Buffer.from('-----BEGIN PRIVATE KEY-----secret-----').toString('base64');

const MANIFESTS = `
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: shop
  namespace: web
  annotations:
    vtm.pulsesecure.net/shared-ip-address: "10.0.5.223"
    ingress.kubernetes.io/ssl-redirect: "true"
spec:
  ingressClassName: vtm
  tls: [{ hosts: [shop.example.com], secretName: shop-tls }]
  rules:
    - host: Shop.Example.com.
      http:
        paths: [{ path: /, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } }]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: { name: broken, namespace: web }
spec:
  ingressClassName: vtm
  rules: [{ host: "*.*.example.com", http: { paths: [{ path: /, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } }] } }]
---
apiVersion: v1
kind: Secret
metadata: { name: shop-tls, namespace: web }
type: kubernetes.io/tls
data: { tls.crt: Q0VSVA==, tls.key: ${KEY_B64} }
---
kind: List
items:
  - { apiVersion: v1, kind: Service, metadata: { name: web, namespace: web }, spec: { ports: [{ port: 80 }] } }
  - apiVersion: discovery.k8s.io/v1
    kind: EndpointSlice
    metadata: { name: web-1, namespace: web, labels: { kubernetes.io/service-name: web } }
    addressType: IPv4
    ports: [{ port: 8080 }]
    endpoints: [{ addresses: [10.0.0.1] }, { addresses: [10.0.0.2], conditions: { ready: false, serving: true, terminating: true } }]
`;

test('plan: manifests (multi-document, kind: List) plan for a vTM appliance without any service running', async () => {
  const plan = await planManifests(parseManifestText(MANIFESTS, 'm.yaml'), { driver: 'vtm' });
  assert.deepEqual(plan.summary, [
    'appliance local (vtm)',
    'listener 10.0.5.223~443: https on shared 10.0.5.223:443 certs local~web~shop-tls',
    '  shop.example.com/ (Prefix) → web~web~80   [web/shop]',
    'listener 10.0.5.223~80: http on shared 10.0.5.223:80 redirects to https:443',
    'pool web~web~80: 10.0.0.1:8080, 10.0.0.2:8080 (draining)',
    'certificate local~web~shop-tls: Secret web/shop-tls for shop.example.com',
  ]);
  assert.deepEqual(
    plan.desired.conditions.map((c) => `${c.type} ${c.object.name} ${c.reason}`),
    ['Rejected broken InvalidWildcard', 'Accepted shop Planned'],
  );
  assert.deepEqual(plan.notes, [
    'no IngressClass in the manifests: assuming portolan, vtm (default) belong to portolan.dev/ingress-controller',
  ]);
});

test('plan: the command prints JSON with the snapshot hash, lists conditions on stderr, and never prints key material', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'portolan-plan-'));
  try {
    await writeFile(path.join(dir, 'app.yaml'), MANIFESTS);
    await writeFile(
      path.join(dir, 'fleet.yaml'),
      [
        'version: 1',
        'clusters: [{ name: east }]',
        'appliances:',
        '  - { name: edge, driver: haproxy, haproxy: { configDir: d, masterSocket: s } }',
        '  - { name: vtm1, driver: vtm, vtm: { url: "https://vtm:9070", username: a, passwordFile: p } }',
        'bus: { url: "nats://x" }',
        'store: { url: "postgres://x" }',
        'leases: { redisUrl: "redis://x" }',
        'secrets: { keyFile: k }',
      ].join('\n'),
    );
    const { stdout, stderr } = await run(
      process.execPath,
      [BIN, 'plan', '-f', dir, '--appliance-profile', path.join(dir, 'fleet.yaml'), '--appliance', 'edge'],
      { timeout: 60_000 },
    );
    const out = JSON.parse(stdout) as {
      appliance: string;
      snapshot: string;
      desired: { virtualServices: { name: string }[]; conditions: unknown[] };
    };
    assert.equal(out.appliance, 'edge');
    assert.match(out.snapshot, /^[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(
      out.desired.virtualServices.map((v) => v.name),
      ['default~8080', 'default~8443'],
      "the HAProxy section's default HTTP and HTTPS ports (a TLS Ingress is served on both); vTM annotations ignored",
    );
    assert.match(stderr, /Rejected Ingress web\/broken \(east\): InvalidWildcard/);
    assert.doesNotMatch(stdout + stderr, new RegExp(KEY_B64.slice(0, 20)));
    assert.doesNotMatch(stdout + stderr, /PRIVATE KEY/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('plan: usage mistakes exit 2 with the usage text', async () => {
  const failed = await run(process.execPath, [BIN, 'plan'], { timeout: 60_000 }).then(
    () => null,
    (e: { code: number; stderr: string }) => e,
  );
  assert.equal(failed?.code, 2);
  assert.match(failed?.stderr ?? '', /at least one -f <manifest> is required/);
});
