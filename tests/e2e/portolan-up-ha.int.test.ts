// @serial: ten engine nodes and a dozen Node services starting at once load the whole machine; `npm test` runs it
// after the rest, alone.
// `portolan up --ha` as a user runs it, through the CLI binary, on private ports and a temporary state dir: the HA
// engines and the demo pipeline across two sites serve traffic through HAProxy; the leading applier of the HAProxy
// group is killed and a later change still reaches HAProxy; `portolan down --ha` stops everything.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEMO_GATEWAY_ADDRESS, freePortRange, isAlive, kubectlBinary, upPlan, upPortSpan } from '@portolan/infra';
import { eventually } from './eventually.ts';
import { sendRequest } from './http-client.ts';

const repo = path.resolve(import.meta.dirname, '..', '..');
const bin = path.join(repo, 'packages', 'cli', 'bin', 'portolan.js');

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command to its end; resolves its exit code and output (never rejects on a non-zero exit). */
function run(command: string, args: readonly string[], env: NodeJS.ProcessEnv, input?: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(command, [...args], { cwd: repo, env, timeout: 120_000 }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr }),
    );
    if (input !== undefined) child.stdin!.end(input);
  });
}

/** The web Service's EndpointSlice with these pod addresses (the sample manifests' shape). */
function webSlice(addresses: readonly string[], port: number): string {
  const endpoints = addresses.map((a) => `  - addresses: ["${a}"]\n    conditions: { ready: true }`).join('\n');
  return `apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: web-demo
  namespace: demo
  labels:
    kubernetes.io/service-name: web
addressType: IPv4
ports:
  - name: http
    port: ${port}
    protocol: TCP
endpoints:
${endpoints}
`;
}

test('portolan up --ha: ten engine nodes, two sites, traffic through HAProxy, a change after its leader dies', async (t) => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'ptl-up-ha-'));
  const basePort = await freePortRange(upPortSpan);
  const env = {
    ...process.env,
    PORTOLAN_HA_BASE_PORT: String(await freePortRange(17)),
    PORTOLAN_HA_STATE_DIR: path.join(root, 'ha-stack'),
  };
  const portolan = (...args: string[]): Promise<Run> => run(process.execPath, [bin, ...args], env);
  const plan = upPlan(root, true, basePort);
  const runDir = path.join(plan.pipelineRoot, 'run');
  const pidOf = (name: string): number | null => {
    const file = path.join(runDir, `${name}.pid`);
    return existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : null;
  };
  const logs = (): string =>
    ['applier-edge-a', 'applier-edge-b', 'planner', 'planner-b', 'watcher', 'watcher-b']
      .map((n) => {
        const file = path.join(runDir, `${n}.log`);
        const tail = existsSync(file) ? readFileSync(file, 'utf8').trimEnd().split('\n').slice(-8).join('\n') : '';
        return `--- ${n}\n${tail}`;
      })
      .join('\n');
  t.after(async () => {
    await portolan('down', '--ha', '--state-dir', root);
    rmSync(root, { recursive: true, force: true });
  });

  const up = await portolan('up', '--ha', '--state-dir', root, '--base-port', String(basePort));
  assert.equal(up.code, 0, `${up.stdout}\n${up.stderr}\n${logs()}`);
  assert.match(up.stdout, /Portolan is up \(HA\)\./);
  assert.match(up.stdout, /site a +watcher, planner, leader, applier-edge-a, applier-vtm-a, applier-loadmaster-a/);
  assert.match(up.stdout, /site b +watcher-b, planner-b, applier-edge-b, applier-vtm-b, applier-loadmaster-b/);
  assert.match(up.stdout, /Try:\n {2}curl -H 'Host: demo.local' http:\/\/127\.0\.0\.1:\d+\//);
  const printed = /console +(http:\/\/127\.0\.0\.1:\d+\/) +\(operator token: (ptl_[A-Za-z0-9_-]+);/.exec(up.stdout);
  assert.ok(printed, `portolan up prints the console URL and an operator token:\n${up.stdout}`);
  const session = await fetch(`${printed[1]}api/v1/session`, { headers: { authorization: `Bearer ${printed[2]}` } });
  assert.deepEqual(await session.json(), { name: 'operator', role: 'operator', via: 'token' });
  const fleet = readFileSync(path.join(plan.pipelineRoot, 'fleet.yaml'), 'utf8');
  assert.match(fleet, /url: \["nats:\/\/[^"]+", "nats:\/\/[^"]+", "nats:\/\/[^"]+"\]\n {2}replicas: 3/);
  assert.match(fleet, /target_session_attrs=read-write/);
  assert.match(fleet, /sentinels: \[\{ host/);

  await t.test('the engine stack reports ten healthy nodes', async () => {
    const status = await portolan('stack', 'status', '--ha');
    assert.equal(status.code, 0, status.stdout);
    const rows = status.stdout.trim().split('\n').slice(1);
    assert.equal(rows.filter((r) => /^\S+\s+healthy\s/.test(r)).length, 10, status.stdout);
  });

  await t.test("both sites' watcher, planner and applier replicas answer their health checks", async () => {
    const ports = [
      plan.ports.watcherHealth,
      plan.ports.plannerHealth,
      ...plan.sites.flatMap((s) => [s.watcherHealth, s.plannerHealth]),
      ...Object.values(plan.applierHealthPorts),
    ];
    assert.equal(ports.length, 10);
    for (const port of ports) {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2000) });
      assert.equal(res.status, 200, `health port ${port}`);
    }
  });

  const port = plan.haproxy.http!;
  const answeredBy = async (n: number): Promise<Set<string>> => {
    const seen = new Set<string>();
    for (let i = 0; i < n; i++) {
      const reply = await sendRequest(port, 'demo.local', '/');
      assert.equal(reply.status, 200, reply.body);
      seen.add(reply.echo!.address);
    }
    return seen;
  };

  await t.test("the sample Gateway's canary HTTPRoute splits 90/10 on its own address", async () => {
    await eventually('the canary route to be served', async () => {
      const counts = new Map<string, number>();
      for (let i = 0; i < 100; i++) {
        const reply = await sendRequest(port, 'canary.demo.local', '/', { address: DEMO_GATEWAY_ADDRESS });
        assert.equal(reply.status, 200, reply.body);
        counts.set(reply.echo!.address, (counts.get(reply.echo!.address) ?? 0) + 1);
      }
      const canary = counts.get('127.0.10.4') ?? 0;
      assert.ok(canary >= 7 && canary <= 13, `canary answered ${canary} of 100: ${JSON.stringify([...counts])}`);
    });
  });

  await t.test('HAProxy serves demo.local from both web backends', async () => {
    await eventually('both web backends answer', async () => {
      assert.deepEqual([...(await answeredBy(6))].sort(), ['127.0.10.1', '127.0.10.2']);
    });
  });

  await t.test('the leading applier of edge is killed; a scaled EndpointSlice still reaches HAProxy', async () => {
    const fleetFile = path.join(plan.pipelineRoot, 'fleet.yaml');
    const holder = async (): Promise<string> => {
      const status = await portolan('leader', 'status', '--config', fleetFile);
      const row = status.stdout.split('\n').find((l) => l.startsWith('edge '));
      assert.ok(row !== undefined, status.stdout + status.stderr);
      return row.split(/\s+/)[1]!;
    };
    const leader = await eventually('edge has a leader', async () => {
      const h = await holder();
      assert.match(h, /^edge-[ab]$/);
      return h;
    });
    const pid = pidOf(`applier-${leader}`);
    assert.ok(pid !== null && isAlive(pid), `applier-${leader} runs`);
    process.kill(pid, 'SIGKILL');
    await eventually(`applier-${leader} is gone`, () => assert.equal(isAlive(pid), false));

    const kubeconfig = path.join(plan.pipelineRoot, 'kubeconfig');
    const applied = await run(
      kubectlBinary(),
      ['--kubeconfig', kubeconfig, 'apply', '-f', '-'],
      env,
      webSlice(['127.0.10.2'], plan.ports.echo),
    );
    assert.equal(applied.code, 0, applied.stderr);
    await eventually(
      'only 127.0.10.2 answers for web',
      async () => assert.deepEqual([...(await answeredBy(6))], ['127.0.10.2']),
      { timeoutMs: 45_000, context: logs },
    );
    const next = await holder();
    assert.notEqual(next, leader, 'the other site took the lease');
  });

  await t.test('portolan down --ha stops both sites and every engine node', async () => {
    const down = await portolan('down', '--ha', '--state-dir', root);
    assert.equal(down.code, 0, down.stderr);
    for (const name of ['watcher', 'watcher-b', 'planner', 'planner-b', 'leader', 'applier-vtm-b', 'kube-sim']) {
      const pid = pidOf(name);
      assert.ok(pid === null || !isAlive(pid), `${name} stopped`);
    }
    const status = await portolan('stack', 'status', '--ha');
    assert.equal(status.code, 1);
    assert.equal(status.stdout.match(/\bstopped\b/g)?.length, 10, status.stdout);
  });
});
