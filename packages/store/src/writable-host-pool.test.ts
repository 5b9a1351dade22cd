import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitHostList } from './writable-host-pool.ts';

test('a multi-host URL becomes one URL per host, asking no session attribute of its own', () => {
  assert.deepEqual(
    splitHostList('postgres://portolan:pw@10.0.0.1:5432,10.0.0.2:5433/portolan?target_session_attrs=read-write'),
    ['postgres://portolan:pw@10.0.0.1:5432/portolan', 'postgres://portolan:pw@10.0.0.2:5433/portolan'],
  );
  assert.deepEqual(splitHostList('postgresql://a,b/db?sslmode=disable&target_session_attrs=read-write&x=1'), [
    'postgresql://a/db?sslmode=disable&x=1',
    'postgresql://b/db?sslmode=disable&x=1',
  ]);
});

test('a one-host URL is left to node-postgres as it is', () => {
  assert.equal(splitHostList('postgres://portolan@127.0.0.1:15432/portolan'), null);
  assert.equal(splitHostList('postgres:///portolan?host=/var/run/postgresql'), null);
});
