import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ObjectLedger } from './object-ledger.ts';

const obj = (namespace: string, name: string, uid: string, resourceVersion: string) => ({
  namespace,
  name,
  uid,
  resourceVersion,
});

test('a relist with no change asks for nothing; a changed or recreated object is MODIFIED; a new one ADDED', () => {
  const l = new ObjectLedger();
  assert.equal(l.observeListItem(obj('a', 'x', 'u1', '5')), 'ADDED');
  assert.equal(l.observeListItem(obj('a', 'x', 'u1', '5')), null, 'same uid and version: nothing to publish');
  assert.equal(l.observeListItem(obj('a', 'x', 'u1', '7')), 'MODIFIED');
  assert.equal(l.observeListItem(obj('a', 'x', 'u2', '7')), 'MODIFIED', 'recreated under the same name');
  // Versions are opaque: an "older looking" version is still a change, never ignored by ordering.
  assert.equal(l.observeListItem(obj('a', 'x', 'u2', '10')), 'MODIFIED');
  assert.equal(l.observeListItem(obj('a', 'x', 'u2', '9')), 'MODIFIED');
});

test('a republishing relist publishes even what the ledger says was published, and keeps the ledger', () => {
  const l = new ObjectLedger();
  assert.equal(l.observeListItem(obj('a', 'x', 'u1', '5')), 'ADDED');
  assert.equal(l.observeListItem(obj('a', 'x', 'u1', '5'), true), 'MODIFIED', 'the broker may have lost it');
  assert.equal(l.observeListItem(obj('a', 'y', 'u2', '6'), true), 'ADDED', 'a new object is still ADDED');
  assert.equal(l.observeListItem(obj('a', 'x', 'u1', '5')), null, 'an ordinary list again publishes nothing');
  assert.equal(l.size, 2);
});

test('watch events repeating what was published are skipped; deletes of unknown objects too', () => {
  const l = new ObjectLedger();
  assert.equal(l.observeWatchEvent('ADDED', obj('a', 'x', 'u1', '5')), true);
  assert.equal(l.observeWatchEvent('MODIFIED', obj('a', 'x', 'u1', '5')), false);
  assert.equal(l.observeWatchEvent('DELETED', obj('a', 'x', 'u1', '6')), true);
  assert.equal(l.observeWatchEvent('DELETED', obj('a', 'x', 'u1', '6')), false);
  assert.equal(l.size, 0);
});

test('removeUnlisted returns the deletes nobody watched, only within the listed scope', () => {
  const l = new ObjectLedger();
  for (const [ns, n] of [
    ['a', 'x'],
    ['a', 'y'],
    ['b', 'z'],
  ] as const)
    l.observeListItem(obj(ns, n, `${ns}${n}`, '1'));
  assert.deepEqual(
    l.removeUnlisted('a', new Set(['a/y'])).map((e) => e.name),
    ['x'],
    "b/z is another stream's",
  );
  assert.deepEqual(l.keys(), ['a/y', 'b/z']);
  assert.deepEqual(
    l.removeUnlisted(undefined, new Set(['a/y'])).map((e) => e.name),
    ['z'],
    'a cluster-wide list covers every namespace',
  );
  assert.deepEqual(l.keys(), ['a/y']);
});
