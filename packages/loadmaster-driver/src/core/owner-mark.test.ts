import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isOwnedBy, ownerMark, parseOwnerMark } from './owner-mark.ts';

test('marks use only the characters a LoadMaster NickName allows and start with a letter', () => {
  const mark = ownerMark('lm1', 'vs', 'c1/Default/My_Ingress:443 ünïcode');
  assert.match(mark, /^[A-Za-z][A-Za-z0-9.@_-]*$/);
  assert.deepEqual(parseOwnerMark(mark), {
    appliance: 'lm1',
    kind: 'vs',
    slug: 'c1-default-my-ingress-44',
    hash: mark.slice(-8),
  });
});

test('keys differing only past the slug length still get distinct marks', () => {
  const long = 'x'.repeat(40);
  assert.notEqual(ownerMark('lm1', 'vs', `${long}a`), ownerMark('lm1', 'vs', `${long}b`));
});

test('objects of other appliances, other kinds and hand-made nicknames are not ours', () => {
  const mark = ownerMark('lm1', 'sv', 'pool');
  assert.equal(isOwnedBy(mark, 'lm1', 'sv'), true);
  assert.equal(isOwnedBy(mark, 'lm2', 'sv'), false);
  assert.equal(isOwnedBy(mark, 'lm1', 'vs'), false);
  for (const name of [
    'web',
    '',
    'ptl_lm1_vs_x',
    'ptl_lm1_vs_x_zzzzzzzz',
    'ptl_LM1_vs_x_0123abcd',
    'ptl_lm1_zz_x_0123abcd',
  ]) {
    assert.equal(parseOwnerMark(name), null, name);
  }
});
