// The container image's contents without Docker: the sources the Dockerfile copies, installed with the
// Dockerfile's own command (production dependencies only, from the lockfile), then every service entry point
// started from that folder against the local stack, with a request served end to end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '@portolan/infra';
import { startPipeline } from '../e2e/pipeline-harness.ts';
import { endpointSlice, ingress, ingressClass, namespace, service } from '../e2e/manifests.ts';
import { sendRequest } from '../e2e/http-client.ts';
import { eventually } from '../e2e/eventually.ts';

const repo = path.resolve(import.meta.dirname, '..', '..');
const dockerfile = readFileSync(path.join(repo, 'infra', 'container', 'Dockerfile'), 'utf8');

/** The folders and files the Dockerfile COPYs into the image, read from the Dockerfile itself. */
function copiedPaths(): string[] {
  return dockerfile
    .split('\n')
    .filter((l) => l.startsWith('COPY '))
    .flatMap((l) => l.slice(5).trim().split(/\s+/).slice(0, -1));
}

/** The Dockerfile's install command (its `RUN npm ci ...` line). */
function installCommand(): string[] {
  const line = dockerfile.split('\n').find((l) => /^RUN npm ci\b/.test(l));
  assert.ok(line, 'the Dockerfile installs with npm ci');
  return line.slice(4).trim().split(/\s+/);
}

/** Copies what the image holds, skipping what a checkout builds locally (node_modules, dist, build info). */
function copySources(into: string): void {
  for (const item of copiedPaths()) {
    const from = path.join(repo, item);
    if (!existsSync(from)) continue; // optional files (.npmrc) the Dockerfile names
    cpSync(from, path.join(into, item), {
      recursive: true,
      filter: (src) => !/(^|\/)(node_modules|dist|\.portolan)(\/|$)|\.tsbuildinfo$/.test(path.relative(repo, src)),
    });
  }
}

test('a production-only install from the lockfile starts every service and serves a request', async () => {
  const image = mkdtempSync(path.join(os.tmpdir(), 'portolan-image-'));
  try {
    copySources(image);
    const [npm, ...args] = installCommand();
    execFileSync(npm!, args, { cwd: image, stdio: 'pipe', timeout: 300_000 });
    for (const runtime of ['@bufbuild/protobuf', '@kubernetes/client-node', 'pg', '@nats-io/transport-node', 'ioredis'])
      assert.ok(resolves(image, runtime), `${runtime} is installed for production`);
    for (const devOnly of ['typescript', 'eslint', 'prettier'])
      assert.equal(existsSync(path.join(image, 'node_modules', devOnly)), false, `${devOnly} stays out of the image`);

    const p = await startPipeline({
      appliances: [
        {
          name: 'edge',
          driver: 'haproxy',
          ingressControllers: ['portolan.dev/ingress-controller'],
          replicas: ['edge-a'],
        },
      ],
      echoAddresses: ['127.0.42.1'],
      codeRoot: image,
    });
    try {
      await p.apply(
        ingressClass('portolan', 'portolan.dev/ingress-controller') +
          namespace('shop') +
          service('shop', 'web', p.echoPort) +
          endpointSlice('shop', 'web', ['127.0.42.1'], p.echoPort) +
          ingress('shop', 'web', {
            className: 'portolan',
            rules: [{ host: 'shop.example', paths: [{ path: '/', type: 'Prefix', service: 'web' }] }],
          }),
      );
      const reply = await eventually(
        'shop.example served through the production install',
        async () => {
          const r = await sendRequest(p.httpPort, 'shop.example', '/');
          assert.equal(r.status, 200);
          return r;
        },
        { timeoutMs: 60_000, context: () => p.diagnostics() },
      );
      assert.equal(reply.echo?.address, '127.0.42.1');
      await leaderServiceAnswers(image, p.fleetConfig);
    } finally {
      await p.stop();
    }
  } finally {
    rmSync(image, { recursive: true, force: true });
  }
});

function resolves(root: string, name: string): boolean {
  return existsSync(path.join(root, 'node_modules', name, 'package.json'));
}

/** The leader service's entry point, from the install, answers /healthz (it is not part of the demo pipeline). */
async function leaderServiceAnswers(image: string, fleetConfig: string): Promise<void> {
  const port = await freePort();
  const main = path.join(image, 'services', 'leader', 'src', 'main.ts');
  const child = spawn(process.execPath, [main, '--config', fleetConfig, '--health-port', String(port)], {
    stdio: 'pipe',
  });
  let output = '';
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  try {
    await eventually(
      'the leader service answers /healthz',
      async () => assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200),
      { timeoutMs: 30_000, context: () => output },
    );
  } finally {
    child.kill('SIGTERM');
  }
}
