import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { MapEntry } from './haproxy-bundle.ts';
import { MAX_MAP_EDITS, mapEdit } from './map-edit.ts';

const e = (k: string, v: string): MapEntry => [k, v];

test('a few changed keys become entry edits; many, or a key held twice, a whole new map version', () => {
  const have = [e('a.test/', 'http:a'), e('b.test/', 'http:b'), e('c.test/', 'http:c')];
  assert.deepEqual(mapEdit(have, [...have, e('d.test/', 'spare:http:1')]), {
    add: [e('d.test/', 'spare:http:1')],
    set: [],
    del: [],
  });
  assert.deepEqual(mapEdit(have, [e('a.test/', 'http:a'), e('b.test/', 'http:x')]), {
    add: [],
    set: [e('b.test/', 'http:x')],
    del: ['c.test/'],
  });
  assert.deepEqual(mapEdit(have, have), { add: [], set: [], del: [] }, 'equal maps: nothing to send');
  const many = Array.from({ length: MAX_MAP_EDITS + 1 }, (_, i) => e(`n${String(i).padStart(3, '0')}/`, 'http:n'));
  assert.equal(mapEdit(have, [...have, ...many]), null);
  assert.equal(mapEdit([e('a/', 'x'), e('a/', 'y')], [e('a/', 'x')]), null);
});
