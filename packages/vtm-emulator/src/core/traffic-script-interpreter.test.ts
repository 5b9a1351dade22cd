import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runTrafficScript, TrafficScriptError, type RuleOutcome } from './traffic-script-interpreter.ts';
import { newTransaction } from './traffic-script-transaction.ts';

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

  /** The body a rule answers with: the value of `expr` after `setup` ran. */
  const answer = (setup: string, expr: string, over: Partial<typeof request> = {}): string => {
    const outcome = runTrafficScript(`${setup}\nhttp.sendResponse("200 OK", "text/plain", ${expr}, "");`, {
      ...request,
      ...over,
    });
    assert.equal(outcome.kind, 'response');
    return outcome.kind === 'response' ? outcome.body : '';
  };

  test('http.setHeader replaces every field of the name, case-insensitively; later reads see the edit', () => {
    const tx = newTransaction({
      ...request,
      rawHeaders: [
        ['X-A', '1'],
        ['x-a', '2'],
        ['Host', 'h'],
      ],
    });
    runTrafficScript('http.setHeader("x-A", "3");', request, tx);
    assert.deepEqual(tx.headers, [
      ['x-A', '3'],
      ['Host', 'h'],
    ]);
    assert.equal(answer('http.setHeader("X-User", "bob");', 'http.getHeader("x-user")'), 'bob');
  });

  test('http.addHeader adds a field and keeps the existing ones; http.getHeader joins them', () => {
    assert.equal(answer('http.addHeader("X-User", "bob");', 'http.getHeader("X-User")'), 'ann, bob');
    assert.equal(answer('http.addHeader("X-New", "v");', 'http.getHeader("x-new")'), 'v');
  });

  test('http.removeHeader drops every field of the name; http.headerExists reports presence', () => {
    assert.equal(
      answer('http.removeHeader("X-USER");', 'http.getHeader("x-user") . "|" . http.headerExists("x-user")'),
      '|',
    );
    assert.equal(answer('', 'http.headerExists("X-User")'), '1');
  });

  test('http.setPath changes the path and keeps the query string', () => {
    assert.equal(answer('http.setPath("/new");', 'http.getRawURL()'), '/new?id=7');
    assert.equal(answer('http.setPath("/new");', 'http.getRawURL()', { url: '/old' }), '/new');
    assert.equal(answer('http.setHeader("Host", "b.example");', 'http.getHostHeader()'), 'b.example');
  });

  test('string.regexMatch sets $1…$9 to the groups of the first match; unset groups are empty', () => {
    assert.equal(answer('string.regexMatch("a=1&b=2&a=3", "(^|&)a=([^&]*)(x)?");', '$1 . "/" . $2 . "/" . $3'), '/1/');
    assert.equal(answer('$m = string.regexMatch("ABC", "^abc$", "i");', '$m'), '1');
  });

  test('string.urlDecode decodes %XX (UTF-8 too) and keeps + and malformed escapes', () => {
    assert.equal(answer('', 'string.urlDecode("a%20b+c%C3%A9%zz%")'), 'a b+cé%zz%');
    assert.equal(answer('', 'string.replaceAll("a+b+c", "+", " ")'), 'a b c');
    assert.equal(
      answer('', 'string.skip("/foo/bar", 4) . "|" . string.skip("/foo", 4) . "|" . string.len("abc")'),
      '/bar||3',
    );
  });

  test('double-quoted strings interpolate $variables; \\$ is a literal dollar', () => {
    assert.equal(answer('$v = "x";', '"a$v-" . "\\$v" . "$"'), 'ax-$v$');
  });

  test('connection.data carries a value from the request rule to the response rule of the connection', () => {
    const tx = newTransaction(request);
    runTrafficScript('connection.data.set("route", "3");', request, tx);
    tx.response = {
      status: 200,
      headers: [
        ['Server', 'b'],
        ['X-Drop', '1'],
      ],
    };
    const rule = [
      'if (connection.data.get("route") == "3") {',
      '  http.setResponseHeader("server", "vtm"); http.addResponseHeader("X-Add", http.getResponseHeader("Server"));',
      '  http.removeResponseHeader("x-drop");',
      '}',
    ].join('\n');
    assert.deepEqual(runTrafficScript(rule, request, tx, 'response'), { kind: 'none' });
    assert.deepEqual(tx.response.headers, [
      ['server', 'vtm'],
      ['X-Add', 'vtm'],
    ]);
  });

  test('response functions are refused in request rules, pool.use in response rules', () => {
    assert.throws(() => runTrafficScript('http.setResponseHeader("a", "b");', request), TrafficScriptError);
    const tx = newTransaction(request);
    tx.response = { status: 200, headers: [] };
    assert.throws(() => runTrafficScript('pool.use("p");', request, tx, 'response'), TrafficScriptError);
  });
});
