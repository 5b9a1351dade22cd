import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { HaproxyProtocolError, HaproxySocketError } from '../errors.ts';
import { type ProcStatus, parseShowProc } from '../core/parse-show-proc.ts';

/** Pause between connection attempts while the master re-executes itself. */
const RETRY_MS = 10;

/** Options of a master CLI client. */
export interface HaproxyMasterClientOptions {
  /** Bound on one command, retries while the master re-executes included; default 5 s. */
  readonly timeoutMs?: number;
}

/** What a reload came to, as `show proc` reported it. */
export type ReloadOutcome =
  | { readonly ok: true; readonly workerPid: number; readonly masterReloads: number }
  | { readonly ok: false; readonly reason: 'failed' | 'timeout'; readonly message: string };

/**
 * Client of the master CLI (`haproxy -W -S <socket>`): `reload`, `show proc`, and `@1 <command>` routed to the
 * current worker. One connection per command; the master answers and closes once the client half-closes.
 */
export class HaproxyMasterClient {
  readonly socketPath: string;
  readonly #timeoutMs: number;

  constructor(socketPath: string, options: HaproxyMasterClientOptions = {}) {
    this.socketPath = socketPath;
    this.#timeoutMs = options.timeoutMs ?? 5_000;
  }

  /**
   * Sends one master CLI command and returns its whole reply, within the client's time bound. The master refuses
   * connections, or resets them, for as long as it re-executes itself for a reload (someone else's reload included):
   * meanwhile a refused connection is tried again, since nothing was sent, and so is a reset one unless the command
   * must not run twice (`repeatable: false`, as for `reload`). A missing socket fails at once.
   */
  async command(text: string, options: { readonly repeatable?: boolean } = {}): Promise<string> {
    const deadline = performance.now() + this.#timeoutMs;
    for (let attempts = 1; ; attempts++) {
      try {
        return await this.#send(text, deadline);
      } catch (error) {
        const code = (error as { cause?: { code?: unknown } }).cause?.code;
        const again = code === 'ECONNREFUSED' || (code === 'ECONNRESET' && options.repeatable !== false);
        if (!again) throw error;
        if (performance.now() + RETRY_MS >= deadline) {
          throw new HaproxySocketError(
            `master CLI refused or reset ${attempts} connections within ${this.#timeoutMs} ms`,
            this.socketPath,
            { cause: error },
          );
        }
        await sleep(RETRY_MS);
      }
    }
  }

  /** One connection: writes the command, half-closes, and collects the reply until the master closes. */
  #send(text: string, deadline: number): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = net.createConnection(this.socketPath);
      socket.setEncoding('utf8');
      let reply = '';
      const timer = setTimeout(
        () => {
          socket.destroy();
          reject(
            new HaproxySocketError(`master CLI gave no complete reply within ${this.#timeoutMs} ms`, this.socketPath),
          );
        },
        Math.max(0, deadline - performance.now()),
      );
      socket.once('connect', () => socket.end(`${text}\n`));
      socket.on('data', (chunk: string) => (reply += chunk));
      socket.once('error', (cause) => {
        clearTimeout(timer);
        reject(new HaproxySocketError('master CLI unreachable', this.socketPath, { cause }));
      });
      socket.once('close', (hadError) => {
        clearTimeout(timer);
        if (!hadError) resolve(reply);
      });
    });
  }

  /** Master and worker processes with their reload counters. */
  async showProc(): Promise<ProcStatus> {
    const reply = await this.command('show proc');
    const status = parseShowProc(reply);
    if (status === null) throw new HaproxyProtocolError(`unexpected "show proc" reply: ${reply.slice(0, 200)}`);
    return status;
  }

  /** `show proc`, retried on any socket failure until `deadline` (a reload's bound, longer than one command's). */
  async showProcWhenUp(deadline: number): Promise<ProcStatus> {
    for (;;) {
      try {
        return await this.showProc();
      } catch (error) {
        if (!(error instanceof HaproxySocketError) || performance.now() > deadline) throw error;
        await sleep(10);
      }
    }
  }

  /**
   * Asks the master to reload and waits until `show proc` shows the outcome: success is a new worker with no
   * reload behind it and `failed: 0`; failure is the master's failed counter going up (the old worker keeps
   * serving the previous configuration).
   */
  async reload(timeoutMs = 30_000): Promise<ReloadOutcome> {
    const deadline = performance.now() + timeoutMs;
    const before = await this.showProcWhenUp(deadline);
    const oldPids = new Set([...before.workers, ...before.oldWorkers].map((w) => w.pid));
    await this.command('reload', { repeatable: false });
    for (;;) {
      // The master re-executes itself during a reload: a failed look is asked again until the deadline.
      const now = await this.showProcWhenUp(deadline).catch(() => null);
      if (now !== null && now.master.reloads > before.master.reloads) {
        if (now.master.failedReloads > 0) {
          return {
            ok: false,
            reason: 'failed',
            message: `master reported a failed reload (failed: ${now.master.failedReloads})`,
          };
        }
        const fresh = now.workers.find((w) => w.reloads === 0 && !oldPids.has(w.pid));
        if (fresh !== undefined) return { ok: true, workerPid: fresh.pid, masterReloads: now.master.reloads };
      }
      if (performance.now() > deadline) {
        return { ok: false, reason: 'timeout', message: `no new worker within ${timeoutMs} ms of the reload` };
      }
      await sleep(10);
    }
  }

  /** Runs a Runtime API command on the current worker through the master (`@1 <command>`). */
  workerCommand(text: string): Promise<string> {
    return this.command(`@1 ${text}`);
  }

  /** The pid of the current worker (the one `@1` addresses), or null when none runs. */
  async currentWorkerPid(): Promise<number | null> {
    const status = await this.showProc();
    return status.workers[0]?.pid ?? null;
  }
}
