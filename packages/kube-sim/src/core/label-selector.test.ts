import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { matchesLabels, parseLabelSelector } from './label-selector.ts';

describe('label selectors (labels.Parse grammar)', () => {
  const labels = { app: 'web', tier: 'fe', n: '5' };
  const cases: [string, boolean][] = [
    ['', true],
    ['app=web', true],
    ['app==web', true],
    ['app=db', false],
    ['app!=db', true],
    ['missing!=x', true],
    ['app in (web,db)', true],
    ['app notin (web)', false],
    ['tier', true],
    ['!tier', false],
    ['!missing', true],
    ['app=web,tier=be', false],
    ['n>4', true],
    ['n<5', false],
    ['app=', false],
  ];
  for (const [text, want] of cases) {
    it(`"${text}" ${want ? 'matches' : 'does not match'}`, () => {
      const parsed = parseLabelSelector(text);
      assert.ok(parsed.ok, text);
      assert.equal(matchesLabels(parsed.selector, labels), want);
    });
  }
  it('rejects malformed selectors with a message', () => {
    for (const bad of ['app=web,', 'app in web', 'a b=c', 'app=-x-']) {
      const parsed = parseLabelSelector(bad);
      assert.equal(parsed.ok, false, bad);
    }
  });
});
