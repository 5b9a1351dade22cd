// The hostile-input corpus against one running pipeline (kubectl → simulator → watcher → planner → appliers →
// HAProxy and the vTM emulator): each bad object is applied beside a new good Ingress. For each, the bad object
// carries its condition as a Kubernetes Event and the good Ingress goes live within STEP_MS; at the end no process
// restarted, nothing invalid reached HAProxy or the vTM, and folding the whole corpus left Object.prototype alone.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeKind } from '@portolan/kube-model';
import { Planner } from '@portolan/planner';
import { loadFleetConfig } from '@portolan/fleet-config';
import { startPipeline, type Pipeline } from './pipeline-harness.ts';
import { endpointSlice, ingress, ingressClass, namespace, service } from './manifests.ts';
import { eventually } from './eventually.ts';
import { recordGoldenIfAsked } from './golden-recorder.ts';
import { hostileCorpus, NS, type HostileEntry, type Material } from './hostile-input/corpus.ts';

const STEP_MS = 10_000;
/** Events go out through the client-side rate limit (5 QPS per cluster, as client-go): allow a queue behind them. */
const EVENT_MS = 30_000;
const POD = '127.0.51.1';
let p: Pipeline;
const pids = new Map<string, number | null>();
const context = (): string => p.diagnostics();

/** Certificates and keys for the TLS entries, made with openssl (base64 PEM as a Secret holds them). */
function makeMaterial(): Material {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ptl-hostile-'));
  const pair = (
    name: string,
    cn: string,
    key = ['ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1'],
  ): { crt: string; key: string } => {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        ...key,
        '-nodes',
        '-days',
        '2',
        '-subj',
        `/CN=${cn}`,
        '-addext',
        `subjectAltName=DNS:${cn}`,
        '-keyout',
        path.join(dir, `${name}.key`),
        '-out',
        path.join(dir, `${name}.crt`),
      ],
      { stdio: 'ignore' },
    );
    return {
      crt: readFileSync(path.join(dir, `${name}.crt`)).toString('base64'),
      key: readFileSync(path.join(dir, `${name}.key`)).toString('base64'),
    };
  };
  try {
    const a = pair('a', '*.bad.example.com');
    const b = pair('b', '*.bad.example.com');
    const wrong = pair('w', 'elsewhere.example.org');
    const weak = pair('weak', '*.bad.example.com', ['rsa:1024']);
    return {
      crt: a.crt,
      key: a.key,
      otherKey: b.key,
      wrongNameCrt: wrong.crt,
      wrongNameKey: wrong.key,
      weakCrt: weak.crt,
      weakKey: weak.key,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Made at load: one test per entry (each with its own time bound), in order, on the same pipeline.
const corpus: HostileEntry[] = hostileCorpus(makeMaterial());

before(async () => {
  p = await startPipeline({
    appliances: [
      {
        name: 'edge',
        driver: 'haproxy',
        ingressControllers: ['portolan.dev/ingress-controller'],
        replicas: ['edge-a'],
      },
      {
        name: 'vtm',
        driver: 'vtm',
        ingressControllers: ['pulsesecure.net/vtm-ingress-controller'],
        replicas: ['vtm-a'],
      },
    ],
    echoAddresses: [POD],
  });
  await p.apply(
    [
      ingressClass('portolan', 'portolan.dev/ingress-controller'),
      ingressClass('vtm', 'pulsesecure.net/vtm-ingress-controller'),
      namespace(NS),
      service(NS, 'web', p.echoPort),
      endpointSlice(NS, 'web', [POD], p.echoPort),
    ].join(''),
  );
  for (const [name, proc] of p.processes) pids.set(name, proc.pid());
});
after(async () => {
  if (p !== undefined) await recordGoldenIfAsked(p, 'hostile-input');
  await p?.stop();
});

/** The reasons of the Events on one object of the corpus namespace. */
async function eventReasons(kind: string, name: string): Promise<string[]> {
  const list = JSON.parse(await p.kubectl(['get', 'events', '-n', NS, '-o', 'json'])) as {
    items: { reason: string; involvedObject: { kind: string; name: string } }[];
  };
  return list.items
    .filter((e) => e.involvedObject.kind === kind && e.involvedObject.name === name)
    .map((e) => e.reason);
}

const asYaml = (objects: readonly Record<string, unknown>[]): string =>
  objects.map((o) => `---\n${JSON.stringify(o)}\n`).join('');

test('the corpus has at least 40 bad objects', () => {
  assert.ok(corpus.length >= 40, String(corpus.length));
  assert.equal(new Set(corpus.map((e) => e.name)).size, corpus.length, 'names are unique');
});

for (const [i, entry] of corpus.entries()) {
  test(`${entry.name}: its condition is an Event on it, and a good Ingress beside it goes live`, async () => {
    const goodHost = `good-${i}.example.com`;
    await p.apply(
      asYaml(entry.objects) +
        ingress(NS, `good-${i}`, {
          className: 'portolan',
          rules: [{ host: goodHost, paths: [{ path: '/', type: 'Prefix', service: 'web' }] }],
        }),
    );
    await eventually(
      `${goodHost} live beside ${entry.name}`,
      async () => assert.equal((await p.request(goodHost, '/')).echo?.address, POD),
      { timeoutMs: entry.liveWithinMs ?? STEP_MS, context },
    );
    await eventually(
      `the Event on ${entry.on.kind} ${entry.on.name}`,
      async () => {
        const reasons = await eventReasons(entry.on.kind, entry.on.name);
        assert.ok(
          reasons.some((r) => entry.reason.test(r)),
          `${entry.name}: Events ${JSON.stringify(reasons)}, want ${entry.reason}`,
        );
      },
      { timeoutMs: EVENT_MS, context },
    );
  });
}

test('no process restarted', () => {
  for (const [name, proc] of p.processes) assert.equal(proc.pid(), pids.get(name), `${name} restarted`);
});

test('nothing invalid reached HAProxy: its configuration is the plan, without the bad regexes or certificates', async () => {
  await p.settled('edge');
  const files = readdirSync(p.haproxyConfigDir, { recursive: true }).map(String);
  const cfg = readFileSync(path.join(p.haproxyConfigDir, 'haproxy.cfg'), 'utf8');
  for (const bad of ['[^]', '\\u0032', '(?<=', '[[:digit:]]', '2{5000}'])
    assert.ok(!cfg.includes(bad), `haproxy.cfg carries ${bad}`);
  for (const secret of ['tls-garbage', 'tls-mismatch', 'tls-empty', 'tls-key-garbage', 'tls-opaque', 'tls-weak-key']) {
    assert.ok(!files.some((f) => f.includes(`${secret}-tls`)), `a certificate file of ${secret}`);
  }
});

test('nothing invalid reached the vTM: no SSL server key from a bad Secret', async () => {
  await p.settled('vtm');
  const keys = await p.vtm.names('ssl/server_keys');
  assert.ok(!keys.some((k) => k.includes('tls-vtm-')), keys.join(', '));
});

test('folding the whole corpus leaves Object.prototype alone', async () => {
  const before = Object.getOwnPropertyNames(Object.prototype).sort();
  const { config } = await loadFleetConfig(p.fleetConfig);
  const planner = new Planner(config);
  for (const entry of corpus) {
    for (const object of entry.objects)
      planner.applyEvent({
        cluster: config.clusters[0]!.name,
        kind: object['kind'] as KubeKind,
        type: 'ADDED',
        object: withVersion(object),
      });
  }
  planner.planDirty();
  assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), before);
  const probe: Record<string, unknown> = {};
  assert.equal(probe['polluted'], undefined);
  assert.equal(probe['admin'], undefined);
});

let rv = 1;
/** The object as the API would return it (a resourceVersion and uid), for the in-process fold. */
function withVersion(o: Record<string, unknown>): Record<string, unknown> {
  const meta = o['metadata'] as Record<string, unknown>;
  return { ...o, metadata: { ...meta, resourceVersion: String(rv++), uid: `u${rv}` } };
}
