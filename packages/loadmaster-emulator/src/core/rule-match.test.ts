import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LmRule } from './lm-state.ts';
import { defaultRule } from './lm-state.ts';
import { compileRulePattern, isRuleMatch } from './rule-match.ts';

const rule = (over: Partial<LmRule>): LmRule => ({ ...defaultRule('r'), ...over });
const req = { host: 'Shop.example.com', path: '/api/items', query: 'a=1', headers: { 'User-Agent': 'curl' } };

test('match kinds: regex (with or without /…/ delimiters), prefix, postfix; nocase and negate', () => {
  const cases: [Partial<LmRule>, boolean][] = [
    [{ pattern: '/^\\/api.*/' }, true],
    [{ pattern: '^/api' }, true],
    [{ pattern: '/^\\/API/' }, false],
    [{ pattern: '/^\\/API/', noCase: true }, true],
    [{ matchType: 'prefix', pattern: '/api/' }, true],
    [{ matchType: 'postfix', pattern: 'ITEMS', noCase: true }, true],
    [{ matchType: 'postfix', pattern: 'ITEMS' }, false],
    [{ pattern: '/^\\/api/', negate: true }, false],
  ];
  for (const [over, want] of cases) assert.equal(isRuleMatch(rule(over), req), want, JSON.stringify(over));
});

test('subjects: inchost prepends the Host header, incquery appends the query, header rules read that header', () => {
  assert.equal(isRuleMatch(rule({ pattern: '/^Shop\\.example\\.com\\/api/', incHost: true }), req), true);
  assert.equal(isRuleMatch(rule({ pattern: '/items\\?a=1$/', incQuery: true }), req), true);
  assert.equal(isRuleMatch(rule({ pattern: '/items$/', incQuery: true }), req), false);
  assert.equal(isRuleMatch(rule({ header: 'Host', pattern: '/^shop\\./', noCase: true }), req), true);
  assert.equal(isRuleMatch(rule({ header: 'user-agent', matchType: 'prefix', pattern: 'curl' }), req), true);
});

test('an invalid regular expression does not compile (the appliance refuses it)', () => {
  assert.equal(compileRulePattern({ pattern: '/(/', noCase: false }), null);
});

test('method: a header=method rule reads the request method, GET when none is given', () => {
  assert.equal(isRuleMatch(rule({ header: 'method', pattern: '/^POST$/' }), { ...req, method: 'POST' }), true);
  assert.equal(isRuleMatch(rule({ header: 'Method', pattern: '/^POST$/' }), req), false);
  assert.equal(isRuleMatch(rule({ header: 'method', pattern: '/^GET$/' }), req), true);
});
