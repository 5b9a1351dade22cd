import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseTokenFile, type TokenFileParse } from './token-file.ts';

type Want = { users: Record<string, { name: string; uid: string; groups: string[] }> } | { reason: RegExp };

function simplify(parsed: TokenFileParse): { users: Record<string, unknown> } | string {
  return parsed.ok ? { users: Object.fromEntries(parsed.users) } : parsed.reason;
}

const cases: { name: string; text: string; want: Want }[] = [
  {
    name: 'quoted groups, a record without groups, CRLF and blank lines',
    text: 'a,alice,1,"g1,g2"\r\n\r\nb,bob,2\n',
    want: { users: { a: { name: 'alice', uid: '1', groups: ['g1', 'g2'] }, b: { name: 'bob', uid: '2', groups: [] } } },
  },
  {
    name: 'an unquoted single group, no final newline, doubled quotes inside a quoted field',
    text: 'a,alice,1,system:masters\nb,"bob ""the"" builder",2',
    want: {
      users: {
        a: { name: 'alice', uid: '1', groups: ['system:masters'] },
        b: { name: 'bob "the" builder', uid: '2', groups: [] },
      },
    },
  },
  {
    name: 'an empty token is skipped; a repeated token keeps its last record; fields are not trimmed',
    text: ',nobody,0\na,first,1\na, last,2\n',
    want: { users: { a: { name: ' last', uid: '2', groups: [] } } },
  },
  {
    name: 'an empty fourth field is one empty group; a trailing comma opens an empty fifth field',
    text: 'a,alice,1,\nb,bob,2,x,\n',
    want: { users: { a: { name: 'alice', uid: '1', groups: [''] }, b: { name: 'bob', uid: '2', groups: ['x'] } } },
  },
  {
    name: 'fewer than three columns is refused, comments included',
    text: 'a,alice,1\n# tokens\n',
    want: { reason: /^must have at least 3 columns \(token, user name, user uid\), found 1$/ },
  },
  { name: 'a bare quote is refused', text: 'a,al"ice,1\n', want: { reason: /line 1: bare " in non-quoted-field/ } },
  {
    name: 'an unterminated quoted field is refused, at the line it starts',
    text: 'a,alice,1\nb,"bob,2\n',
    want: { reason: /line 2: extraneous or missing " in quoted-field/ },
  },
  {
    name: 'text after a closing quote is refused',
    text: 'a,"alice"x,1\n',
    want: { reason: /line 1: extraneous or missing " in quoted-field/ },
  },
];

describe('parseTokenFile reads --token-auth-file as kube-apiserver does', () => {
  for (const c of cases)
    it(c.name, () => {
      const got = simplify(parseTokenFile(c.text));
      if ('reason' in c.want) {
        assert.equal(typeof got, 'string', JSON.stringify(got));
        assert.match(got as string, c.want.reason);
      } else assert.deepEqual(got, c.want);
    });
});
