import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadKubeEndpoint, KubeconfigError } from './kubeconfig.ts';

async function withDir(run: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'portolan-kc-'));
  try {
    await run(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function withKubeconfig(text: string, run: (file: string) => Promise<void>): Promise<void> {
  await withDir(async (dir) => {
    await writeFile(path.join(dir, 'ca.pem'), 'CA-PEM');
    await writeFile(path.join(dir, 'kubeconfig'), text);
    await run(path.join(dir, 'kubeconfig'));
  });
}

const config = (user: string, context = 'main'): string => `apiVersion: v1
kind: Config
current-context: ${context}
clusters:
  - name: c1
    cluster: { server: "https://127.0.0.1:6443", certificate-authority: ca.pem }
  - name: c2
    cluster: { server: "https://10.0.0.1", certificate-authority-data: ${Buffer.from('DATA-CA').toString('base64')}, insecure-skip-tls-verify: true }
users:
  - name: u1
    user: ${user}
contexts:
  - name: main
    context: { cluster: c1, user: u1 }
  - name: other
    context: { cluster: c2, user: u1 }
`;

/** An exec credential plugin, as EKS and GKE kubeconfigs name one: a program that prints an ExecCredential. */
const execUser = (script: string): string =>
  JSON.stringify({
    exec: {
      apiVersion: 'client.authentication.k8s.io/v1beta1',
      command: process.execPath,
      args: ['-e', script],
      interactiveMode: 'Never',
    },
  });

test('a kubeconfig gives the server, the CA (file relative to the kubeconfig, or inline data) and the bearer token', async () => {
  await withKubeconfig(config('{ token: abc }'), async (file) => {
    const e = await loadKubeEndpoint({ kubeconfig: file, env: {} });
    assert.equal(e.server.href, 'https://127.0.0.1:6443/');
    assert.equal(String(e.tls.ca), 'CA-PEM');
    assert.deepEqual(await e.headers(), { authorization: 'Bearer abc' });
    const other = await loadKubeEndpoint({ kubeconfig: file, context: 'other', env: {} });
    assert.equal(String(other.tls.ca), 'DATA-CA');
    assert.equal(other.tls.rejectUnauthorized, false);
  });
});

test('an exec credential plugin supplies the bearer token', async () => {
  const credential = JSON.stringify({
    apiVersion: 'client.authentication.k8s.io/v1beta1',
    kind: 'ExecCredential',
    status: { token: 'from-the-plugin' },
  });
  await withKubeconfig(config(execUser(`process.stdout.write(${JSON.stringify(credential)})`)), async (file) => {
    const e = await loadKubeEndpoint({ kubeconfig: file, env: {} });
    assert.deepEqual(await e.headers(), { authorization: 'Bearer from-the-plugin' });
  });
});

test('a failing plugin, an unknown context and a missing in-cluster environment are clear errors', async () => {
  await withKubeconfig(config(execUser(`process.stderr.write('no login'); process.exit(3)`)), async (file) => {
    await assert.rejects(
      loadKubeEndpoint({ kubeconfig: file, env: {} }),
      (e: unknown) => e instanceof KubeconfigError && e.message.startsWith(`${file}: credentials`),
    );
    await assert.rejects(loadKubeEndpoint({ kubeconfig: file, context: 'nope', env: {} }), /no context "nope"/);
  });
  await assert.rejects(loadKubeEndpoint({ env: {} }), /not running in a cluster/);
  await assert.rejects(loadKubeEndpoint({ kubeconfig: '/nonexistent/kubeconfig', env: {} }), /cannot read kubeconfig/);
});

test('in a pod, the service account gives the server, the CA and a token read from its file', async () => {
  await withDir(async (root) => {
    const sa = path.join(root, 'var/run/secrets/kubernetes.io/serviceaccount');
    await mkdir(sa, { recursive: true });
    await writeFile(path.join(sa, 'ca.crt'), 'SA-CA');
    await writeFile(path.join(sa, 'token'), 'sa-token\n');
    await writeFile(path.join(sa, 'namespace'), 'portolan');
    const env = { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' };
    const saved = { host: process.env['KUBERNETES_SERVICE_HOST'], port: process.env['KUBERNETES_SERVICE_PORT'] };
    Object.assign(process.env, env);
    try {
      const e = await loadKubeEndpoint({ env, serviceAccountRoot: root });
      assert.equal(e.server.href, 'https://10.96.0.1/');
      assert.equal(String(e.tls.ca), 'SA-CA');
      assert.deepEqual(await e.headers(), { authorization: 'Bearer sa-token' });
    } finally {
      for (const [k, v] of [
        ['KUBERNETES_SERVICE_HOST', saved.host],
        ['KUBERNETES_SERVICE_PORT', saved.port],
      ] as const)
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
    }
  });
});
