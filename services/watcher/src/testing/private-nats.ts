// A private nats-server for tests that kill the broker or need the pipeline's real subjects (tests only).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '@portolan/infra';

/** A nats-server with JetStream on a free port, restartable on the same port and store. */
export interface PrivateNats {
  readonly url: string;
  readonly port: number;
  /** SIGKILLs the server (JetStream store kept). */
  kill(): Promise<void>;
  /** Starts it again on the same port and store; resolves when it accepts connections. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** Starts `/usr/sbin/nats-server -js` on a free port with a temporary store. */
export async function startPrivateNats(): Promise<PrivateNats> {
  const dir = await mkdtemp(path.join(tmpdir(), 'portolan-nats-'));
  const port = await freePort();
  let child: ChildProcess | null = null;
  const start = async (): Promise<void> => {
    child = spawn('/usr/sbin/nats-server', ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir], {
      stdio: 'ignore',
    });
    const deadline = Date.now() + 10_000;
    while (!(await reachable(port))) {
      if (Date.now() > deadline) throw new Error(`nats-server did not start on port ${port}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const kill = async (): Promise<void> => {
    const p = child;
    child = null;
    if (p === null || p.exitCode !== null || p.signalCode !== null) return;
    const exited = new Promise((r) => p.once('exit', r));
    p.kill('SIGKILL');
    await exited;
  };
  await start();
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    kill,
    restart: start,
    close: async () => {
      await kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function reachable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });
}
