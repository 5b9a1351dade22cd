import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'portolan.js');

test('`portolan emulate loadmaster` serves v1 and v2 over one state until SIGTERM', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lm-cli-'));
  writeFileSync(join(dir, 'pw'), 'portolan\n');
  const child = spawn(
    process.execPath,
    [BIN, 'emulate', 'loadmaster', '--port', '0', '--password-file', join(dir, 'pw'), '--http'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
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
    const auth = { authorization: `Basic ${Buffer.from('bal:portolan').toString('base64')}` };
    assert.equal(
      (await fetch(`${url}/access/addvs?vs=10.0.0.4&port=80&prot=tcp&nickname=demo`, { headers: auth })).status,
      200,
    );
    const shown = await fetch(`${url}/accessv2`, {
      method: 'POST',
      body: JSON.stringify({
        cmd: 'showvs',
        vs: '10.0.0.4',
        port: 80,
        prot: 'tcp',
        apiuser: 'bal',
        apipass: 'portolan',
      }),
    });
    assert.equal(((await shown.json()) as Record<string, unknown>)['NickName'], 'demo');
    assert.equal((await fetch(`${url}/access/listvs`)).status, 401);
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('`portolan emulate loadmaster` without a port is a usage error', async () => {
  const child = spawn(process.execPath, [BIN, 'emulate', 'loadmaster', '--password', 'x'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  assert.equal(code, 2);
  assert.match(err, /--port <0-65535> is required/);
});
