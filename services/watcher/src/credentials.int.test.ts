// The credentials fleet users' kubeconfigs carry, against the simulator: an exec credential plugin (what EKS, GKE
// and AKS kubeconfigs use) and a pod's service account (token file, CA, KUBERNETES_SERVICE_HOST).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startKubeSim } from '@portolan/kube-sim';
import { KubeApiClient, KubeApiError } from './adapters/kube-api-client.ts';

const credential = (token: string): string =>
  JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1beta1', kind: 'ExecCredential', status: { token } });

function execKubeconfig(server: string, caPem: string, token: string): string {
  const user = {
    exec: {
      apiVersion: 'client.authentication.k8s.io/v1beta1',
      command: process.execPath,
      args: ['-e', `process.stdout.write(${JSON.stringify(credential(token))})`],
      interactiveMode: 'Never',
    },
  };
  const ca = Buffer.from(caPem).toString('base64');
  return `apiVersion: v1
kind: Config
current-context: sim
clusters: [{ name: sim, cluster: { server: "${server}", certificate-authority-data: ${ca} } }]
users: [{ name: plugin, user: ${JSON.stringify(user)} }]
contexts: [{ name: sim, context: { cluster: sim, user: plugin } }]
`;
}

test('an exec-plugin kubeconfig and an in-cluster service account both reach the simulator', async () => {
  const sim = await startKubeSim({ compactIntervalMs: 0 });
  const dir = await mkdtemp(path.join(tmpdir(), 'portolan-creds-'));
  const saved = { host: process.env['KUBERNETES_SERVICE_HOST'], port: process.env['KUBERNETES_SERVICE_PORT'] };
  try {
    assert.ok(sim.caPem !== null, 'the simulator serves TLS');
    await sim.objects.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });

    const good = path.join(dir, 'exec-good');
    await writeFile(good, execKubeconfig(sim.url, sim.caPem, sim.token));
    const viaPlugin = await KubeApiClient.fromKubeconfig({ kubeconfig: good, env: {} });
    const list = (await viaPlugin.getJson('/api/v1/namespaces')) as { items: { metadata: { name: string } }[] };
    assert.ok(
      list.items.some((n) => n.metadata.name === 'shop'),
      'the plugin token lists namespaces',
    );

    const bad = path.join(dir, 'exec-bad');
    await writeFile(bad, execKubeconfig(sim.url, sim.caPem, 'not-the-token'));
    const refused = await KubeApiClient.fromKubeconfig({ kubeconfig: bad, env: {} });
    await assert.rejects(
      refused.getJson('/api/v1/namespaces'),
      (e: unknown) => e instanceof KubeApiError && e.status === 401,
    );

    const sa = path.join(dir, 'pod', 'var/run/secrets/kubernetes.io/serviceaccount');
    await mkdir(sa, { recursive: true });
    await writeFile(path.join(sa, 'ca.crt'), sim.caPem);
    await writeFile(path.join(sa, 'token'), sim.token);
    await writeFile(path.join(sa, 'namespace'), 'portolan');
    const env = { KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: String(sim.port) };
    Object.assign(process.env, env);
    const inPod = await KubeApiClient.fromKubeconfig({ env, serviceAccountRoot: path.join(dir, 'pod') });
    assert.equal(inPod.endpoint.server.href, `https://127.0.0.1:${sim.port}/`);
    const again = (await inPod.getJson('/api/v1/namespaces/shop')) as { metadata: { name: string } };
    assert.equal(again.metadata.name, 'shop', 'the service account token reads the namespace');
  } finally {
    for (const [k, v] of [
      ['KUBERNETES_SERVICE_HOST', saved.host],
      ['KUBERNETES_SERVICE_PORT', saved.port],
    ] as const)
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    await rm(dir, { recursive: true, force: true });
    await sim.close();
  }
});
