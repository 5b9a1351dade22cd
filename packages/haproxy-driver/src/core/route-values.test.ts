import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { regexProblem } from '@portolan/routing';
import { HaproxyRouteRefusedError } from '../errors.ts';
import { gatewayRoute } from '../testing/desired-fixtures.ts';
import { configWords } from '../testing/config-words.ts';
import { anchoredRegex, configWord, logFormatWord, requireHostname, requireName, requirePath } from './route-values.ts';

const route = gatewayRoute('shop.test', '/x', 'Prefix', 'web', 0);
const refused = (fn: () => unknown, reason: RegExp): void =>
  assert.throws(fn, (e: unknown) => e instanceof HaproxyRouteRefusedError && reason.test(e.message));

test('a config word carries any text without control characters verbatim, as one word HAProxy does not interpret', () => {
  const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) });
  fc.assert(
    fc.property(printable, fc.string({ unit: 'grapheme' }), (text, unicode) => {
      const value = text + unicode.replace(/[\x00-\x1f\x7f]/g, '');
      const line = `acl x path -m str -- ${configWord(route, 'path', value)} if y`;
      assert.deepEqual(configWords(line), ['acl', 'x', 'path', '-m', 'str', '--', value, 'if', 'y']);
    }),
  );
});

test('hostile words stay one word: quotes, $VAR, comments, backslashes and braces are data', () => {
  for (const value of ["a' if TRUE", '$HOME', '${X}', '# comment', 'a\\', '"q"', '} { always_true', "'", "''"]) {
    assert.deepEqual(configWords(`w ${configWord(route, 'v', value)} z`), ['w', value, 'z'], value);
  }
});

test('control characters are refused, never written: a newline would start a new directive', () => {
  for (const value of ['a\nhttp-request deny', 'a\rb', 'a\x00', 'tab\there', '\x7f']) {
    refused(() => configWord(route, 'header value', value), /header value contains a control character/);
  }
});

test('a log-format word doubles % so user text cannot evaluate a sample expression', () => {
  assert.deepEqual(configWords(logFormatWord(route, 'v', '50%[src]%%')), ['50%%[src]%%%%']);
});

test('names are tokens without quote, $, %, # or separators, and cannot read as an option', () => {
  for (const name of ['x-env', 'X_Trace.ID', 'a~b', 'v1']) assert.equal(requireName(route, 'header', name), name);
  for (const name of ['', '-m', 'a b', 'a,b', 'a)', "it's", 'x$y', 'a%20', 'a#', 'é']) {
    refused(() => requireName(route, 'header', name), /is not a supported name/);
  }
});

test('paths must be absolute without whitespace or backslashes; hostnames must be DNS names', () => {
  assert.equal(requirePath(route, 'path', "/it's/50%25"), "/it's/50%25");
  for (const path of ['relative', '/a b', '/a\\1', '/a\nb', ''])
    refused(() => requirePath(route, 'p', path), /absolute/);
  assert.equal(requireHostname(route, 'h', 'Example.org'), 'Example.org');
  for (const host of ['', 'a..b', '-a.b', 'a.b:80', 'a/b', '%[src]', 'a b']) {
    refused(() => requireHostname(route, 'h', host), /is not a hostname/);
  }
});

test('a refusal names the route: its source object, host and path', () => {
  assert.throws(
    () => configWord(route, 'header value', 'a\nb'),
    (e: unknown) =>
      e instanceof HaproxyRouteRefusedError &&
      e.code === 'HAPROXY_ROUTE_REFUSED' &&
      e.source.name === 'web-route' &&
      e.message.includes('HTTPRoute c1/default/web-route') &&
      e.message.includes('"shop.test" "/x"'),
  );
});

const regexTable: { re: string; problem: RegExp | null }[] = [
  { re: '/foo/[0-9]+', problem: null },
  { re: '/(a|b)*/x?', problem: null },
  { re: '[[:alpha:]]+', problem: null },
  { re: '[]a]|[^]a]', problem: null },
  { re: 'a\\.b[\\/]', problem: null },
  { re: '[()]', problem: null }, // parentheses inside brackets are members
  { re: 'a)|(b', problem: /unbalanced \)/ }, // would escape the ^(?:…)$ wrapper
  { re: '(a', problem: /unbalanced \(/ },
  { re: '(?i)admin', problem: /\(\? is not POSIX/ },
  { re: '(*ACCEPT)', problem: /\(\* is not POSIX/ },
  { re: '\\Q)$', problem: /\\Q is not a POSIX escape/ },
  { re: '\\d+', problem: /\\d is not a POSIX escape/ },
  { re: 'a*+a', problem: /possessive/ },
  { re: '[a', problem: /unclosed \[/ },
  { re: '[\\]', problem: /unclosed \[/ },
  { re: '[\\d]', problem: /backslash escapes in brackets/ },
  { re: '[[.a.]]', problem: /collating/ },
  { re: '[[:alpha]', problem: /unclosed \[:class:\]/ },
  { re: 'x\\', problem: /ends with a backslash/ },
  { re: 'a\nb', problem: /control character/ },
];

for (const { re, problem } of regexTable) {
  test(`regex ${JSON.stringify(re)}: ${problem === null ? 'accepted' : `refused (${problem.source})`}`, () => {
    const found = regexProblem(re);
    if (problem === null) assert.equal(found, null);
    else assert.match(found ?? '', problem);
  });
}

test('an accepted regex is anchored to the whole subject in a non-capturing group, as one word', () => {
  assert.deepEqual(configWords(anchoredRegex(route, 'path regex', "/it's/(a|b)$")), ["^(?:/it's/(a|b)$)$"]);
  refused(() => anchoredRegex(route, 'path regex', '.*)|(x'), /path regex ".*\)\|\(x": unbalanced \)/);
});
