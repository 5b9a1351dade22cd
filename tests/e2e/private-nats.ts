// A nats-server the fault loop owns (killed and restarted at will, unlike the shared test stack's), and the
// loop's reproducible random draws.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  findBinary,
  freePort,
  isAlive,
  natsService,
  stackBinaries,
  stackConfig,
  type StackService,
} from '@portolan/infra';

/** mulberry32: the test's draws, reproducible from SEED. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
/** A nats-server with JetStream the test owns: its own port, monitor port and store dir; SIGKILLed and restarted. */
export interface PrivateNats {
  readonly url: string;
  readonly kills: number;
  /** SIGKILL, then waits until the process is gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port and store dir, and waits until JetStream answers. */
  start(): Promise<void>;
  destroy(): Promise<void>;
}

export async function startPrivateNats(): Promise<PrivateNats> {
  const binary = findBinary(stackBinaries.nats);
  if (binary === null)
    throw new Error('nats-server is not installed (the test stack installs it: run any integration test once)');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ptl-faults-nats-'));
  const config = stackConfig({ stateDir: dir, natsPort: await freePort(), natsMonitorPort: await freePort() });
  const svc: StackService = natsService(config, binary);
  await svc.start();
  let kills = 0;
  return {
    url: `nats://127.0.0.1:${config.natsPort}`,
    get kills() {
      return kills;
    },
    async kill() {
      const { pid } = await svc.status();
      if (pid === null) return;
      process.kill(pid, 'SIGKILL');
      kills++;
      for (let i = 0; i < 250 && isAlive(pid); i++) await sleep(20);
      if (isAlive(pid)) throw new Error(`nats-server ${pid} survived SIGKILL`);
    },
    start: () => svc.start(),
    async destroy() {
      await svc.stop().finally(() => rmSync(dir, { recursive: true, force: true }));
    },
  };
}
