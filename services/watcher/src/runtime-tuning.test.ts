import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tunedExecution, WATCHER_NODE_FLAGS, WATCHER_RUNTIME_ENV } from './runtime-tuning.ts';

test('the tuned watcher gets our flags first (so flags given to Node win), the same arguments and a compile cache', () => {
  const { argv, env } = tunedExecution(
    '/srv/watcher/src/main.ts',
    ['--config', 'f.yaml', '--cluster', 'edge'],
    ['--max-old-space-size=512'],
    { PATH: '/bin', UNSET: undefined },
  );
  assert.deepEqual(argv.slice(1), [
    ...WATCHER_NODE_FLAGS,
    '--max-old-space-size=512',
    '/srv/watcher/src/main.ts',
    '--config',
    'f.yaml',
    '--cluster',
    'edge',
  ]);
  assert.equal(argv[0], process.execPath);
  assert.equal(env[WATCHER_RUNTIME_ENV], 'tuned', 'the replacement does not exec again');
  assert.equal(env['PATH'], '/bin');
  assert.ok(!('UNSET' in env));
  assert.ok((env['NODE_COMPILE_CACHE'] ?? '') !== '', 'a compile cache spares the TypeScript stripper');
});

test('settings the operator made are kept', () => {
  const { env } = tunedExecution('main.ts', [], [], { NODE_COMPILE_CACHE: '/var/cache/node', MALLOC_ARENA_MAX: '4' });
  assert.equal(env['NODE_COMPILE_CACHE'], '/var/cache/node');
  assert.equal(env['MALLOC_ARENA_MAX'], '4');
});
