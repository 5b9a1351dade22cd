import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLeaseStoreAddress } from './lease-store-address.ts';

test('a plain Redis URL is passed through; a Sentinel URL names every Sentinel and the master', () => {
  assert.deepEqual(parseLeaseStoreAddress('redis://127.0.0.1:16379'), {
    ok: true,
    address: { type: 'redis', url: 'redis://127.0.0.1:16379' },
  });
  assert.deepEqual(parseLeaseStoreAddress('redis-sentinel://s1:26379,s2:26380,s3/leases'), {
    ok: true,
    address: {
      type: 'sentinel',
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26380 },
        { host: 's3', port: 26379 },
      ],
      name: 'leases',
    },
  });
});

test('a Sentinel URL without a master name or with a bad port is refused as data', () => {
  const cases: [string, string][] = [
    ['redis-sentinel://s1:26379', 'NoMasterName'],
    ['redis-sentinel://s1:26379/', 'NoMasterName'],
    ['redis-sentinel://s1:x/leases', 'BadSentinel'],
    ['redis-sentinel://:26379/leases', 'BadSentinel'],
    ['redis-sentinel://s1:70000/leases', 'BadSentinel'],
  ];
  for (const [text, reason] of cases) {
    const r = parseLeaseStoreAddress(text);
    assert.equal(r.ok ? 'ok' : r.problem.reason, reason, text);
  }
});
