import { test } from 'node:test';
import assert from 'node:assert/strict';
import { portableRegexProblem } from './portable-regex.ts';

test('the portable subset accepts what every engine reads alike', () => {
  const accepted = [
    '^[234][0-9][0-9]$',
    '^(200|301)$',
    '^2\\d\\d$',
    'ok',
    '^$',
    '(?:a|b)+c*?',
    'a{2}',
    'a{2,}',
    'a{2,5}?',
    '[a-zA-Z_-]',
    '[-a]',
    '[a-]',
    '[^x]',
    '\\.\\*\\[\\]\\{\\}\\(\\)\\|\\?\\+\\^\\$\\\\\\/',
    '\\bword\\B',
    '[\\d\\s.]',
    '[\\]]',
    'a.b',
    '^HTTP/1\\.[01] 200',
    '',
  ];
  for (const p of accepted) assert.equal(portableRegexProblem(p), null, p);
});

test('the portable subset refuses what the appliance would refuse or read differently, saying where and why', () => {
  const refused: [pattern: string, reason: RegExp][] = [
    ['^2[^]0$', /empty character class .* at position 2/],
    ['^\\u0032', /escape "\\u" .* at position 1/],
    ['(?<=a+)b', /only plain "\(\.\.\.\)" and "\(\?:\.\.\.\)" groups/],
    ['(?=a)', /only plain/],
    ['(?<name>a)', /only plain/],
    ['(a)\\1', /escape "\\1"/],
    ['\\x41', /escape "\\x"/],
    ['\\p{L}', /escape "\\p"/],
    ['[[:alpha:]]', /"\[" inside a class/],
    ['[]', /empty character class/],
    ['[a', /unclosed character class/],
    ['(a', /unclosed group/],
    ['a)', /unexpected "\)"/],
    ['*a', /nothing to repeat/],
    ['a**', /cannot follow another/],
    ['a++', /possessive/],
    ['a{2,1}', /out of order/],
    ['a{5000}', /above 1000/],
    ['a{x}', /repeat count/],
    ['^*', /anchor cannot be repeated/],
    ['b\\b*?\\w|', /assertion cannot be repeated/],
    ['\\B{2}', /assertion cannot be repeated/],
    ['[=9b=]$', /reads as POSIX syntax/],
    ['[:ab:]', /reads as POSIX syntax/],
    ['[.a.]', /reads as POSIX syntax/],
    ['[z-a]', /out of order/],
    ['[\\d-z]', /must be escaped/],
    ['a]', /must be escaped/],
    ['a}', /must be escaped/],
    ['é', /printable ASCII/],
    ['a\\', /trailing backslash/],
  ];
  for (const [p, reason] of refused) assert.match(portableRegexProblem(p) ?? 'accepted', reason, p);
});
