import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { HaproxyRuntimeClient } from './haproxy-runtime-client.ts';

// HAProxy cannot be made to split its replies at chosen bytes; a scripted peer speaking the same prompt-mode
// framing can. Each reply is "<text>\n" + "\n> " (empty replies: just "\n> "); payload lines echo "+ ".
test('replies are framed correctly however the bytes are split, including prompts straddling chunks', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portolan-rt-'));
  const socketPath = path.join(dir, 'rt.sock');
  const big = 'x'.repeat(200_000);
  const wire = ['\n> ', 'one\n\n> ', '\n> ', `+ + Transaction created\n\n> `, `${big}\nend\n\n> `].join('');
  const server = net.createServer((conn) => {
    conn.once('data', async () => {
      for (let i = 0; i < wire.length;) {
        const size = i < 40 ? 1 : 65_536; // byte by byte across the small replies, then big chunks
        conn.write(wire.slice(i, i + size));
        i += size;
        await new Promise((r) => setImmediate(r));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  const client = new HaproxyRuntimeClient(socketPath, { timeoutMs: 5_000 });
  try {
    const replies = await client.execute(['a', 'b', 'c <<\nl1\nl2\n', 'd']);
    assert.deepEqual(replies.slice(0, 3), ['one', '', 'Transaction created']);
    assert.equal(replies[3], `${big}\nend`);
  } finally {
    await client.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
