import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareHostnameSpecificity, intersectHostnames, listenerServes } from './hostnames.ts';

test('a wildcard listener serves any depth under its suffix, never the suffix itself', () => {
  assert.equal(listenerServes('*.example.com', 'a.example.com'), true);
  assert.equal(listenerServes('*.example.com', 'a.b.example.com'), true);
  assert.equal(listenerServes('*.example.com', 'example.com'), false);
  assert.equal(listenerServes('*.example.com', 'aexample.com'), false);
  assert.equal(listenerServes('', 'anything.test'), true);
  assert.equal(listenerServes('a.example.com', 'b.example.com'), false);
});

test('route and listener hostnames intersect to the more specific of each matching pair', () => {
  const cases: [string, string[], string[]][] = [
    // listener, route hostnames, served
    ['', [], ['']],
    ['', ['b.test', 'a.test', 'a.test'], ['a.test', 'b.test']],
    ['foo.example.com', [], ['foo.example.com']],
    ['foo.example.com', ['foo.example.com', 'bar.example.com'], ['foo.example.com']],
    ['foo.example.com', ['*.example.com'], ['foo.example.com']],
    ['foo.example.com', ['*.other.com'], []],
    ['*.example.com', ['foo.example.com', 'x.y.example.com', 'example.com'], ['foo.example.com', 'x.y.example.com']],
    ['*.example.com', ['*.example.com'], ['*.example.com']],
    ['*.example.com', ['*.foo.example.com'], ['*.foo.example.com']],
    ['*.foo.example.com', ['*.example.com'], ['*.foo.example.com']],
    ['*.example.com', ['*.example.org'], []],
    ['*.example.com', ['*.com'], ['*.example.com']],
  ];
  for (const [listener, route, want] of cases)
    assert.deepEqual(intersectHostnames(listener, route), want, `${listener} ∩ ${JSON.stringify(route)}`);
});

test('specificity: exact names, then longer wildcards, then any host', () => {
  const hosts = ['', '*.com', 'b.example.com', '*.example.com', 'a.example.com', '*.a.example.com'];
  assert.deepEqual(hosts.sort(compareHostnameSpecificity), [
    'a.example.com',
    'b.example.com',
    '*.a.example.com',
    '*.example.com',
    '*.com',
    '',
  ]);
});
