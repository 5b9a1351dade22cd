// The watcher process as an operator runs it: `node src/main.ts --config <fleet.yaml> --cluster <name>`, with
// /healthz, /readyz and /metrics, the server version check, the tuned runtime, and a clean stop on SIGTERM.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startKubeSim } from '@portolan/kube-sim';
import { startPrivateNats } from './testing/private-nats.ts';
import { waitFor } from './testing/watcher-harness.ts';
import { ingress, namespace } from './testing/sample-objects.ts';
import { WATCHER_NODE_FLAGS } from './runtime-tuning.ts';

const root = path.resolve(import.meta.dirname, '..', '..', '..');
const node = path.join(root, 'node_modules', '.bin', 'node');

test('main.ts serves health, readiness and metrics, logs an error for Kubernetes < 1.19, and stops on SIGTERM', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'portolan-watcher-main-'));
  const sim = await startKubeSim({ version: '1.18', bookmarkIntervalMs: 500, compactIntervalMs: 0 });
  const nats = await startPrivateNats();
  const lines: string[] = [];
  let child: ReturnType<typeof spawn> | undefined;
  try {
    sim.objects.create(namespace('shop'));
    sim.objects.create(ingress('shop', 'web0'));
    await sim.writeKubeconfig(path.join(dir, 'kubeconfig'));
    await writeFile(path.join(dir, 'fleet.key'), 'ab'.repeat(32));
    await writeFile(
      path.join(dir, 'fleet.yaml'),
      [
        'version: 1',
        'clusters:',
        '  - name: edge',
        '    kubeconfig: kubeconfig',
        '    namespaces: [shop]',
        '    watch: { stallSeconds: 5, heartbeatSeconds: 0.5 }',
        'appliances:',
        '  - name: lb1',
        '    driver: haproxy',
        '    haproxy: { configDir: ./haproxy, masterSocket: ./haproxy/master.sock }',
        `bus: { url: "${nats.url}" }`,
        'store: { url: "postgres://unused" }',
        'leases: { redisUrl: "redis://unused" }',
        'secrets: { keyFile: fleet.key }',
        '',
      ].join('\n'),
    );
    child = spawn(
      node,
      [
        path.join(root, 'services', 'watcher', 'src', 'main.ts'),
        '--config',
        path.join(dir, 'fleet.yaml'),
        '--cluster',
        'edge',
        '--health-port',
        '0',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout!.setEncoding('utf8').on('data', (d: string) => lines.push(...d.split('\n').filter((l) => l !== '')));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => lines.push(...d.split('\n').filter((l) => l !== '')));
    const started = await waitFor(
      'the started log line',
      () => lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l['msg'] === 'watcher started'),
      15_000,
    );
    const base = `http://127.0.0.1:${String(started['healthPort'])}`;

    const tooOld = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l['reason'] === 'TooOld');
    assert.equal(tooOld?.['level'], 'error', 'Kubernetes 1.18 is reported as an error');
    await waitFor(
      '/readyz ready',
      async () => ((await fetch(`${base}/readyz`)).status === 200 ? true : undefined),
      15_000,
    );
    assert.equal((await fetch(`${base}/healthz`)).status, 200);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    assert.match(metrics, /portolan_watcher_last_event_age_seconds\{kind="Ingress"/);
    assert.match(metrics, /portolan_watcher_objects\{kind="Ingress",service="watcher"\} 1/);
    assert.match(metrics, /portolan_watcher_publish_latency_seconds_bucket/);
    assert.match(metrics, /portolan_watcher_relists_total\{kind="Ingress",reason="initial",service="watcher"\} 1/);
    // The process the operator started (same pid) now runs with the memory flags: it replaced itself.
    const cmdline = (await readFile(`/proc/${child.pid}/cmdline`, 'utf8')).split('\0');
    for (const flag of WATCHER_NODE_FLAGS) assert.ok(cmdline.includes(flag), `${flag} in ${cmdline.join(' ')}`);
    assert.ok(
      cmdline.indexOf(WATCHER_NODE_FLAGS[0]!) < cmdline.findIndex((a) => a.endsWith('main.ts')),
      'flags come before the entry point',
    );

    const exited = new Promise<number | null>((r) => child!.once('exit', (code) => r(code)));
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
    assert.ok(
      !lines.join('\n').includes(Buffer.from('ab'.repeat(32), 'hex').toString('base64')),
      'no key material in logs',
    );
  } finally {
    if (child !== undefined && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await nats.close();
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  }
});
