// Drives the real kubectl binary against the simulator: apply, get -w, describe, delete, create secret tls, --chunk-size.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createCertificateAuthority, issueServerCertificate, startKubeSim, type KubeSim } from './index.ts';
import { runKubectl, skipWithoutKubectl as skip, type KubectlResult } from './testing/kubectl-runner.ts';

let sim: KubeSim;
let dir: string;
const requests: string[] = [];

/** Runs kubectl against the simulator of this file. */
function kubectl(args: readonly string[], timeoutMs = 30_000): Promise<KubectlResult> {
  return runKubectl(dir, args, timeoutMs);
}

const manifest = (targetPort: number, note: string) => `apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports:
  - {name: http, port: 80, targetPort: ${targetPort}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
  annotations: {portolan.dev/note: "${note}"}
spec:
  ingressClassName: portolan
  rules:
  - host: web.example.com
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}
`;

// This describe only groups short, independent cases of one concern: its length is their number.
describe('kubectl against the simulator', { skip }, () => {
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'kube-sim-kubectl-'));
    sim = await startKubeSim({ onRequest: (e) => requests.push(`${e.method} ${e.url}`) });
    await sim.writeKubeconfig(path.join(dir, 'kubeconfig'));
  });
  after(async () => {
    await sim?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('apply creates, re-apply configures through a strategic merge patch, a third apply is unchanged', async () => {
    await writeFile(path.join(dir, 'app.yaml'), manifest(8080, 'one'));
    const created = await kubectl(['apply', '-f', path.join(dir, 'app.yaml')]);
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, /service\/web created\ningress.networking.k8s.io\/web created/);
    await writeFile(path.join(dir, 'app.yaml'), manifest(9090, 'two'));
    const configured = await kubectl(['apply', '-f', path.join(dir, 'app.yaml')]);
    assert.match(configured.stdout, /service\/web configured\ningress.networking.k8s.io\/web configured/);
    const svc = sim.objects.get({ apiVersion: 'v1', kind: 'Service', namespace: 'default', name: 'web' }) as {
      spec: { ports: { targetPort: number }[] };
    };
    assert.equal(svc.spec.ports[0]?.targetPort, 9090);
    const unchanged = await kubectl(['apply', '-f', path.join(dir, 'app.yaml')]);
    assert.match(unchanged.stdout, /service\/web unchanged\ningress.networking.k8s.io\/web unchanged/);
  });

  it('get prints the server-side Table columns', async () => {
    const res = await kubectl(['get', 'ingress', 'web']);
    assert.equal(res.code, 0, res.stderr);
    const [header, row] = res.stdout.trim().split('\n');
    assert.deepEqual(header?.split(/\s+/), ['NAME', 'CLASS', 'HOSTS', 'ADDRESS', 'PORTS', 'AGE']);
    assert.match(row ?? '', /^web\s+portolan\s+web\.example\.com\s+80\s+\d+s$/);
  });

  it('get -w sees a change made while it watches', async () => {
    const watching = kubectl(['get', 'ingress', '-w', '--request-timeout=4s'], 15_000);
    await new Promise((r) => setTimeout(r, 1500));
    sim.objects.updateStatus({
      ...sim.objects.get({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', namespace: 'default', name: 'web' }),
      status: { loadBalancer: { ingress: [{ ip: '192.0.2.10' }] } },
    });
    const res = await watching;
    const rows = res.stdout.trim().split('\n');
    assert.equal(rows[0]?.startsWith('NAME'), true);
    assert.match(rows[rows.length - 1] ?? '', /^web\s+portolan\s+web\.example\.com\s+192\.0\.2\.10\s+80/);
  });

  it('describe ingress shows rules and the events listed through involvedObject field selectors', async () => {
    const ing = sim.objects.get({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      namespace: 'default',
      name: 'web',
    });
    sim.objects.create({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'web.1', namespace: 'default' },
      type: 'Normal',
      reason: 'Planned',
      message: 'planned by portolan',
      involvedObject: {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'Ingress',
        name: 'web',
        namespace: 'default',
        uid: ing?.metadata?.uid,
      },
      source: { component: 'portolan' },
      firstTimestamp: new Date().toISOString(),
      lastTimestamp: new Date().toISOString(),
      count: 1,
    });
    const res = await kubectl(['describe', 'ingress', 'web']);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /web\.example\.com\s*\n\s+\/\s+web:80/);
    assert.match(res.stdout, /Normal\s+Planned\s+\S+\s+portolan\s+planned by portolan/);
  });

  it('create secret tls stores a kubernetes.io/tls Secret that a type field selector finds', async () => {
    const ca = createCertificateAuthority('test-ca');
    const leaf = issueServerCertificate(ca, { dns: ['web.example.com'], ips: [] });
    await writeFile(path.join(dir, 'tls.crt'), leaf.certPem);
    await writeFile(path.join(dir, 'tls.key'), leaf.keyPem);
    const res = await kubectl([
      'create',
      'secret',
      'tls',
      'web-tls',
      `--cert=${path.join(dir, 'tls.crt')}`,
      `--key=${path.join(dir, 'tls.key')}`,
    ]);
    assert.equal(res.code, 0, res.stderr);
    const listed = await kubectl(['get', 'secrets', '--field-selector', 'type=kubernetes.io/tls', '-o', 'name']);
    assert.equal(listed.stdout.trim(), 'secret/web-tls');
  });

  it('get --chunk-size pages through every object', async () => {
    for (let i = 0; i < 7; i++)
      sim.objects.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `chunk-${i}`, namespace: 'default' },
      });
    requests.length = 0;
    const res = await kubectl(['get', 'configmaps', '--chunk-size=3', '-o', 'name']);
    assert.equal(res.code, 0, res.stderr);
    const pages = requests.filter((r) => r.startsWith('GET /api/v1/namespaces/default/configmaps?'));
    assert.equal(pages.length, 3);
    assert.equal(pages.filter((r) => r.includes('continue=')).length, 2);
    assert.deepEqual(
      res.stdout.trim().split('\n'),
      [0, 1, 2, 3, 4, 5, 6].map((i) => `configmap/chunk-${i}`),
    );
  });

  it('delete removes the objects', async () => {
    const res = await kubectl(['delete', '-f', path.join(dir, 'app.yaml')]);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /service "web" deleted\ningress.networking.k8s.io "web" deleted/);
    const after = await kubectl(['get', 'ingress']);
    assert.match(after.stderr + after.stdout, /No resources found in default namespace/);
  });
});
