import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadKubeEndpoint, KubeconfigError } from './kubeconfig.ts';

async function withKubeconfig(text: string, run: (file: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'portolan-kc-'));
  try {
    await writeFile(path.join(dir, 'ca.pem'), 'CA-PEM');
    await writeFile(path.join(dir, 'kubeconfig'), text);
    await run(path.join(dir, 'kubeconfig'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
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

test('exec plugins, unknown contexts and a missing in-cluster environment are clear errors', async () => {
  await withKubeconfig(config('{ exec: { command: aws } }'), async (file) => {
    await assert.rejects(
      loadKubeEndpoint({ kubeconfig: file, env: {} }),
      (e: unknown) => e instanceof KubeconfigError && /exec or auth-provider plugin/.test(e.message),
    );
    await assert.rejects(loadKubeEndpoint({ kubeconfig: file, context: 'nope', env: {} }), /no context "nope"/);
  });
  await assert.rejects(loadKubeEndpoint({ env: {} }), /not running in a cluster/);
});
