import net from 'node:net';
import path from 'node:path';
import type { StackConfig } from '../stack-config.ts';
import { daemonService, type StackService } from './daemon-service.ts';

/** redis-server on a private port with an append-only file, so a restart keeps leases (a Redis that forgets them could let two leaders act). */
export function redisService(config: StackConfig, binary: string): StackService {
  const dir = path.join(config.stateDir, 'redis');
  return daemonService({
    name: 'redis',
    port: config.redisPort,
    dir,
    command: binary,
    args: [
      '--bind',
      '127.0.0.1',
      '--port',
      String(config.redisPort),
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      'yes',
      '--daemonize',
      'no',
      '--protected-mode',
      'yes',
    ],
    healthy: () => redisPing(config.redisPort),
  });
}

/** Sends PING over a raw socket and expects +PONG (a Redis server or a Sentinel). */
export function redisPing(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (d) => done(d.toString().startsWith('+PONG')));
  });
}
