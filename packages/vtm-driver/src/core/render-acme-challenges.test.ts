import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseOwnerNote } from '@portolan/appliance-driver';
import type { DesiredState } from '@portolan/desired-state';
import { runTrafficScript } from '@portolan/vtm-emulator';
import { certificate, desiredState, ingress, route, virtualService } from '../testing/desired-fixtures.ts';
import { diffVtm } from './diff-vtm.ts';
import { renderVtm, type VtmRenderConfig } from './render-vtm.ts';
import { vtmName } from './vtm-names.ts';
import type { VtmObject, VtmObjects } from './vtm-objects.ts';

const config: VtmRenderConfig = { appliance: 'vtm', defaultTrafficIpGroup: 'Web-TIG', machines: ['tm-a'] };
const ACME = vtmName('acme', 'http-01');
const TOKEN_A = 'tok-A_1';
const TOKEN_B = 'tok-B_2';
const challenges = [
  { token: TOKEN_B, keyAuthorization: `${TOKEN_B}.thumbprint` },
  { token: TOKEN_A, keyAuthorization: `${TOKEN_A}.thumbprint` },
];

function requestRules(out: VtmObjects, vs: string): unknown {
  const o = out.objects.find((x) => x.type === 'virtual_servers' && x.name === vtmName('vs', vs));
  assert.ok(o !== undefined && o.type !== 'rules', `virtual server ${vs} rendered`);
  return (o.properties['basic'] as { request_rules: unknown }).request_rules;
}
function rule(out: VtmObjects, name: string): string {
  const o = out.objects.find((x): x is Extract<VtmObject, { type: 'rules' }> => x.type === 'rules' && x.name === name);
  assert.ok(o !== undefined, `rule ${name} rendered`);
  return o.text;
}

const mixed: DesiredState = desiredState({
  virtualServices: [
    virtualService({ name: 'default.plain', routes: [route('a.example.com', '/', 'Prefix', 'default.a')] }),
    virtualService({
      name: 'default.scripted',
      address: { kind: 'dedicated', ip: '192.0.2.11' },
      requestScript: 'http.redirect("https://elsewhere/");',
    }),
    virtualService({
      name: 'default.secure',
      address: { kind: 'dedicated', ip: '192.0.2.12' },
      port: 443,
      protocol: 'https',
      certificates: ['default.tls'],
    }),
    virtualService({
      name: 'default.secure-redirect',
      address: { kind: 'dedicated', ip: '192.0.2.12' },
      redirectToHttpsPort: 443,
    }),
    virtualService({ name: 'default.alt', address: { kind: 'dedicated', ip: '192.0.2.13' }, port: 8080 }),
    virtualService({
      name: 'default.pass',
      address: { kind: 'dedicated', ip: '192.0.2.14' },
      port: 80,
      protocol: 'tls-passthrough',
      defaultPool: 'default.a',
    }),
  ],
  certificates: [certificate('default.tls', ['s.example.com'])],
});

describe('renderVtm: ACME HTTP-01 challenges answered by port-80 services', () => {
  test('without pending challenges nothing changes: no rule, same objects as before', () => {
    const plain = renderVtm(mixed, config);
    assert.deepEqual(renderVtm(mixed, config, { acmeChallenges: [] }), plain);
    assert.equal(
      plain.objects.some((o) => o.name === ACME),
      false,
    );
  });

  test('every port-80 HTTP service lists the challenge rule first; https, passthrough and other ports do not', () => {
    const out = renderVtm(mixed, config, { acmeChallenges: challenges });
    const table = [
      { vs: 'default.plain', want: [ACME, vtmName('route', 'default.plain')] },
      {
        vs: 'default.scripted',
        want: [ACME, vtmName('request', 'default.scripted'), vtmName('route', 'default.scripted')],
      },
      { vs: 'default.secure-redirect', want: [ACME, vtmName('route', 'default.secure-redirect')] },
      { vs: 'default.secure', want: [vtmName('route', 'default.secure')] },
      { vs: 'default.alt', want: [vtmName('route', 'default.alt')] },
      { vs: 'default.pass', want: [] },
    ];
    for (const { vs, want } of table) assert.deepEqual(requestRules(out, vs), want, vs);
    assert.equal(parseOwnerNote(rule(out, ACME).split('\n', 1)[0]?.slice(2) ?? '')?.appliance, 'vtm');
  });

  test('the rule answers GET for each pending token with its key authorization and lets everything else through', () => {
    const text = rule(renderVtm(mixed, config, { acmeChallenges: challenges }), ACME);
    const cases = [
      {
        name: 'token A',
        method: 'GET',
        url: `/.well-known/acme-challenge/${TOKEN_A}`,
        want: {
          kind: 'response',
          status: '200 OK',
          contentType: 'text/plain',
          body: `${TOKEN_A}.thumbprint`,
          headers: '',
        },
      },
      {
        name: 'token B',
        method: 'GET',
        url: `/.well-known/acme-challenge/${TOKEN_B}`,
        want: {
          kind: 'response',
          status: '200 OK',
          contentType: 'text/plain',
          body: `${TOKEN_B}.thumbprint`,
          headers: '',
        },
      },
      {
        name: 'unknown token falls through',
        method: 'GET',
        url: '/.well-known/acme-challenge/other',
        want: { kind: 'none' },
      },
      {
        name: 'token as a prefix only falls through',
        method: 'GET',
        url: `/.well-known/acme-challenge/${TOKEN_A}x`,
        want: { kind: 'none' },
      },
      {
        name: 'POST falls through',
        method: 'POST',
        url: `/.well-known/acme-challenge/${TOKEN_A}`,
        want: { kind: 'none' },
      },
      { name: 'ordinary path falls through', method: 'GET', url: '/index.html', want: { kind: 'none' } },
    ];
    for (const c of cases)
      assert.deepEqual(runTrafficScript(text, { host: 'a.example.com', url: c.url, method: c.method }), c.want, c.name);
  });

  test('the rule text depends only on the set of challenges; malformed or duplicate tokens are not served', () => {
    const a = rule(renderVtm(mixed, config, { acmeChallenges: challenges }), ACME);
    const b = rule(renderVtm(mixed, config, { acmeChallenges: [...challenges].reverse() }), ACME);
    assert.equal(a, b);
    const hostile = [
      ...challenges,
      { token: TOKEN_A, keyAuthorization: `${TOKEN_A}.second` },
      { token: 'x"); pool.use("evil', keyAuthorization: 'k.k' },
      { token: 'good', keyAuthorization: 'k"); pool.use("evil' },
    ];
    assert.equal(rule(renderVtm(mixed, config, { acmeChallenges: hostile }), ACME), a);
    assert.equal(
      renderVtm(mixed, config, { acmeChallenges: hostile.slice(3) }).objects.some((o) => o.name === ACME),
      false,
    );
  });

  test('an https address serving an ACME certificate with no port-80 service gets a challenge-only listener', () => {
    const acmeCert = { ...certificate('default.le', ['le.example.com'], ''), acme: true };
    const desired = desiredState({
      virtualServices: [
        virtualService({
          name: 'default.le',
          address: { kind: 'dedicated', ip: '192.0.2.20' },
          port: 443,
          protocol: 'https',
          certificates: ['default.le'],
          owners: [ingress('le')],
        }),
        virtualService({
          name: 'default.byo',
          address: { kind: 'dedicated', ip: '192.0.2.21' },
          port: 443,
          protocol: 'https',
          certificates: ['default.tls'],
          owners: [ingress('byo')],
        }),
      ],
      certificates: [acmeCert, certificate('default.tls', ['byo.example.com'])],
    });
    const idle = renderVtm(desired, config);
    const out = renderVtm(desired, config, { acmeChallenges: challenges });
    const listener = 'acme-challenges.' + vtmName('tip', '192.0.2.20');
    assert.equal(
      idle.objects.some((o) => o.name === vtmName('vs', listener)),
      false,
      'no listener while nothing is pending',
    );
    assert.deepEqual(requestRules(out, listener), [ACME, vtmName('route', listener)]);
    const vs = out.objects.find((o) => o.name === vtmName('vs', listener));
    assert.ok(vs !== undefined && vs.type === 'virtual_servers');
    assert.deepEqual((vs.properties['basic'] as Record<string, unknown>)['port'], 80);
    assert.deepEqual((vs.properties['basic'] as Record<string, unknown>)['listen_on_traffic_ips'], [
      vtmName('tip', '192.0.2.20'),
    ]);
    assert.equal(
      out.objects.filter((o) => o.type === 'virtual_servers').length,
      3,
      'none for the address whose certificate is not ACME',
    );
    assert.deepEqual(runTrafficScript(rule(out, vtmName('route', listener)), { host: 'le.example.com', url: '/' }), {
      kind: 'response',
      status: '404 Not Found',
      contentType: 'text/plain',
      body: 'Not Found\n',
      headers: '',
    });
  });

  test('diff: challenges appearing write the rule then the services; their end updates the services then deletes the rule', () => {
    const idle = renderVtm(mixed, config);
    const busy = renderVtm(mixed, config, { acmeChallenges: challenges });
    const port80 = ['default.plain', 'default.scripted', 'default.secure-redirect'].map((n) => vtmName('vs', n)).sort();
    const up = diffVtm(busy, idle).map((o) => `${o.action} ${o.objectName}`);
    assert.deepEqual(up, [`create ${ACME}`, ...port80.map((n) => `update ${n}`)]);
    const down = diffVtm(idle, busy).map((o) => `${o.action} ${o.objectName}`);
    assert.deepEqual(down, [...port80.map((n) => `update ${n}`), `delete ${ACME}`]);
  });
});
