import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '@portolan/infra';

/** A free TCP port on 127.0.0.1, outside the kernel's ephemeral range (see infra's `freePort`). */
export { freePort };

/** Resolves once something accepts TCP connections on the port. */
export async function waitForPort(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    await sleep(50);
  }
  throw new Error(`nothing listens on 127.0.0.1:${port}`);
}

/** A private nats-server with JetStream (tests whose stream subjects must not collide with other tests'). */
export interface PrivateNats {
  readonly url: string;
  stop(): Promise<void>;
}

/** Starts nats-server -js on a free port with its own store directory. */
export async function startPrivateNats(): Promise<PrivateNats> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'portolan-nats-'));
  const child: ChildProcess = spawn('nats-server', ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir], {
    stdio: 'ignore',
  });
  try {
    await waitForPort(port);
  } catch (e) {
    child.kill('SIGKILL');
    throw e;
  }
  return {
    url: `nats://127.0.0.1:${port}`,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGKILL');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
