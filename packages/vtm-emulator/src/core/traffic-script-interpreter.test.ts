import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runTrafficScript, TrafficScriptError, type RuleOutcome } from './traffic-script-interpreter.ts';

const request = { host: 'Shop.Example.com', url: '/cart/items?id=7', method: 'POST', headers: { 'x-user': 'ann' } };

describe('runTrafficScript', () => {
  const cases: { name: string; rule: string; want: RuleOutcome }[] = [
    { name: 'falls through when nothing ends the rule', rule: '$x = "a";\n', want: { kind: 'none' } },
    {
      name: 'pool.use with a node names the node',
      rule: 'pool.use("p", "10.0.0.1", 8080);',
      want: { kind: 'pool', pool: 'p', node: '10.0.0.1:8080' },
    },
    {
      name: 'else if chains take the first true branch only',
      rule: 'if (http.getMethod() == "GET") { pool.use("get"); } else if (http.getMethod() == "POST") { pool.use("post"); } else { pool.use("other"); }',
      want: { kind: 'pool', pool: 'post', node: null },
    },
    {
      name: 'else runs when no branch matched',
      rule: 'if ("") { pool.use("a"); } else { pool.use("b"); }',
      want: { kind: 'pool', pool: 'b', node: null },
    },
    {
      name: '!= and ! negate',
      rule: 'if (!(http.getPath() != "/cart/items")) { connection.discard(); }',
      want: { kind: 'discard' },
    },
    {
      name: 'headers, query string and concatenation',
      rule: 'http.sendResponse("200 OK", "text/plain", http.getHeader("X-User") . "#" . http.getQueryString(), "");',
      want: { kind: 'response', status: '200 OK', contentType: 'text/plain', body: 'ann#id=7', headers: '' },
    },
    {
      name: 'a # inside a string is not a comment',
      rule: 'http.redirect("/a#b"); # trailing comment',
      want: { kind: 'redirect', location: '/a#b' },
    },
  ];
  for (const c of cases) test(c.name, () => assert.deepEqual(runTrafficScript(c.rule, request), c.want));

  test('unknown functions and broken syntax are refused with TrafficScriptError', () => {
    for (const rule of [
      'net.dns.resolve("x");',
      'if (1 { }',
      '$x = "unterminated;',
      '$x = "a" "b";',
      'string.regexMatch("a", "(");',
    ]) {
      assert.throws(() => runTrafficScript(rule, request), TrafficScriptError, rule);
    }
  });
});
