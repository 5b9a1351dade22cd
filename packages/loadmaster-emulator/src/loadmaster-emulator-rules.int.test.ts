import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startLoadMasterEmulator, type LoadMasterEmulator } from './start-loadmaster-emulator.ts';

let lm: LoadMasterEmulator;

before(async () => {
  lm = await startLoadMasterEmulator({ port: 0, users: { bal: 'pw' }, https: false });
});
after(async () => {
  await lm.close();
});

async function v2(body: Record<string, unknown>): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${lm.url}/accessv2`, {
    method: 'POST',
    body: JSON.stringify({ ...body, apiuser: 'bal', apipass: 'pw' }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/** v1 reply text (XML). */
async function v1(cmd: string, query: Record<string, string>): Promise<string> {
  const auth = `Basic ${Buffer.from('bal:pw').toString('base64')}`;
  const res = await fetch(`${lm.url}/access/${cmd}?${new URLSearchParams(query)}`, {
    headers: { authorization: auth },
  });
  return res.text();
}

test('header and flag rules: per-type required parameters, flag range, read-back, request/response lists', async () => {
  const status = async (body: Record<string, unknown>): Promise<number> => (await v2(body)).status;
  assert.equal(await status({ cmd: 'addrule', name: 'h1', type: 1, replacement: 'x' }), 400, 'add needs header');
  assert.equal(await status({ cmd: 'addrule', name: 'h2', type: 2 }), 400, 'delete needs pattern');
  assert.equal(await status({ cmd: 'addrule', name: 'h3', type: 3, pattern: '/a/' }), 400, 'replace needs header');
  assert.equal(await status({ cmd: 'addrule', name: 'm', pattern: '/^GET$/', header: 'method', setonmatch: 10 }), 422);
  assert.equal(await status({ cmd: 'addrule', name: 'h1', type: 1, header: 'X-A', setonmatch: 1 }), 422);
  assert.equal(await status({ cmd: 'addrule', name: 'h1', type: 1, header: 'X A' }), 422, 'header name');
  assert.equal(await status({ cmd: 'addrule', name: 'h1', type: 1, header: 'X-A', replacement: 'a\nb' }), 422);
  assert.equal(await status({ cmd: 'addrule', name: 'm', pattern: '/^GET$/', header: 'method', setonmatch: 3 }), 200);
  assert.equal(
    await status({ cmd: 'addrule', name: 'p', pattern: '/^a\\/x/', onlyonflag: 3, onlyonnoflag: 4, inchost: 1 }),
    200,
  );
  assert.equal(await status({ cmd: 'addrule', name: 'h1', type: 1, header: 'X-A', replacement: 'a "&/' }), 200);
  assert.equal(await status({ cmd: 'addrule', name: 'h2', type: 2, pattern: 'X-B', onlyonflag: 3 }), 200);
  assert.equal(await status({ cmd: 'modrule', name: 'h2', header: '' }), 200);
  assert.equal(await status({ cmd: 'modrule', name: 'h2', pattern: '' }), 400, 'modrule keeps the requirement');
  const shown = (await v2({ cmd: 'showrule', name: 'm' })).json['MatchContentRule'] as Record<string, unknown>[];
  assert.deepEqual([shown[0]?.['Header'], shown[0]?.['SetOnMatch']], ['method', 3]);
  const p = ((await v2({ cmd: 'showrule', name: 'p' })).json['MatchContentRule'] as Record<string, unknown>[])[0];
  assert.deepEqual([p?.['OnlyOnFlag'], p?.['OnlyOnNoFlag'], p?.['AddHost']], [3, 4, true]);
  const add = (
    (await v2({ cmd: 'showrule', name: 'h1', type: 1 })).json['AddHeaderRule'] as Record<string, unknown>[]
  )[0];
  assert.deepEqual([add?.['Header'], add?.['Replacement']], ['X-A', 'a "&/']);
  assert.match(
    await v1('showrule', { name: 'h2' }),
    /<DeleteHeaderRule>\s*<Name>h2<\/Name>\s*<Pattern>X-B<\/Pattern>[\s\S]*<OnlyOnFlag>3</,
  );

  const parent = (await v2({ cmd: 'addvs', vs: '10.0.0.9', port: 80, prot: 'tcp' })).json['Index'] as number;
  const links = (await v2({ cmd: 'modvs', vs: parent, createsubvs: '' })).json['SubVS'] as Record<string, unknown>[];
  const sub = Number(links[0]?.['VSIndex']);
  assert.equal(await status({ cmd: 'addprerule', vs: parent, rule: 'm' }), 200);
  assert.equal(await status({ cmd: 'addrequestrule', vs: sub, rule: 'h2' }), 200);
  assert.equal(await status({ cmd: 'addrequestrule', vs: sub, rule: 'h1' }), 200);
  assert.equal(await status({ cmd: 'addresponserule', vs: sub, rule: 'h1' }), 200);
  assert.equal(await status({ cmd: 'addresponserule', vs: sub, rule: 'm' }), 422, 'a match rule is no header rule');
  assert.equal(await status({ cmd: 'addrsrule', vs: parent, rs: `!${String(links[0]?.['RsIndex'])}`, rule: 'p' }), 200);
  const listed = ((await v2({ cmd: 'listvs' })).json['VS'] as Record<string, unknown>[]).find(
    (v) => v['Index'] === sub,
  );
  assert.deepEqual([listed?.['RequestRules'], listed?.['ResponseRules']], [['h2', 'h1'], ['h1']]);
  const top = (await v2({ cmd: 'showvs', vs: parent })).json;
  assert.deepEqual(top['MatchRules'], ['m']);
  assert.match(
    await v1('showvs', { vs: String(sub) }),
    /<RequestRules>\s*<Name>h2<\/Name>\s*<Name>h1<\/Name>\s*<\/RequestRules>/,
  );

  const get = lm.exchange(parent, { host: 'a', path: '/x', method: 'GET', headers: { 'x-b': '1' } }, [['X-A', 'o']]);
  assert.deepEqual(get.result.kind, 'subvs');
  assert.deepEqual(get.requestHeaders, [['X-A', 'a "&/']], 'flag 3 (GET) set: X-B deleted, X-A added');
  assert.deepEqual(get.responseHeaders, [
    ['X-A', 'o'],
    ['X-A', 'a "&/'],
  ]);
  assert.equal(lm.route(parent, { host: 'a', path: '/x', method: 'POST' }).kind, 'none', 'method chained');
  assert.equal(await status({ cmd: 'delrule', name: 'h1' }), 422, 'in use by a request list');
  assert.equal(await status({ cmd: 'delrequestrule', vs: sub, rule: 'h1' }), 200);
  assert.equal(await status({ cmd: 'delresponserule', vs: sub, rule: 'h1' }), 200);
  assert.equal(await status({ cmd: 'delrule', name: 'h1' }), 200);
  assert.equal(await status({ cmd: 'delvs', vs: parent }), 200);
});
