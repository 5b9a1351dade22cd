import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  MAX_COMMAND_BYTES,
  fillAndCommitMapCommands,
  preparedVersion,
  serverCommands,
  setCertificateCommands,
} from './runtime-commands.ts';
import { fromOperation, toOperation, type HaproxyOperation } from './haproxy-operations.ts';

test('filling a slot sets address and weight before making it ready; freeing it only sets maintenance', () => {
  assert.deepEqual(
    serverCommands('http:web', { name: 's2', address: '10.0.0.5', port: 8080, state: 'ready', weight: 3 }).map(
      (c) => c.text,
    ),
    [
      'set server http:web/s2 addr 10.0.0.5 port 8080',
      'set server http:web/s2 weight 3',
      'set server http:web/s2 state ready',
    ],
  );
  assert.deepEqual(
    serverCommands('http:web', { name: 's2', address: '127.0.0.1', port: 1, state: 'maint', weight: 1 }).map(
      (c) => c.text,
    ),
    ['set server http:web/s2 state maint'],
  );
  const [addr] = serverCommands('b', { name: 's1', address: 'x', port: 1, state: 'ready', weight: 1 });
  assert.equal(
    addr?.accepts(
      "IP changed from '127.0.0.1' to '10.0.0.5', port changed from '1' to '8080' by 'stats socket command'",
    ),
    true,
  );
  assert.equal(addr?.accepts("Invalid addr 'x' by 'stats socket command'"), false);
});

test('map payloads are split into chunks HAProxy can buffer, then committed once', () => {
  const entries = Array.from(
    { length: 2000 },
    (_, i) => [`host-${i}.example.test/some/path/${i}/`, `http:backend-${i}`] as const,
  );
  const commands = fillAndCommitMapCommands('/d/maps/x.map', 7, entries);
  assert.ok(commands.length > 2);
  for (const c of commands) assert.ok(c.text.length <= MAX_COMMAND_BYTES, `${c.text.length} bytes`);
  assert.equal(commands.at(-1)?.text, 'commit map @7 /d/maps/x.map');
  const lines = commands.slice(0, -1).flatMap((c) =>
    c.text
      .split('\n')
      .slice(1)
      .filter((l) => l !== ''),
  );
  assert.deepEqual(
    lines,
    entries.map(([k, v]) => `${k} ${v}`),
  );
  assert.equal(preparedVersion('New version created: 12'), 12);
  assert.deepEqual(
    fillAndCommitMapCommands('/m', 3, []).map((c) => c.text),
    ['commit map @3 /m'],
  );
});

test('a certificate command carries the PEM but its log form does not', () => {
  const [set, commit] = setCertificateCommands(
    '/d/certs/a.pem',
    '-----BEGIN CERTIFICATE-----\r\nAAA\n\n-----END CERTIFICATE-----\n',
  );
  assert.equal(
    set?.text,
    'set ssl cert /d/certs/a.pem <<\n-----BEGIN CERTIFICATE-----\nAAA\n-----END CERTIFICATE-----\n',
  );
  assert.equal(set?.redacted?.includes('BEGIN'), false);
  assert.equal(commit?.accepts('Committing /d/certs/a.pem.\nSuccess!'), true);
});

test('operations survive the round trip through the apply log (JSON) unchanged', () => {
  const ops: HaproxyOperation[] = [
    {
      kind: 'server',
      backend: 'http:web',
      slot: { name: 's1', address: '10.0.0.1', port: 80, state: 'drain', weight: 2 },
    },
    { kind: 'map', path: 'maps/a.map', entries: [['a/', 'http:x']] },
    {
      kind: 'ssl-cert',
      certificate: {
        path: 'certs/a.pem',
        fingerprint: 'f',
        secret: { cluster: 'c', kind: 'Secret', namespace: 'n', name: 's' },
      },
    },
    { kind: 'file', file: { path: 'haproxy.cfg', content: 'global\n' } },
    {
      kind: 'reload',
      reasons: ['r'],
      files: [{ path: 'haproxy.cfg', content: 'x' }],
      certificates: [],
      backends: [{ name: 'b', slots: [] }],
    },
  ];
  for (const op of ops) assert.deepEqual(fromOperation(JSON.parse(JSON.stringify(toOperation(op)))), op);
  assert.equal(
    fromOperation({ objectType: 'pools', objectName: 'x', action: 'update', payload: {}, summary: '' }),
    null,
  );
  assert.equal(
    fromOperation({ objectType: 'server', objectName: 'x', action: 'update', payload: { backend: 1 }, summary: '' }),
    null,
  );
});
