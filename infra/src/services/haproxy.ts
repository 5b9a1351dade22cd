import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { StackConfig } from '../stack-config.ts';
import { daemonService, type StackService } from './daemon-service.ts';

/** Paths of the stack's HAProxy: the applier of appliance `edge` owns `configDir` once it runs. */
export function haproxyPaths(config: StackConfig): { dir: string; configFile: string; masterSocket: string } {
  const dir = path.join(config.stateDir, 'haproxy');
  return { dir, configFile: path.join(dir, 'haproxy.cfg'), masterSocket: path.join(dir, 'master.sock') };
}

/** The config HAProxy starts with before any apply: it listens and answers 404 to everything. */
export function initialHaproxyConfig(config: StackConfig): string {
  const { dir } = haproxyPaths(config);
  return `# Written by the Portolan local stack; replaced by the applier of the HAProxy appliance.
global
    master-worker
    stats socket ${path.join(dir, 'runtime.sock')} mode 600 level admin
    server-state-file ${path.join(dir, 'server-state')}

defaults
    mode http
    timeout connect 5s
    timeout client 30s
    timeout server 30s
    load-server-state-from-file global

frontend http
    bind 127.0.0.1:${config.haproxyHttpPort}
    http-request return status 404 content-type text/plain string "no route\\n"

frontend health
    bind 127.0.0.1:${config.haproxyStatsPort}
    http-request return status 200 content-type text/plain string "ok\\n"
`;
}

/** HAProxy in master-worker mode with a master socket; healthy when the master answers `show proc`. */
export function haproxyService(config: StackConfig, binary: string): StackService {
  const { dir, configFile, masterSocket } = haproxyPaths(config);
  return daemonService({
    name: 'haproxy',
    port: config.haproxyHttpPort,
    dir,
    command: binary,
    args: ['-W', '-S', `${masterSocket},mode,600`, '-f', configFile],
    prepare: () => {
      mkdirSync(dir, { recursive: true });
      if (!existsSync(configFile)) writeFileSync(configFile, initialHaproxyConfig(config));
    },
    healthy: async () => (await masterCommand(masterSocket, 'show proc')).includes('master'),
  });
}

/** Sends one command to the HAProxy master CLI and returns the reply ('' when unreachable). */
function masterCommand(socketPath: string, command: string): Promise<string> {
  return new Promise((resolve) => {
    if (!existsSync(socketPath)) return resolve('');
    const socket = net.connect(socketPath);
    let out = '';
    socket.setTimeout(1000, () => socket.destroy());
    socket.on('data', (d) => (out += d.toString()));
    socket.once('error', () => resolve(''));
    socket.once('close', () => resolve(out));
    socket.once('connect', () => socket.write(`${command}\n`));
  });
}
