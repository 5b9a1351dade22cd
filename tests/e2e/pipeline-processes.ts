// The pipeline's processes as a test drives them (signals, stop, start, logs), and the clean-up that runs even
// when a test fails or its process is killed.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { NatsEventBus, busDeclaration } from '@portolan/bus';
import { isAlive, type StackService } from '@portolan/infra';
import type { TestDatabase } from '@portolan/store';
import type { PipelineProcess } from './pipeline-harness.ts';

export function pipelineProcess(svc: StackService, dir: string): PipelineProcess {
  const pidFile = path.join(dir, `${svc.name}.pid`);
  // Read straight from the pid file (no health probe), so a signal lands within a millisecond of the decision.
  const pidNow = (): number | null => {
    try {
      const pid = Number(readFileSync(pidFile, 'utf8').trim().split('\n')[0]);
      return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? pid : null;
    } catch {
      return null;
    }
  };
  return {
    name: svc.name,
    pid: pidNow,
    signal(signal) {
      const pid = pidNow();
      if (pid === null) throw new Error(`${svc.name} is not running`);
      process.kill(pid, signal);
    },
    async exited() {
      for (let i = 0; i < 250 && pidNow() !== null; i++) await sleep(20);
      if (pidNow() !== null) throw new Error(`${svc.name} is still running`);
    },
    stop: () => svc.stop(),
    start: () => svc.start(),
    log: () => {
      try {
        return readFileSync(path.join(dir, `${svc.name}.log`), 'utf8');
      } catch {
        return '';
      }
    },
  };
}

/** SIGKILLs every process whose pid file is under `root` if this test process exits before `stop()`. */
export function exitGuard(root: string): { dispose(): void } {
  const killAll = (): void => {
    for (const file of pidFiles(root)) {
      try {
        const pid = Number(readFileSync(file, 'utf8').trim().split('\n')[0]);
        if (Number.isInteger(pid) && pid > 0) process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    rmSync(root, { recursive: true, force: true });
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    killAll();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.on('exit', killAll);
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return {
    dispose() {
      process.off('exit', killAll);
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    },
  };
}

function pidFiles(root: string): string[] {
  const run = path.join(root, 'run');
  const haproxy = path.join(root, 'stack', 'haproxy');
  const list = (dir: string): string[] => {
    try {
      return readdirSync(dir)
        .filter((n) => n.endsWith('.pid'))
        .map((n) => path.join(dir, n));
    } catch {
      return [];
    }
  };
  return [...list(run), ...list(haproxy)];
}

export async function cleanUp(database: TestDatabase, natsUrl: string, stream: string, root: string): Promise<void> {
  await database.drop().catch(() => {});
  const bus = await NatsEventBus.open(
    natsUrl,
    busDeclaration({ stream, replicas: 1, maxPayloadBytes: 1 << 20, subjectPrefix: `e2e${stream.slice(4)}` }),
  ).catch(() => null);
  if (bus !== null) {
    await bus.jsm.streams.delete(stream).catch(() => {});
    await bus.jsm.streams.delete(`${stream}_PIPELINE`).catch(() => {});
    await bus.close();
  }
  rmSync(root, { recursive: true, force: true });
}
