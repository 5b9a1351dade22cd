// Observing HAProxy from outside the pipeline: server slots over the Runtime API, requests with a Host header or
// SNI, and the master's reload counter.
import http from 'node:http';
import https from 'node:https';
import { HaproxyMasterClient, HaproxyRuntimeClient } from '@portolan/haproxy-driver';

/** One slot of `show servers state <backend>`: address and whether it takes traffic. */
interface Slot {
  readonly address: string;
  readonly ready: boolean;
}

/** Parses `show servers state` lines (format 1): be_id be_name srv_id srv_name srv_addr srv_op_state srv_admin_state … */
function slots(text: string): Slot[] {
  const out: Slot[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '' || /^\d+$/.test(line.trim())) continue;
    const f = line.split(' ');
    // admin state 0 = not in maintenance; op state 2 = running (no health checks in the benchmark worlds).
    if (f.length > 6) out.push({ address: f[4]!, ready: f[6] === '0' && f[5] === '2' });
  }
  return out;
}

/** Watches server slots through its own Runtime API connection. */
export class SlotWatch {
  readonly #runtime: HaproxyRuntimeClient;

  constructor(runtimeSocket: string) {
    this.#runtime = new HaproxyRuntimeClient(runtimeSocket, { timeoutMs: 5000 });
  }

  /** Whether `address` is a ready slot of `backend` right now. */
  async hasReady(backend: string, address: string): Promise<boolean> {
    return slots(await this.#runtime.command(`show servers state ${backend}`)).some(
      (s) => s.ready && s.address === address,
    );
  }

  /**
   * Polls until `address` is a ready slot of `backend`; resolves with the instant it was first seen
   * (performance.now()). The poll period bounds the error: the change was applied at most one period earlier.
   */
  async waitReady(backend: string, address: string, timeoutMs: number, periodMs = 1): Promise<number> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      if (await this.hasReady(backend, address)) return performance.now();
      if (performance.now() > deadline)
        throw new Error(`${address} did not become a ready slot of ${backend} within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, periodMs));
    }
  }

  /** Number of backends the current worker holds. */
  async backendCount(): Promise<number> {
    return (await this.#runtime.command('show backend')).split('\n').filter((l) => l !== '' && !l.startsWith('#'))
      .length;
  }

  /** Reconnects on the next call (after a reload the old connection talks to the old worker). */
  reconnect(): void {
    this.#runtime.disconnect();
  }

  close(): Promise<void> {
    return this.#runtime.close();
  }
}

/** Reloads performed by the HAProxy master so far (`show proc`). */
export async function reloadCount(masterSocket: string): Promise<number> {
  const master = new HaproxyMasterClient(masterSocket);
  return (await master.showProc()).master.reloads;
}

/** The outcome of one request through HAProxy: status (0 on a connection error) and body. */
export interface ProbeReply {
  readonly status: number;
  readonly body: string;
}

/** GET `path` on 127.0.0.1:port with a Host header (and SNI over HTTPS); never throws. */
export function probe(
  port: number,
  host: string,
  o: { https?: boolean; timeoutMs?: number } = {},
): Promise<ProbeReply> {
  return new Promise((resolve) => {
    const options = {
      host: '127.0.0.1',
      port,
      path: '/',
      headers: { host },
      timeout: o.timeoutMs ?? 2000,
      agent: false as const,
    };
    const done = (res: http.IncomingMessage): void => {
      let body = '';
      res
        .setEncoding('utf8')
        .on('data', (d: string) => (body += d))
        .on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    };
    const req =
      o.https === true
        ? https.get({ ...options, servername: host, rejectUnauthorized: false }, done)
        : http.get(options, done);
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve({ status: 0, body: '' }));
  });
}

/** Polls until a request for `host` is answered 200 by the echo backend at `address`; resolves with performance.now(). */
export async function waitServed(
  port: number,
  host: string,
  address: string,
  timeoutMs: number,
  o: { https?: boolean; periodMs?: number } = {},
): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const r = await probe(port, host, { https: o.https ?? false, timeoutMs: 1000 });
    if (r.status === 200 && r.body.includes(`"address":"${address}"`)) return performance.now();
    if (performance.now() > deadline)
      throw new Error(`${host} was not served by ${address} within ${timeoutMs} ms (last: ${r.status})`);
    await new Promise((res) => setTimeout(res, o.periodMs ?? 10));
  }
}
