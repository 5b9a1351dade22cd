// The Gateway API kinds over HTTP, as an API server with their CRDs serves them: discovery of a group with three
// versions, one storage read through any version (gets, lists, watches), the status subresource, generation,
// patches, printer columns in Tables, and unknown-field warnings.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { fidelityFixture } from './testing/fidelity-fixture.ts';
import { call, openWatch } from './testing/sim-client.ts';

const fx = fidelityFixture();
const group = 'gateway.networking.k8s.io';
const gateways = (version = 'v1') => `/apis/${group}/${version}/namespaces/fid/gateways`;

const gateway = (name: string, version = 'v1') => ({
  apiVersion: `${group}/${version}`,
  kind: 'Gateway',
  metadata: { name },
  spec: { gatewayClassName: 'portolan', listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }] },
});

// This describe only groups short, independent discovery documents: its length is their number.
describe('discovery of gateway.networking.k8s.io', () => {
  it('lists the group with v1 preferred, then v1beta1 and v1alpha2', async () => {
    const res = await call(fx.sim, 'GET', `/apis/${group}`);
    assert.deepEqual(
      res.body.versions.map((v: { version: string }) => v.version),
      ['v1', 'v1beta1', 'v1alpha2'],
    );
    assert.deepEqual(res.body.preferredVersion, { groupVersion: `${group}/v1`, version: 'v1' });
  });
  it('lists each version’s resources with verbs, short names, the gateway-api category and status', async () => {
    const v1 = (await call(fx.sim, 'GET', `/apis/${group}/v1`)).body;
    assert.deepEqual(
      v1.resources.map((r: { name: string }) => r.name),
      [
        'gatewayclasses',
        'gatewayclasses/status',
        'gateways',
        'gateways/status',
        'httproutes',
        'httproutes/status',
        'grpcroutes',
        'grpcroutes/status',
      ],
    );
    const gtw = v1.resources.find((r: { name: string }) => r.name === 'gateways');
    assert.deepEqual(
      { shortNames: gtw.shortNames, categories: gtw.categories, verbs: gtw.verbs, namespaced: gtw.namespaced },
      {
        shortNames: ['gtw'],
        categories: ['gateway-api'],
        verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
        namespaced: true,
      },
    );
    const beta = (await call(fx.sim, 'GET', `/apis/${group}/v1beta1`)).body;
    const grant = beta.resources.find((r: { name: string }) => r.name === 'referencegrants');
    assert.deepEqual([grant.kind, grant.shortNames], ['ReferenceGrant', ['refgrant']]);
    assert.equal(
      beta.resources.some((r: { name: string }) => r.name === 'referencegrants/status'),
      false,
    );
    const alpha = (await call(fx.sim, 'GET', `/apis/${group}/v1alpha2`)).body;
    assert.deepEqual(
      alpha.resources.map((r: { name: string }) => r.name),
      ['tlsroutes', 'tlsroutes/status'],
    );
  });
  it('serves aggregated discovery and OpenAPI v3 for every version', async () => {
    const accept = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
    const aggregated = (await call(fx.sim, 'GET', '/apis', { accept })).body;
    const item = aggregated.items.find((i: { metadata: { name: string } }) => i.metadata.name === group);
    assert.deepEqual(
      item.versions.map((v: { version: string }) => v.version),
      ['v1', 'v1beta1', 'v1alpha2'],
    );
    const index = (await call(fx.sim, 'GET', '/openapi/v3')).body;
    for (const v of ['v1', 'v1beta1', 'v1alpha2']) assert.ok(index.paths[`apis/${group}/${v}`], v);
    const doc = (await call(fx.sim, 'GET', `/openapi/v3/apis/${group}/v1`)).body;
    const patch = doc.paths[`/apis/${group}/v1/namespaces/{namespace}/gateways/{name}`].patch;
    assert.deepEqual(Object.keys(patch.requestBody.content), [
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/apply-patch+yaml',
    ]);
  });
});

describe('one storage, served in the requested version', () => {
  it('a v1beta1 create reads back as v1 through v1, and as v1beta1 in v1beta1 lists and watches', async () => {
    const watch = openWatch(fx.sim, `${gateways('v1beta1')}?watch=1`);
    const created = await call(fx.sim, 'POST', gateways('v1beta1'), { body: gateway('beta', 'v1beta1') });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.apiVersion, `${group}/v1beta1`);
    assert.equal((await call(fx.sim, 'GET', `${gateways()}/beta`)).body.apiVersion, `${group}/v1`);
    const list = (await call(fx.sim, 'GET', gateways('v1beta1'))).body;
    assert.deepEqual([list.kind, list.apiVersion], ['GatewayList', `${group}/v1beta1`]);
    await call(fx.sim, 'PATCH', `${gateways()}/beta`, {
      body: { metadata: { labels: { via: 'v1' } } },
      contentType: 'application/merge-patch+json',
    });
    await watch.waitFor((lines) => lines.length >= 2);
    watch.close();
    assert.deepEqual(
      watch.lines.map((l) => ('object' in l ? `${l.type} ${l.object.apiVersion}` : l.type)),
      [`ADDED ${group}/v1beta1`, `MODIFIED ${group}/v1beta1`],
    );
  });
});

describe('the library API', () => {
  it('answers in the version it is given, whichever version stored the object', () => {
    const created = fx.sim.objects.create({
      ...gateway('lib', 'v1beta1'),
      metadata: { name: 'lib', namespace: 'fid' },
    });
    assert.equal(created.apiVersion, `${group}/v1beta1`);
    const ref = { kind: 'Gateway', namespace: 'fid', name: 'lib' };
    assert.equal(fx.sim.objects.get({ ...ref, apiVersion: `${group}/v1` })?.apiVersion, `${group}/v1`);
    assert.equal(fx.sim.objects.list(`${group}/v1beta1`, 'Gateway', 'fid')[0]?.apiVersion, `${group}/v1beta1`);
  });
});

describe('status subresource, generation and patches', () => {
  before(async () => {
    await call(fx.sim, 'POST', gateways(), { body: gateway('web') });
  });
  it('a main update ignores status and moves the generation; a /status update changes only status', async () => {
    const current = (await call(fx.sim, 'GET', `${gateways()}/web`)).body;
    const listeners = [{ name: 'http', port: 8080, protocol: 'HTTP' }];
    const body = { ...current, spec: { ...current.spec, listeners }, status: { addresses: [{ value: '192.0.2.1' }] } };
    const updated = (await call(fx.sim, 'PUT', `${gateways()}/web`, { body })).body;
    assert.equal(updated.metadata.generation, 2);
    assert.equal(updated.status.addresses, undefined);
    const status = {
      ...updated,
      spec: { gatewayClassName: 'ignored' },
      status: { addresses: [{ value: '192.0.2.1' }] },
    };
    const written = (await call(fx.sim, 'PUT', `${gateways()}/web/status`, { body: status })).body;
    assert.equal(written.metadata.generation, 2);
    assert.equal(written.spec.gatewayClassName, 'portolan');
    assert.deepEqual(written.status.addresses, [{ type: 'IPAddress', value: '192.0.2.1' }]);
  });
  it('takes JSON and merge patches, refuses strategic merge patches with 415', async () => {
    const json = await call(fx.sim, 'PATCH', `${gateways()}/web`, {
      body: [{ op: 'replace', path: '/spec/listeners/0/port', value: 8081 }],
      contentType: 'application/json-patch+json',
    });
    assert.equal(json.body.spec.listeners[0].port, 8081);
    const strategic = await call(fx.sim, 'PATCH', `${gateways()}/web`, {
      body: { spec: { gatewayClassName: 'x' } },
      contentType: 'application/strategic-merge-patch+json',
    });
    assert.equal(strategic.status, 415);
    assert.equal(
      strategic.body.message,
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json',
    );
  });
  it('a merge patch that breaks a rule is a 422 naming the field', async () => {
    const res = await call(fx.sim, 'PATCH', `${gateways()}/web`, {
      body: { spec: { listeners: [{ name: 'tcp', port: 9000, protocol: 'TCP', tls: { mode: 'Passthrough' } }] } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(res.status, 422);
    assert.equal(
      res.body.message,
      `Gateway.gateway.networking.k8s.io "web" is invalid: spec.listeners: Invalid value: "array": tls must not be specified for protocols ['HTTP', 'TCP', 'UDP']`,
    );
    assert.deepEqual(res.body.details.causes, [
      {
        reason: 'FieldValueInvalid',
        message: `Invalid value: "array": tls must not be specified for protocols ['HTTP', 'TCP', 'UDP']`,
        field: 'spec.listeners',
      },
    ]);
  });
  it('prints the CRD columns in a Table, with null where a column finds nothing', async () => {
    const accept = 'application/json;as=Table;v=v1;g=meta.k8s.io';
    const table = (await call(fx.sim, 'GET', `${gateways()}/web`, { accept })).body;
    assert.deepEqual(
      table.columnDefinitions.map((c: { name: string; type: string }) => `${c.name}:${c.type}`),
      ['Name:string', 'Class:string', 'Address:string', 'Programmed:string', 'Age:date'],
    );
    assert.deepEqual(table.rows[0].cells.slice(0, 4), ['web', 'portolan', '192.0.2.1', 'Unknown']);
    await call(fx.sim, 'POST', `/apis/${group}/v1/namespaces/fid/httproutes`, {
      body: { metadata: { name: 'r' }, spec: {} },
    });
    const routes = (await call(fx.sim, 'GET', `/apis/${group}/v1/namespaces/fid/httproutes`, { accept })).body;
    assert.deepEqual(routes.rows[0].cells.slice(0, 2), ['r', null]);
  });
  it('warns of fields the schema does not declare and drops them', async () => {
    const res = await call(fx.sim, 'POST', gateways(), { body: { ...gateway('typo'), extra: 1 } });
    assert.equal(res.status, 201);
    assert.equal(res.headers['warning'], '299 - "unknown field \\"extra\\""');
    assert.equal(res.body.extra, undefined);
  });
});
