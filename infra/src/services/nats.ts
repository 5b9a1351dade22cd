import path from 'node:path';
import type { StackConfig } from '../stack-config.ts';
import { daemonService, type StackService } from './daemon-service.ts';

/** nats-server with JetStream, file storage under the stack's state folder. */
export function natsService(config: StackConfig, binary: string): StackService {
  const dir = path.join(config.stateDir, 'nats');
  return daemonService({
    name: 'nats',
    port: config.natsPort,
    dir,
    command: binary,
    args: [
      '-a',
      '127.0.0.1',
      '-p',
      String(config.natsPort),
      '-m',
      String(config.natsMonitorPort),
      '-js',
      '-sd',
      path.join(dir, 'jetstream'),
      '-n',
      'portolan-local',
    ],
    healthy: async () => {
      try {
        const res = await fetch(`http://127.0.0.1:${config.natsMonitorPort}/healthz?js-enabled-only=true`, {
          signal: AbortSignal.timeout(1000),
        });
        return res.ok;
      } catch {
        return false;
      }
    },
  });
}
