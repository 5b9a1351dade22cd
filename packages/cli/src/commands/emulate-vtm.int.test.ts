import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { test } from 'node:test';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'portolan.js');

test('`portolan emulate vtm` serves the REST API until SIGTERM', async () => {
  const child = spawn(process.execPath, [BIN, 'emulate', 'vtm', '--port', '0', '--password', 'pw', '--strict'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no address printed; got: ${out}`)), 15_000);
      child.stdout.on('data', () => {
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m?.[1] !== undefined) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
      child.once('exit', () => reject(new Error(`exited early: ${out}`)));
    });
    const auth = { authorization: `Basic ${Buffer.from('admin:pw').toString('base64')}` };
    const versions = await fetch(`${url}/api/tm`, { headers: auth });
    assert.deepEqual(await versions.json(), { children: [{ name: '8.3', href: '/api/tm/8.3/' }] });
    const dangling = await fetch(`${url}/api/tm/8.3/config/active/virtual_servers/v`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ properties: { basic: { pool: 'none', port: 80 } } }),
    });
    assert.equal(dangling.status, 400, '--strict is honoured');
    assert.equal((await fetch(`${url}/api/tm`)).status, 401);
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});

test('`portolan emulate vtm` without a password is a usage error', async () => {
  const child = spawn(process.execPath, [BIN, 'emulate', 'vtm', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  assert.equal(code, 2);
  assert.match(err, /exactly one of --password and --password-file/);
});
