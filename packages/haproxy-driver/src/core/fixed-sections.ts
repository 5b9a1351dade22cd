import { ownerNote } from '@portolan/appliance-driver';
import { absolutePath, section } from './config-text.ts';
import type { HaproxyRenderOptions } from './render-parts.ts';

/** The config file's name inside the config directory. */
export const CONFIG_FILE = 'haproxy.cfg';
/** The runtime (stats) socket inside the config directory. */
export const RUNTIME_SOCKET = 'runtime.sock';
/** The server-state file inside the config directory, written right before each reload. */
export const SERVER_STATE_FILE = 'server-state';

/** The comment haproxy.cfg starts with: who wrote it, and the ownership mark. */
export function header(appliance: string): string {
  return [
    `# Rendered by Portolan for appliance ${appliance}; do not edit: the next apply overwrites it.`,
    `# ${ownerNote(appliance, 'haproxy.cfg')}`,
    '',
  ].join('\n');
}

/** The global section: master-worker, the runtime socket and the server-state file. */
export function globalSection(options: HaproxyRenderOptions): string {
  return section('global', [
    'master-worker',
    `stats socket ${absolutePath(options.configDir, RUNTIME_SOCKET)} mode 600 level admin`,
    'stats timeout 10m',
    `server-state-file ${absolutePath(options.configDir, SERVER_STATE_FILE)}`,
    `hard-stop-after ${options.hardStopAfter}`,
    'ssl-default-bind-options ssl-min-ver TLSv1.2',
    'tune.ssl.default-dh-param 2048',
  ]);
}

/** The defaults section every frontend and backend inherits. */
export function defaultsSection(): string {
  return section('defaults', [
    'mode http',
    'timeout connect 5s',
    'timeout client 60s',
    'timeout server 60s',
    'timeout http-request 10s',
    'timeout http-keep-alive 10s',
    'timeout tunnel 1h',
    'timeout check 5s',
    'load-server-state-from-file global',
  ]);
}
