import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { noChallenges, pendingChallenges, withOrderChallenges } from './challenge-set.ts';
import { nextPassDelayMs } from './next-pass-delay.ts';

const c = (token: string, host = 'a.example.com') => ({ token, keyAuthorization: `${token}.thumb`, host });

describe('challenge set', () => {
  test('orders add and remove their own challenges; the union is sorted by token', () => {
    let set = withOrderChallenges(noChallenges, 'c1/shop/b-tls', [c('tz'), c('tb')]);
    set = withOrderChallenges(set, 'c1/shop/a-tls', [c('ta')]);
    assert.deepEqual(
      pendingChallenges(set).map((x) => x.token),
      ['ta', 'tb', 'tz'],
    );
    set = withOrderChallenges(set, 'c1/shop/b-tls', []);
    assert.deepEqual(
      pendingChallenges(set).map((x) => x.token),
      ['ta'],
    );
    assert.equal(pendingChallenges(noChallenges).length, 0, 'the shared empty set is never changed');
  });

  test('a token two orders share is answered once, by the first order key', () => {
    const set = withOrderChallenges(withOrderChallenges(noChallenges, 'z', [c('t', 'z.example.com')]), 'a', [
      c('t', 'a.example.com'),
    ]);
    assert.deepEqual(
      pendingChallenges(set).map((x) => x.host),
      ['a.example.com'],
    );
  });
});

describe('nextPassDelayMs', () => {
  const bounds = { minMs: 1_000, maxMs: 3_600_000 };
  const cases = [
    { name: 'sleeps until the next check', next: 60_000, want: 60_000 },
    { name: 'a check in the past runs after the minimum, not in a tight loop', next: -5_000, want: 1_000 },
    { name: 'a far check still wakes up after the maximum', next: 40 * 86_400_000, want: 3_600_000 },
    { name: 'nothing scheduled: the maximum', next: null, want: 3_600_000 },
  ];
  for (const k of cases) test(k.name, () => assert.equal(nextPassDelayMs(k.next, 0, bounds), k.want));
});
