import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLoadMasterEmulator, type LoadMasterEmulator } from './start-loadmaster-emulator.ts';

const AUTH = `Basic ${Buffer.from('bal:pw').toString('base64')}`;
let lm: LoadMasterEmulator;
let pem: string;
let dir: string;

before(async () => {
  lm = await startLoadMasterEmulator({ port: 0, users: { bal: 'pw' }, apiKeys: { 'KEY-1': 'bal' }, https: false });
  dir = mkdtempSync(join(tmpdir(), 'lm-emu-test-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      join(dir, 'k'),
      '-out',
      join(dir, 'c'),
      '-days',
      '2',
      '-subj',
      '/CN=t.example.com',
    ],
    { stdio: 'ignore' },
  );
  pem = readFileSync(join(dir, 'c'), 'utf8') + readFileSync(join(dir, 'k'), 'utf8');
});
after(async () => {
  await lm.close();
  rmSync(dir, { recursive: true, force: true });
});

/** v1: GET /access/<cmd>?query (or POST with a body), XML back. */
async function v1(
  cmd: string,
  query: Record<string, string> = {},
  init: { body?: string; auth?: string | null } = {},
): Promise<{ status: number; xml: string }> {
  const headers: Record<string, string> = {};
  if (init.auth !== null) headers['authorization'] = init.auth ?? AUTH;
  const res = await fetch(
    `${lm.url}/access/${cmd}?${new URLSearchParams(query)}`,
    init.body === undefined ? { headers } : { method: 'POST', headers, body: init.body },
  );
  return { status: res.status, xml: Buffer.from(await res.arrayBuffer()).toString('latin1') };
}

/** v2: POST /accessv2 with a JSON body, flat JSON back. */
async function v2(
  body: Record<string, unknown>,
  creds: Record<string, string> | null = { apiuser: 'bal', apipass: 'pw' },
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${lm.url}/accessv2`, { method: 'POST', body: JSON.stringify({ ...body, ...creds }) });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/** A parsed XML element: text, or child elements by tag. */
type Xml = { readonly [tag: string]: Xml | undefined } & { readonly [tag: string]: string & Xml };

/** The `<Success><Data>` element of a v1 response. */
function xmlData(xml: string): Xml {
  return ((parseXml(xml) as Record<string, Record<string, unknown>>)['Success']?.['Data'] ?? {}) as Xml;
}

/** Minimal reader for the emulator's XML: nested tags to objects, repeated tags to arrays, Y/N kept as text. */
function parseXml(xml: string): unknown {
  const parse = (text: string): unknown => {
    const re = /<([A-Za-z][\w.]*)>([\s\S]*?)<\/\1>/g;
    const out: Record<string, unknown> = {};
    let m: RegExpExecArray | null;
    let any = false;
    while ((m = re.exec(text)) !== null) {
      any = true;
      const [, tag = '', inner = ''] = m;
      const value = parse(inner);
      const prev = out[tag];
      out[tag] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
    }
    return any ? out : text.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)));
  };
  return parse(xml);
}

test('v1 XML and v2 JSON give the same state: create with one, read with the other', async () => {
  const created = await v1('addvs', { vs: '10.0.0.4', port: '80', prot: 'tcp', NickName: 'web' });
  assert.equal(created.status, 200);
  assert.match(created.xml, /^<\?xml version="1.0" encoding="ISO-8859-1"\?>\n<Response stat="200" code="ok">/);
  const sub = await v2({ cmd: 'modvs', vs: '10.0.0.4', port: 80, prot: 'tcp', createsubvs: '' });
  const link = (sub.json['SubVS'] as Record<string, unknown>[])[0];
  assert.equal(link?.['Name'], '-');
  const subIndex = String(link?.['VSIndex']);
  assert.equal((await v1('modvs', { vs: subIndex, nickname: 'api' })).status, 200);
  assert.equal((await v2({ cmd: 'addrs', vs: subIndex, rs: '10.1.0.1', rsport: 8080, weight: 50 })).status, 200);

  const xmlVs = xmlData((await v1('showvs', { vs: '10.0.0.4', port: '80', prot: 'tcp' })).xml);
  const jsonVs = (await v2({ cmd: 'showvs', vs: Number(xmlVs.Index) })).json;
  assert.equal(jsonVs['NickName'], xmlVs.NickName);
  assert.equal(jsonVs['Enable'], true);
  assert.equal(xmlVs.Enable, 'Y');
  assert.equal(jsonVs['VSPort'], '80', 'VSPort is a string in v2');
  assert.equal(jsonVs['Index'], Number(xmlVs.Index), 'Index is a number in v2');
  assert.equal(xmlVs.SubVS?.Name, 'api');
  assert.equal((jsonVs['SubVS'] as Record<string, unknown>[])[0]?.['Name'], 'api');
  const subXml = xmlData((await v1('showvs', { vs: subIndex })).xml);
  assert.deepEqual(
    [subXml.VSPort, subXml.MasterVSID, subXml.Rs?.Addr, subXml.Rs?.Weight, subXml.Rs?.Enable],
    ['0', xmlVs.Index, '10.1.0.1', '50', 'Y'],
  );
  const listed = (await v2({ cmd: 'listvs' })).json['VS'] as Record<string, unknown>[];
  assert.deepEqual(
    listed.map((v) => [v['Index'], v['MasterVSID']]),
    [
      [Number(xmlVs.Index), 0],
      [Number(subIndex), Number(xmlVs.Index)],
    ],
  );
});

test('errors: status equals stat/code, documented bodies, unknown VS, missing parameter, unknown command', async () => {
  const unknown = await v1('showvs', { vs: '99' });
  assert.equal(unknown.status, 422);
  assert.match(unknown.xml, /<Response stat="422" code="fail">\n<Error>Unknown VS<\/Error>/);
  assert.deepEqual(await v2({ cmd: 'showvs', vs: '99' }), {
    status: 422,
    json: { code: 422, message: 'Unknown VS', status: 'fail' },
  });
  assert.deepEqual((await v2({ cmd: 'addvs', port: 80 })).json, {
    code: 400,
    message: 'vs: String Value missing',
    status: 'fail',
  });
  assert.equal((await v2({ cmd: 'nosuchcmd' })).status, 405);
  assert.equal((await v1('addvs', { vs: '10.0.0.4', port: '80', prot: 'tcp' })).status, 422, 'duplicate VS');
  assert.equal(
    (await v2({ cmd: 'modvs', vs: '10.0.0.4', port: 80, prot: 'tcp', nickname: '-bad' })).status,
    422,
    'nickname must start with a letter or digit',
  );
  assert.equal(
    (await v2({ cmd: 'addrs', vs: '10.0.0.4', port: 80, prot: 'tcp', rs: '10.1.0.9', rsport: 80 })).status,
    422,
    'a VS with SubVSs takes no direct RSs',
  );
});

test('Schedule: rr by default, stored per VS and SubVS and read back in v1 and v2; unknown methods refused', async () => {
  const vs = (await v2({ cmd: 'addvs', vs: '10.0.0.8', port: 80, prot: 'tcp', schedule: 'wrr' })).json;
  assert.equal(vs['Schedule'], 'wrr', 'addvs takes it');
  const parent = await v2({ cmd: 'modvs', vs: vs['Index'], createsubvs: '' });
  const sub = Number((parent.json['SubVS'] as Record<string, unknown>[])[0]?.['VSIndex']);
  assert.equal((await v2({ cmd: 'showvs', vs: sub })).json['Schedule'], 'rr', 'a new SubVS schedules rr');
  assert.equal((await v1('modvs', { vs: String(sub), nickname: 'canary', Schedule: 'WRR' })).status, 200);
  assert.equal(xmlData((await v1('showvs', { vs: String(sub) })).xml).Schedule, 'wrr', 'stored in lower case');
  const listed = (await v2({ cmd: 'listvs' })).json['VS'] as Record<string, unknown>[];
  assert.deepEqual(
    listed.filter((v) => v['Index'] === vs['Index'] || v['Index'] === sub).map((v) => v['Schedule']),
    ['wrr', 'wrr'],
  );
  for (const method of ['lc', 'wlc', 'fixed', 'adaptive', 'sh', 'rr'])
    assert.equal((await v2({ cmd: 'modvs', vs: sub, schedule: method })).json['Schedule'], method);
  const refused = await v2({ cmd: 'modvs', vs: sub, schedule: 'weighted', nickname: 'renamed' });
  assert.deepEqual(refused, { status: 422, json: { code: 422, message: 'Invalid Schedule value', status: 'fail' } });
  const after = (await v2({ cmd: 'showvs', vs: sub })).json;
  assert.deepEqual([after['Schedule'], after['NickName']], ['rr', 'canary'], 'a refused modvs changes nothing');
});

test('real servers: addressing by ip+port and by !RsIndex; duplicates refused', async () => {
  const vs = (await v2({ cmd: 'addvs', vs: '10.0.0.5', port: 8443, prot: 'tcp' })).json;
  assert.equal(vs['VStype'], 'gen', 'arbitrary TCP port defaults to a generic VS');
  const added = (await v1('addrs', { vs: String(vs['Index']), rs: '10.1.0.1', rsport: '80' })).xml;
  const rsIndex = /<RsIndex>(\d+)<\/RsIndex>/.exec(added)?.[1];
  assert.equal((await v1('addrs', { vs: String(vs['Index']), rs: '10.1.0.1', rsport: '80' })).status, 422);
  assert.equal(
    (await v1('modrs', { vs: '10.0.0.5', port: '8443', prot: 'tcp', rs: `!${rsIndex}`, weight: '7', enable: 'n' }))
      .status,
    200,
  );
  const shown = (await v2({ cmd: 'showrs', vs: vs['Index'] as number, rs: '10.1.0.1', rsport: 80 })).json[
    'Rs'
  ] as Record<string, unknown>[];
  assert.deepEqual([shown[0]?.['Weight'], shown[0]?.['Enable']], [7, false]);
  assert.equal((await v1(`delrs`, { vs: String(vs['Index']), rs: `!${rsIndex}` })).status, 200);
  assert.equal((await v1(`delrs`, { vs: String(vs['Index']), rs: `!${rsIndex}` })).status, 422);
});

test('content rules: types, match kinds, assignment to a SubVS by !RsIndex, routing, delete refused while in use', async () => {
  assert.equal((await v2({ cmd: 'addrule', name: 'bad', pattern: '/(/' })).status, 422, 'invalid regex');
  assert.equal(
    (await v2({ cmd: 'addrule', name: 'api', pattern: '/^\\/api(\\/.*)?$/', matchtype: 'regex' })).status,
    200,
  );
  assert.equal((await v1('addrule', { name: 'img', matchtype: 'postfix', pattern: '.png', nocase: '1' })).status, 200);
  assert.equal((await v1('addrule', { name: 'hdr', type: '1', header: 'X-Via', replacement: 'lm' })).status, 200);
  const rules = (await v2({ cmd: 'showrule' })).json;
  assert.deepEqual(
    (rules['MatchContentRule'] as Record<string, unknown>[]).map((r) => [
      r['Name'],
      r['MatchType'],
      r['CaseIndependent'],
    ]),
    [
      ['api', 'Regex', false],
      ['img', 'Postfix', true],
    ],
  );
  assert.equal((rules['AddHeaderRule'] as Record<string, unknown>[])[0]?.['Name'], 'hdr');

  const parent = (await v2({ cmd: 'addvs', vs: '10.0.0.6', port: 80, prot: 'tcp' })).json['Index'] as number;
  await v2({ cmd: 'modvs', vs: parent, createsubvs: '' });
  const links = (await v2({ cmd: 'modvs', vs: parent, createsubvs: '' })).json['SubVS'] as Record<string, unknown>[];
  const [apiLink, restLink] = links;
  assert.equal(
    (await v1('addrsrule', { vs: String(parent), rs: `!${String(apiLink?.['RsIndex'])}`, rule: 'api' })).status,
    200,
  );
  assert.equal(
    (await v1('addrsrule', { vs: String(parent), rs: `!${String(apiLink?.['RsIndex'])}`, rule: 'hdr' })).status,
    422,
    'only match rules on RSs',
  );
  assert.equal(lm.route(parent, { host: 'x', path: '/api/v1' }).kind, 'subvs');
  assert.deepEqual(lm.route(parent, { host: 'x', path: '/api/v1' }), {
    kind: 'subvs',
    vsIndex: apiLink?.['VSIndex'],
    rsIndex: apiLink?.['RsIndex'],
  });
  assert.deepEqual(
    lm.route(parent, { host: 'x', path: '/apix' }),
    { kind: 'subvs', vsIndex: restLink?.['VSIndex'], rsIndex: restLink?.['RsIndex'] },
    'rule-less SubVS takes the rest',
  );
  const shown = (await v2({ cmd: 'showvs', vs: parent })).json['SubVS'] as Record<string, unknown>[];
  assert.deepEqual(shown[0]?.['MatchRules'], ['api']);
  assert.equal((await v2({ cmd: 'delrule', name: 'api' })).status, 422, 'in use');
  assert.equal(
    (await v2({ cmd: 'delrsrule', vs: parent, rs: `!${String(apiLink?.['RsIndex'])}`, rule: 'api' })).status,
    200,
  );
  assert.equal((await v2({ cmd: 'delrule', name: 'api' })).status, 200);
  assert.equal((await v2({ cmd: 'addrequestrule', vs: parent, rule: 'hdr' })).status, 200);
  assert.equal((await v2({ cmd: 'delvs', vs: Number(apiLink?.['VSIndex']) })).status, 200, 'delvs deletes a SubVS');
  assert.equal(((await v2({ cmd: 'showvs', vs: parent })).json['SubVS'] as unknown[]).length, 1);
});

test('certificates: upload by v2 base64 and v1 POST body, listcert, delete refused while a VS uses it', async () => {
  assert.equal((await v2({ cmd: 'addcert', cert: 'shop', data: Buffer.from(pem).toString('base64') })).status, 200);
  assert.equal(
    (await v1('addcert', { cert: 'shop', replace: '0' }, { body: pem })).status,
    422,
    'exists without replace',
  );
  assert.equal((await v1('addcert', { cert: 'shop2', replace: '0' }, { body: pem })).status, 200);
  assert.equal(
    (await v1('addcert', { cert: 'nokey' }, { body: pem.slice(0, pem.indexOf('-----BEGIN PRIVATE')) })).status,
    422,
  );
  const certs = (await v2({ cmd: 'listcert' })).json['cert'] as Record<string, unknown>[];
  assert.deepEqual(
    certs.map((c) => [c['name'], c['type']]),
    [
      ['shop', 'ECC'],
      ['shop2', 'ECC'],
    ],
  );
  assert.doesNotMatch(JSON.stringify((await v2({ cmd: 'readcert', cert: 'shop' })).json), /PRIVATE KEY/);
  const vs = (
    await v2({ cmd: 'addvs', vs: '10.0.0.7', port: 443, prot: 'tcp', SSLAcceleration: 1, CertFile: 'shop shop2' })
  ).json;
  assert.equal(vs['CertFile'], 'shop shop2');
  assert.equal((await v2({ cmd: 'modvs', vs: vs['Index'] as number, CertFile: 'missing' })).status, 422);
  assert.equal((await v2({ cmd: 'delcert', cert: 'shop' })).status, 422);
  assert.equal(
    (await v2({ cmd: 'modvs', vs: vs['Index'] as number, CertFile: 'shop2' })).status,
    200,
    'the whole list is replaced',
  );
  assert.equal((await v2({ cmd: 'delcert', cert: 'shop' })).status, 200);
  assert.doesNotMatch(JSON.stringify(lm.writeLog), /PRIVATE KEY|BEGIN/);
});

test('auth: Basic, apiuser/apipass, API keys (query and body), key lifecycle; everything else is 401', async () => {
  assert.equal((await v1('listvs', {}, { auth: null })).status, 401);
  assert.equal((await v1('listvs', {}, { auth: `Basic ${Buffer.from('bal:wrong').toString('base64')}` })).status, 401);
  assert.deepEqual((await v2({ cmd: 'listvs' }, null)).json, {
    code: 401,
    message: 'Authorization required',
    status: 'fail',
  });
  assert.equal((await v2({ cmd: 'listvs' }, { apiuser: 'bal', apipass: 'nope' })).status, 401);
  assert.equal((await v1('listvs', { apikey: 'KEY-1' }, { auth: null })).status, 200);
  assert.equal((await v2({ cmd: 'listvs', apikey: 'KEY-1' }, null)).status, 200);
  assert.equal(
    (await v2({ cmd: 'listvs', apikey: 'WRONG' }, { apiuser: 'bal', apipass: 'pw' })).status,
    401,
    'apikey takes precedence',
  );
  const keys = (await v2({ cmd: 'addapikey' })).json['ApiKeys'] as string[];
  const fresh = keys.find((k) => k !== 'KEY-1') ?? '';
  assert.equal((await v2({ cmd: 'listvs', apikey: fresh }, null)).status, 200);
  assert.equal((await v2({ cmd: 'delapikey', key: fresh })).status, 200);
  assert.equal((await v2({ cmd: 'listvs', apikey: fresh }, null)).status, 401);
});

test('write log: successful writes only, with timestamps and secret parameters redacted', async () => {
  const n = lm.writeLog.length;
  await v1('showvs', { vs: '1' });
  await v1('addvs', { vs: '10.0.0.4', port: '80', prot: 'tcp' });
  assert.equal(lm.writeLog.length, n, 'reads and refused writes are not logged');
  await v2({ cmd: 'addcert', cert: 'logged', data: Buffer.from(pem).toString('base64'), password: 'p12pass' });
  const last = lm.writeLog.at(-1);
  assert.equal(last?.command, 'addcert');
  assert.equal(last?.params['password'], '[redacted]');
  assert.ok(typeof last?.at === 'number');
});

test('rate limit: the 31st call within 3 s has its connection dropped', async () => {
  const limited = await startLoadMasterEmulator({ port: 0, users: { bal: 'pw' }, rateLimit: true, https: false });
  try {
    const call = (): Promise<number> =>
      fetch(`${limited.url}/access/listvs`, { headers: { authorization: AUTH, connection: 'close' } }).then(
        (r) => r.status,
      );
    for (let i = 0; i < 30; i++) assert.equal(await call(), 200);
    await assert.rejects(call());
    assert.equal(limited.droppedCalls, 1);
  } finally {
    await limited.close();
  }
});

test('state file: the configuration survives a restart; HTTPS with a self-signed certificate', async () => {
  const statePath = join(dir, 'lm-state.json');
  const first = await startLoadMasterEmulator({ port: 0, users: { bal: 'pw' }, statePath, https: true });
  const get = (url: string): Promise<{ status: number; body: string }> =>
    new Promise((resolve, reject) => {
      httpsRequest(url, { rejectUnauthorized: false, headers: { authorization: AUTH } }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString('latin1')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
        .on('error', reject)
        .end();
    });
  try {
    assert.match(first.url, /^https:/);
    await assert.rejects(fetch(`${first.url}/access/listvs`), 'the certificate is self-signed');
    assert.equal((await get(`${first.url}/access/addvs?vs=10.9.0.1&port=80&prot=tcp&nickname=kept`)).status, 200);
  } finally {
    await first.close();
  }
  assert.equal(statSync(statePath).mode & 0o077, 0, 'state file (holds private keys) is owner-only');
  const second = await startLoadMasterEmulator({ port: 0, users: { bal: 'pw' }, statePath, https: true });
  try {
    assert.match(
      (await get(`${second.url}/access/showvs?vs=10.9.0.1&port=80&prot=tcp`)).body,
      /<NickName>kept<\/NickName>/,
    );
  } finally {
    await second.close();
  }
});
