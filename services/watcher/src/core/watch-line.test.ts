import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeListPage, decodeWatchLine, LineSplitter } from './watch-line.ts';

test('watch lines decode to events, bookmarks and in-stream errors; anything else is garbled, never dropped', () => {
  const obj = { metadata: { name: 'x', namespace: 'a', uid: 'u', resourceVersion: '7' } };
  assert.deepEqual(decodeWatchLine(JSON.stringify({ type: 'MODIFIED', object: obj })), {
    type: 'MODIFIED',
    object: obj,
    resourceVersion: '7',
  });
  assert.deepEqual(
    decodeWatchLine('{"type":"BOOKMARK","object":{"kind":"Ingress","metadata":{"resourceVersion":"12"}}}'),
    { type: 'BOOKMARK', resourceVersion: '12' },
  );
  assert.deepEqual(
    decodeWatchLine(
      '{"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired","message":"too old resource version: 1 (5)"}}',
    ),
    { type: 'ERROR', code: 410, reason: 'Expired', message: 'too old resource version: 1 (5)' },
  );
  for (const bad of [
    '{"type":"MODIFIED","object":{"kind":"Garbled","metadata":{"name":',
    '[]',
    '{"type":"ADDED"}',
    '{"type":"ADDED","object":{"metadata":{}}}',
    '{"type":"RENAMED","object":{"metadata":{"resourceVersion":"1"}}}',
  ]) {
    assert.equal(decodeWatchLine(bad).type, 'garbled', bad);
  }
});

test('the line splitter joins chunks split anywhere and reports a truncated tail', () => {
  const s = new LineSplitter();
  assert.deepEqual(s.push('{"a":1}\n{"b"'), ['{"a":1}']);
  assert.deepEqual(s.push(':2}\n\n'), ['{"b":2}']);
  assert.deepEqual(s.push('{"c":'), []);
  assert.equal(s.rest(), '{"c":');
});

test('list pages carry items, the list resourceVersion and the continue token', () => {
  assert.deepEqual(decodeListPage({ items: [1], metadata: { resourceVersion: '9', continue: 'tok' } }), {
    ok: true,
    items: [1],
    resourceVersion: '9',
    continueToken: 'tok',
  });
  assert.deepEqual(decodeListPage({ items: null, metadata: { resourceVersion: '9', continue: '' } }), {
    ok: true,
    items: [],
    resourceVersion: '9',
    continueToken: undefined,
  });
  assert.equal(decodeListPage({ items: [] }).ok, false);
});
