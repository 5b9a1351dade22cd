// Faults the leadership integration tests inject into Redis: a link that silently stops forwarding, and a private
// redis-server without persistence that a test can kill and restart.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LeaderEvent } from '../leader-elector.ts';

/** A TCP proxy to 127.0.0.1:port that can silently stop forwarding (a blackholed link: no RST, no data). */
export async function blackholeProxy(
  port: number,
): Promise<{ port: number; blackhole: boolean; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const state = { port: 0, blackhole: false, close: async () => {} };
  const server = net.createServer((client) => {
    const upstream = net.connect(port, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      // A reset either side is part of the fault being simulated; the other side is destroyed on 'close'.
      s.on('error', () => {});
      s.on('close', () => sockets.delete(s));
    }
    client.on('data', (d) => {
      if (!state.blackhole) upstream.write(d);
    });
    upstream.on('data', (d) => {
      if (!state.blackhole) client.write(d);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.port = (server.address() as net.AddressInfo).port;
  state.close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return state;
}

/** The terms one candidate believed it held, from its elected/lost events. */
export function intervals(
  who: string,
  events: readonly (LeaderEvent & { at: number })[],
): { who: string; from: number; to: number }[] {
  const out: { who: string; from: number; to: number }[] = [];
  for (const e of events) {
    if (e.type === 'elected') out.push({ who, from: e.at, to: Number.POSITIVE_INFINITY });
    if (e.type === 'lost') {
      const open = out.find((t) => t.to === Number.POSITIVE_INFINITY);
      if (open) open.to = e.at;
    }
  }
  return out;
}

/** Starts a redis-server without persistence on `port` and waits until it accepts connections. */
export async function startRedis(port: number, dir: string): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: 'ignore' },
  );
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return child;
    await sleep(50);
  }
  child.kill('SIGKILL');
  throw new Error(`redis-server did not start on ${port}`);
}
