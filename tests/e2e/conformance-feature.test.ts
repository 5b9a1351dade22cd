import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { loadFeatures, parseFeature } from './conformance-feature.ts';

const minimal = `feature: F
ingress:
  metadata: { name: i }
  spec: { defaultBackend: { service: { name: s, port: { number: 8080 } } } }
exposed: true
scenarios:
`;

test('the conformance data loads: five features, outlines expanded, Services found once each', () => {
  const features = loadFeatures(path.join(import.meta.dirname, 'ingress-conformance'));
  assert.deepEqual(
    features.map((f) => f.file),
    ['default_backend.yaml', 'host_rules.yaml', 'ingress_class.yaml', 'load_balancing.yaml', 'path_rules.yaml'],
  );
  const byFile = new Map(features.map((f) => [f.file, f]));
  const outline = byFile.get('default_backend.yaml')!.scenarios;
  assert.equal(outline.length, 6);
  assert.deepEqual(outline[3]!.request, {
    method: 'PUT',
    scheme: 'http',
    host: '',
    path: '/resource',
    count: 1,
    headers: { 'User-Agent': 'portolan-ingress-conformance' },
  });
  assert.equal(outline[0]!.expect.requestPath, '/');
  assert.deepEqual(byFile.get('host_rules.yaml')!.backends, [
    { service: 'wildcard-foo-com', port: { number: 8080 } },
    { service: 'foo-bar-com', port: { name: 'http' } },
  ]);
  assert.equal(byFile.get('path_rules.yaml')!.backends.length, 6);
  assert.equal(byFile.get('path_rules.yaml')!.scenarios.length, 16);
});

test('a typo, a missing placeholder value or a bad value in the data is an error, not a skipped check', () => {
  assert.throws(
    () => parseFeature('t', `${minimal}  - { name: n, request: { host: h }, expect: { status: 200, servce: s } }\n`),
    /unknown key\(s\) servce/,
  );
  assert.throws(
    () =>
      parseFeature(
        't',
        `${minimal}  - { name: n, request: { host: <hst> }, expect: { status: 200 }, examples: [{ host: h }] }\n`,
      ),
    /unreplaced placeholder/,
  );
  assert.throws(
    () => parseFeature('t', `${minimal}  - { name: n, request: { scheme: ftp }, expect: { status: 200 } }\n`),
    /scheme must be http or https/,
  );
  assert.throws(
    () =>
      parseFeature(
        't',
        `${minimal.replace('exposed: true\n', 'exposed: true\nscale: { service: other, replicas: 3 }\n')}  - { name: n, request: {}, expect: { status: 200 } }\n`,
      ),
    /references no Service other/,
  );
  assert.equal(
    parseFeature('t', `${minimal}  - { name: n, request: {}, expect: { status: 200 } }\n`).scenarios[0]!.request.path,
    '/',
  );
});
