import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderJson, renderXml } from './wire-format.ts';
import { fail, okData, okDone, strings } from './lm-result.ts';

test('v1: Y/N booleans, repeated tags for lists, escaped text, stat = HTTP status', () => {
  const xml = renderXml(
    okData({ Enable: true, Name: 'a<b', Rs: [{ Addr: '1' }, { Addr: '2' }], Rules: strings('Name', ['x']) }),
  );
  assert.equal(xml.status, 200);
  assert.match(
    xml.body,
    /<Enable>Y<\/Enable>\n<Name>a&#60;b<\/Name>\n<Rs>\n<Addr>1<\/Addr>\n<\/Rs>\n<Rs>\n<Addr>2<\/Addr>\n<\/Rs>\n<Rules>\n<Name>x<\/Name>\n<\/Rules>/,
  );
  assert.match(renderXml(okDone()).body, /<Success>Command completed ok<\/Success>/);
  const err = renderXml(fail(422, 'Unknown VS'));
  assert.equal(err.status, 422);
  assert.match(err.body, /<Response stat="422" code="fail">\n<Error>Unknown VS<\/Error>/);
});

test('v2: flat JSON with code first and status last; errors carry message', () => {
  assert.equal(
    renderJson(okData({ Index: 1, Enable: false })).body,
    '{"code":200,"Index":1,"Enable":false,"status":"ok"}',
  );
  assert.equal(renderJson(okDone()).body, '{"code":200,"message":"Command completed ok","status":"ok"}');
  assert.deepEqual(JSON.parse(renderJson(fail(401, 'Authorization required')).body), {
    code: 401,
    message: 'Authorization required',
    status: 'fail',
  });
});
