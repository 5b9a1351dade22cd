import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LmRealServer, LmRule, LmVirtualService } from './lm-state.ts';
import { defaultRule } from './lm-state.ts';
import { createLmState } from './lm-state.ts';
import { LmStore } from './lm-store.ts';
import { exchangeRequest } from './header-rules.ts';
import { routeRequest } from './rule-match.ts';

const rule = (name: string, over: Partial<LmRule>): LmRule => ({ ...defaultRule(name), ...over });
const link = (rsIndex: number, subVs: number, rules: string[]): LmRealServer => ({
  rsIndex,
  addr: '',
  port: 0,
  subVs,
  weight: 1000,
  forward: 'nat',
  enable: true,
  limit: 0,
  critical: false,
  follow: 0,
  rules,
});
const vs = (index: number, parent: number, realServers: LmRealServer[], pre: string[] = []): LmVirtualService => ({
  index,
  address: parent === 0 ? '10.0.0.1' : '',
  port: parent === 0 ? '80' : '0',
  protocol: 'tcp',
  parent,
  props: {},
  realServers,
  rules: { pre, request: [], response: [], responsebody: [] },
});

/**
 * VS 1: SubVS 2 takes `/api` requests carrying `X-Env: canary` (pre rule sets flag 1, the URL rule needs it),
 * SubVS 3 takes the other `/api` requests (flag 1 not set), SubVS 4 the rest.
 */
function store(): LmStore {
  const state = createLmState();
  state.rules.push(
    rule('env', { header: 'x-env', pattern: '/^canary$/', setOnMatch: 1 }),
    rule('api-canary', { pattern: '/^\\/api/', onlyOnFlag: 1 }),
    rule('api', { pattern: '/^\\/api/', onlyOnNoFlag: 1 }),
    rule('del', { type: 2, pattern: 'X-Secret' }),
    rule('add', { type: 1, header: 'X-Via', replacement: 'lm' }),
    rule('add-canary', { type: 1, header: 'X-Canary', replacement: 'yes', onlyOnFlag: 1 }),
    rule('repl', { type: 3, header: 'Server', pattern: '/^(\\w+)\\/.*$/', replacement: '\\1' }),
  );
  state.virtualServices.push(
    vs(1, 0, [link(1, 2, ['api-canary']), link(2, 3, ['api']), link(3, 4, [])], ['env']),
    vs(2, 1, []),
    vs(3, 1, []),
    vs(4, 1, []),
  );
  for (const sub of state.virtualServices.slice(1, 3)) {
    sub.rules.request = ['del', 'add', 'add-canary'];
    sub.rules.response = ['repl'];
  }
  return new LmStore(state);
}

test('flag chaining: a pre rule sets a flag; URL rules tried only on flag / no flag', () => {
  const s = store();
  const to = (headers: Record<string, string>, path = '/api/x'): unknown => {
    const r = routeRequest(s, 1, { host: 'h', path, headers });
    return r.kind === 'subvs' ? r.vsIndex : r.kind;
  };
  assert.equal(to({ 'X-ENV': 'canary' }), 2);
  assert.equal(to({ 'x-env': 'canary-2' }), 3, 'the pattern is anchored');
  assert.equal(to({}), 3);
  assert.equal(to({ 'x-env': 'canary' }, '/web'), 4, 'the flag alone selects nothing');
});

test('header rules of the chosen SubVS apply in order, with flag conditions', () => {
  const s = store();
  const ex = exchangeRequest(s, 1, { host: 'h', path: '/api', headers: { 'x-secret': 's', 'X-Via': 'c' } }, [
    ['Server', 'nginx/1.2'],
  ]);
  assert.deepEqual(ex.requestHeaders, [
    ['X-Via', 'c'],
    ['X-Via', 'lm'],
  ]);
  assert.deepEqual(ex.responseHeaders, [['Server', 'nginx']]);
  const canary = exchangeRequest(s, 1, { host: 'h', path: '/api', headers: { 'x-env': 'canary', 'x-secret': 's' } });
  assert.deepEqual(canary.result, { kind: 'subvs', vsIndex: 2, rsIndex: 1 });
  assert.deepEqual(canary.requestHeaders, [
    ['x-env', 'canary'],
    ['X-Via', 'lm'],
    ['X-Canary', 'yes'],
  ]);
  const other = exchangeRequest(s, 1, { host: 'h', path: '/web', headers: { 'x-secret': 's' } });
  assert.deepEqual(other.requestHeaders, [['x-secret', 's']], 'another SubVS: its rules only');
});
