import { request } from 'node:https';
import { request as httpRequest } from 'node:http';
import { createInterface } from 'node:readline';
import type { KubeSim } from '../start-kube-sim.ts';

/** A response of the simulator with its parsed JSON body. */
export interface SimResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test helper: bodies are arbitrary JSON
}

/** One line of a watch stream: the parsed event, or the raw text when it is not JSON. */
export type WatchLine =
  { readonly type: string; readonly object: any } | { readonly type: 'UNPARSABLE'; readonly raw: string }; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Options of one request. */
export interface RequestOptions {
  readonly body?: unknown;
  readonly contentType?: string;
  readonly accept?: string;
  readonly token?: string | null;
}

function send(sim: KubeSim, method: string, path: string, options: RequestOptions) {
  const headers: Record<string, string> = { Accept: options.accept ?? 'application/json' };
  const token = options.token === undefined ? sim.token : options.token;
  if (token !== null) headers['Authorization'] = `Bearer ${token}`;
  const payload =
    options.body === undefined
      ? undefined
      : typeof options.body === 'string'
        ? options.body
        : JSON.stringify(options.body);
  if (payload !== undefined) headers['Content-Type'] = options.contentType ?? 'application/json';
  const url = new URL(path, sim.url);
  const req =
    sim.caPem === null ? httpRequest(url, { method, headers }) : request(url, { method, headers, ca: sim.caPem });
  req.end(payload);
  return req;
}

/** Sends one request to the simulator (HTTPS with its CA, bearer token) and parses the JSON answer. */
export function call(sim: KubeSim, method: string, path: string, options: RequestOptions = {}): Promise<SimResponse> {
  return new Promise((resolve, reject) => {
    const req = send(sim, method, path, options);
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('error', reject);
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch (e) {
          // Not JSON (health endpoints): the body stays text.
          if (!(e instanceof SyntaxError)) throw e;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
    });
  });
}

/** An open watch: lines as they arrive, the HTTP status, and a way to stop it. */
export interface OpenWatch {
  readonly lines: WatchLine[];
  readonly status: Promise<number>;
  /** Resolves when the server ends the stream. */
  readonly ended: Promise<void>;
  /** Waits until at least n lines arrived (or the timeout). */
  waitFor(predicate: (lines: readonly WatchLine[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): void;
}

/** Opens a watch request and collects its lines. */
export function openWatch(sim: KubeSim, path: string, options: RequestOptions = {}): OpenWatch {
  const lines: WatchLine[] = [];
  const waiters = new Set<() => void>();
  const req = send(sim, 'GET', path, options);
  let resolveEnded: () => void = () => undefined;
  const ended = new Promise<void>((r) => {
    resolveEnded = r;
  });
  const status = new Promise<number>((resolve, reject) => {
    req.on('error', (e) => {
      resolveEnded();
      reject(e);
    });
    req.on('response', (res) => {
      resolve(res.statusCode ?? 0);
      res.on('error', resolveEnded);
      res.on('end', resolveEnded);
      res.on('close', resolveEnded);
      const reader = createInterface(res);
      reader.on('error', () => undefined);
      reader.on('line', (raw) => {
        try {
          lines.push(JSON.parse(raw) as WatchLine);
        } catch (e) {
          if (!(e instanceof SyntaxError)) throw e;
          lines.push({ type: 'UNPARSABLE', raw });
        }
        for (const w of waiters) w();
      });
    });
  });
  // A caller that only reads lines may never await `status`: its rejection is seen through `ended` instead.
  status.catch(() => undefined);
  return {
    lines,
    status,
    ended,
    close: () => req.destroy(),
    waitFor: (predicate, timeoutMs = 5000) =>
      new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (!predicate(lines)) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out; lines so far: ${JSON.stringify(lines.map((l) => l.type))}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
  };
}
