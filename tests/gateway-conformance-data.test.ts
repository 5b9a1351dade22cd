import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import {
  CONTROLLER_NAME_PLACEHOLDER,
  CORE_FEATURES,
  EXTENDED_FEATURES,
  GATEWAY_CLASS_PLACEHOLDER,
  featureLevel,
  loadBase,
  loadTests,
  parseTest,
} from './e2e/gateway-conformance/index.ts';
import type { Manifest } from './e2e/gateway-conformance/index.ts';

// The Gateway API conformance data (tests/e2e/gateway-conformance/): every file loads and is checked, every manifest
// is a Kubernetes object, and README.md's table and the files agree.

const dir = path.join(import.meta.dirname, 'e2e', 'gateway-conformance');
const files = readdirSync(dir).filter((f) => f.endsWith('.yaml') && f !== 'base.yaml');

interface Row {
  shortName: string;
  core: string[];
  extended: string[];
  transcribed: boolean;
}

/** The rows of README.md's table of tests: `| ShortName | core | extended | yes / no: why |`. */
function readmeRows(): Row[] {
  const lines = readFileSync(path.join(dir, 'README.md'), 'utf8').split('\n');
  const header = lines.findIndex((l) => l.startsWith('| ShortName |'));
  assert.ok(header >= 0, 'README.md has the table of tests');
  const rows: Row[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    assert.equal(cells.length, 4, `a row has four cells: ${line}`);
    const [shortName, core, extended, transcribed] = cells as [string, string, string, string];
    const names = (c: string): string[] => (c === '–' ? [] : c.split(', '));
    assert.match(transcribed, /^(yes|no: .+)/, `${shortName}: transcribed is "yes" or "no: <why>"`);
    rows.push({ shortName, core: names(core), extended: names(extended), transcribed: transcribed.startsWith('yes') });
  }
  return rows;
}

function assertManifest(m: unknown, where: string): void {
  assert.ok(m !== null && typeof m === 'object' && !Array.isArray(m), `${where}: an object`);
  const o = m as { apiVersion?: unknown; kind?: unknown; metadata?: { name?: unknown } };
  assert.equal(typeof o.apiVersion, 'string', `${where}: apiVersion`);
  assert.equal(typeof o.kind, 'string', `${where}: kind`);
  assert.equal(typeof o.metadata?.name, 'string', `${where}: metadata.name`);
}

test('every test file loads and is checked: shape, step kinds, the objects its steps name', () => {
  const tests = loadTests(dir);
  assert.equal(tests.length, files.length);
  assert.ok(tests.length >= 40, `the GATEWAY-HTTP tests are there (${tests.length})`);
  for (const t of tests) {
    assert.equal(t.file, `${t.shortName}.yaml`);
    assert.ok(t.steps.length > 0, `${t.file}: has steps`);
    for (const s of t.steps)
      if (s.kind === 'request' || s.kind === 'distribution')
        assert.ok(s.request.gateway.name !== '', `${t.file}: every request names its Gateway once loaded`);
  }
});

test('every manifest, of the base and of every test, parses as YAML into an object with apiVersion, kind and name', () => {
  const docs = parseAllDocuments(readFileSync(path.join(dir, 'base.yaml'), 'utf8'));
  assert.ok(Array.isArray(docs));
  assert.ok(docs.length > 0);
  for (const [i, d] of docs.entries()) {
    assert.deepEqual(d.errors, [], `base.yaml document ${i} parses`);
    assertManifest(d.toJS(), `base.yaml document ${i}`);
  }
  for (const f of files) {
    const doc = parse(readFileSync(path.join(dir, f), 'utf8')) as { manifests: unknown[]; steps: unknown[] };
    assert.ok(doc.manifests.length > 0, `${f}: has manifests`);
    doc.manifests.forEach((m, i) => assertManifest(m, `${f}: manifests[${i}]`));
    for (const s of doc.steps) {
      const applied = (s as { apply?: unknown[] }).apply ?? [];
      applied.forEach((m, i) => assertManifest(m, `${f}: apply[${i}]`));
    }
  }
});

test("README.md's table lists every transcribed test, and only those, with the files' features", () => {
  const rows = readmeRows();
  const byName = new Map(rows.map((r) => [r.shortName, r]));
  assert.equal(byName.size, rows.length, 'no test is listed twice');
  const transcribed = rows.filter((r) => r.transcribed).map((r) => `${r.shortName}.yaml`);
  assert.deepEqual([...transcribed].sort(), [...files].sort());
  for (const t of loadTests(dir)) {
    const row = byName.get(t.shortName)!;
    assert.deepEqual(
      row.core,
      t.features.filter((f) => featureLevel(f) === 'core'),
      `${t.shortName}: core features`,
    );
    assert.deepEqual(
      row.extended,
      t.features.filter((f) => featureLevel(f) === 'extended'),
      `${t.shortName}: extended`,
    );
  }
  const core: readonly string[] = CORE_FEATURES;
  const extended: readonly string[] = EXTENDED_FEATURES;
  for (const r of rows) {
    assert.ok(r.core.includes('Gateway'), `${r.shortName}: every test needs Gateway`);
    for (const f of r.core) assert.ok(core.includes(f), `${r.shortName}: ${f} is a core feature of the profile`);
    for (const f of r.extended) assert.ok(extended.includes(f), `${r.shortName}: ${f} is an extended feature of it`);
  }
});

test('the base: three namespaces, the shared Gateways of the class placeholder, the echo backends', () => {
  const base = loadBase(dir);
  const names = (kind: string): string[] => base.filter((m) => m.kind === kind).map((m) => m.metadata.name);
  assert.deepEqual(names('Namespace'), [
    'gateway-conformance-infra',
    'gateway-conformance-app-backend',
    'gateway-conformance-web-backend',
  ]);
  assert.deepEqual(names('Gateway'), [
    'same-namespace',
    'same-namespace-with-https-listener',
    'all-namespaces',
    'backend-namespaces',
  ]);
  const deployments = names('Deployment');
  assert.deepEqual(names('Service'), deployments);
  assert.deepEqual(deployments, [
    'infra-backend-v1',
    'infra-backend-v2',
    'infra-backend-v3',
    'app-backend-v1',
    'app-backend-v2',
    'web-backend',
  ]);
  const tests = loadTests(dir);
  const gateways = [...base, ...tests.flatMap((t) => t.manifests)].filter((m) => m.kind === 'Gateway');
  for (const g of gateways)
    assert.equal(
      (g.spec as { gatewayClassName?: unknown }).gatewayClassName,
      GATEWAY_CLASS_PLACEHOLDER,
      g.metadata.name,
    );
  const classes = tests.flatMap((t) => t.manifests).filter((m) => m.kind === 'GatewayClass');
  for (const c of classes)
    assert.equal((c.spec as { controllerName?: unknown }).controllerName, CONTROLLER_NAME_PLACEHOLDER, c.metadata.name);
});

test('every backend and namespace an expectation names is a Deployment and a namespace of the base', () => {
  const base = loadBase(dir);
  const deployments = new Set(base.filter((m) => m.kind === 'Deployment').map((m) => m.metadata.name));
  const namespaces = new Set(base.filter((m) => m.kind === 'Namespace').map((m) => m.metadata.name));
  for (const t of loadTests(dir))
    for (const s of t.steps) {
      if (s.kind !== 'request' && s.kind !== 'distribution') continue;
      const { backend, namespace } = s.expect;
      if (backend !== undefined) assert.ok(deployments.has(backend), `${t.file}: backend ${backend}`);
      if (namespace !== undefined) assert.ok(namespaces.has(namespace), `${t.file}: namespace ${namespace}`);
      if (s.kind === 'distribution')
        for (const b of Object.keys(s.weights)) assert.ok(deployments.has(b), `${t.file}: weighted backend ${b}`);
    }
});

const minimal = `shortName: Tt
description: d
features: [Gateway, HTTPRoute]
upstream: { test: conformance/tests/t.go, manifests: [conformance/tests/t.yaml] }
manifests:
  - { apiVersion: gateway.networking.k8s.io/v1, kind: HTTPRoute, metadata: { name: r, namespace: gateway-conformance-infra } }
steps:
`;
const load = (steps: string): unknown => parseTest('Tt.yaml', minimal + steps, base());
let cachedBase: Manifest[] | undefined;
const base = (): Manifest[] => (cachedBase ??= loadBase(dir));

test('a typo, an unknown step, a request before any accepted step or a name no object has is an error', () => {
  const accepted = '  - accepted: { gateway: same-namespace, routes: [r] }\n';
  assert.doesNotThrow(() => load(`${accepted}  - request: { path: /x }\n    expect: { status: 404 }\n`));
  assert.throws(() => load(`${accepted}  - request: { pth: /x }\n    expect: { status: 404 }\n`), /pth/);
  assert.throws(() => load('  - wait: { gateway: same-namespace }\n'), /a step is one of/);
  assert.throws(() => load('  - request: { path: / }\n    expect: { status: 404 }\n'), /earlier accepted step/);
  assert.throws(
    () => load('  - accepted: { gateway: no-such-gateway }\n'),
    /no Gateway gateway-conformance-infra\/no-such/,
  );
  assert.throws(() => load('  - accepted: { gateway: same-namespace, routes: [typo] }\n'), /no HTTPRoute/);
  assert.throws(() => load('  - accepted: { gateway: same-namespace, listeners: [https] }\n'), /has no listener https/);
  assert.throws(() => load(`${accepted}  - request: { path: / }\n    expect: { backend: web-backend }\n`), /namespace/);
  assert.throws(
    () => load(`${accepted}  - request: { path: / }\n    expect: { status: 500, backend: web-backend }\n`),
    /2xx answer only/,
  );
  assert.throws(() => parseTest('U.yaml', `${minimal}${accepted}`, base()), /named after its shortName/);
});
