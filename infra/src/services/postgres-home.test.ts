import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Stats } from 'node:fs';
import { canTraverse, postgresHome, RELOCATED_ROOT } from './postgres-home.ts';

const postgres = { uid: 108, gid: 115 };
/** A fake file system: folder → (owner uid, group gid, mode). */
const fs =
  (modes: Record<string, [number, number, number]>) =>
  (p: string): Stats => {
    const [uid, gid, mode] = modes[p] ?? [0, 0, 0o755];
    return { uid, gid, mode } as Stats;
  };

test('a folder is reachable only when every folder above it grants search to that user', () => {
  const root0700 = fs({ '/root': [0, 0, 0o700] });
  assert.equal(canTraverse('/root/portolan/.portolan', postgres, root0700), false);
  assert.equal(canTraverse('/home/dev/portolan', postgres, fs({ '/home/dev': [1000, 1000, 0o751] })), true);
  assert.equal(canTraverse('/srv/p', postgres, fs({ '/srv': [0, 115, 0o750] })), true, 'group search suffices');
  assert.equal(canTraverse('/srv/p', postgres, fs({ '/srv': [108, 0, 0o600] })), false, 'owner without search');
});

test('Postgres data stays in the state folder when reachable, else moves to a stable folder of its own', () => {
  const reachable = fs({});
  assert.equal(postgresHome('/srv/p/.portolan/stack', postgres, reachable), '/srv/p/.portolan/stack/postgres');
  assert.equal(postgresHome('/root/p/.portolan/stack', undefined), '/root/p/.portolan/stack/postgres', 'not root');
  const home0700 = fs({ '/root': [0, 0, 0o700] });
  const moved = postgresHome('/root/p/.portolan/stack', postgres, home0700);
  assert.match(moved, new RegExp(`^${RELOCATED_ROOT}/postgres-[0-9a-f]{12}$`));
  assert.equal(
    postgresHome('/root/p/.portolan/stack', postgres, home0700),
    moved,
    'the same state folder, the same home',
  );
  assert.notEqual(postgresHome('/root/q/.portolan/stack', postgres, home0700), moved, 'another checkout, another home');
});
