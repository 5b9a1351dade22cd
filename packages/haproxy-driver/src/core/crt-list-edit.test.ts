import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crtListEdit } from './crt-list-edit.ts';

const a = '/c/certs/a.pem a.test';
const b = '/c/certs/b.pem b.test';
const b2 = '/c/certs/b.pem b.test www.b.test';
const c = '/c/certs/c.pem c.test';

test('crt-list lines after the default certificate change at runtime; anything else needs a reload', () => {
  const cases: { name: string; have: string | null; want: string; edit: ReturnType<typeof crtListEdit> }[] = [
    { name: 'a line added', have: `${a}\n${b}\n`, want: `${a}\n${b}\n${c}\n`, edit: { remove: [], add: [c] } },
    { name: 'a line removed', have: `${a}\n${b}\n${c}\n`, want: `${a}\n${c}\n`, edit: { remove: [b], add: [] } },
    {
      name: 'new filters: removed, then added',
      have: `${a}\n${b}\n`,
      want: `${a}\n${b2}\n`,
      edit: { remove: [b], add: [b2] },
    },
    { name: 'a crt-list HAProxy has not loaded', have: null, want: `${a}\n`, edit: null },
    { name: 'another default certificate', have: `${a}\n${b}\n`, want: `${b}\n${a}\n`, edit: null },
    { name: 'one certificate on two lines', have: `${a}\n`, want: `${a}\n${b}\n${b2}\n`, edit: null },
  ];
  for (const x of cases) assert.deepEqual(crtListEdit(x.have, x.want), x.edit, x.name);
});
