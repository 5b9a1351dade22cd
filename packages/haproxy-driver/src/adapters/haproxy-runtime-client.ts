import net from 'node:net';
import { HaproxySocketError } from '../errors.ts';

/** Options of a runtime client. */
export interface HaproxyRuntimeClientOptions {
  /** Bound on one `execute` call, connection included. */
  readonly timeoutMs?: number;
}

interface Pending {
  readonly resolve: (reply: string) => void;
  readonly reject: (error: Error) => void;
}

/**
 * Client of a worker's stats socket (Runtime API, `level admin`).
 *
 * Keeps ONE connection in prompt mode and pipelines commands on it: a batch is a single socket write and the
 * replies come back in order, each terminated by the `> ` prompt. Calls are serialised. A connection to a
 * worker that a reload replaced keeps talking to the old worker, so the owner must call `disconnect()` around
 * reloads (the driver does); the next call reconnects.
 */
export class HaproxyRuntimeClient {
  readonly socketPath: string;
  readonly #timeoutMs: number;
  #socket: net.Socket | null = null;
  #connecting: Promise<net.Socket> | null = null;
  /** Text of the reply being received, and its last characters (a prompt may straddle two chunks). */
  #parts: string[] = [];
  #carry = '';
  #pending: Pending[] = [];
  #queue: Promise<unknown> = Promise.resolve();

  constructor(socketPath: string, options: HaproxyRuntimeClientOptions = {}) {
    this.socketPath = socketPath;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
  }

  /** Sends the commands in one write and resolves with their replies (trailing newlines trimmed), in order. */
  execute(commands: readonly string[]): Promise<string[]> {
    const run = this.#queue.then(() => this.#executeNow(commands));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** Sends one command and resolves with its reply. */
  async command(text: string): Promise<string> {
    const [reply] = await this.execute([text]);
    return reply ?? '';
  }

  /** Closes the connection (the next call reconnects); pending calls fail. */
  disconnect(): void {
    this.#drop(new HaproxySocketError('runtime connection closed by the client', this.socketPath));
  }

  /** Releases the connection. */
  async close(): Promise<void> {
    await this.#queue;
    this.disconnect();
  }

  async #executeNow(commands: readonly string[]): Promise<string[]> {
    if (commands.length === 0) return [];
    const socket = await this.#connect();
    const replies = commands.map(
      () => new Promise<string>((resolve, reject) => this.#pending.push({ resolve, reject })),
    );
    const timer = setTimeout(() => {
      this.#drop(new HaproxySocketError(`no reply within ${this.#timeoutMs} ms`, this.socketPath));
    }, this.#timeoutMs);
    try {
      // A payload command already ends with a newline; the extra one is the empty line that ends its payload.
      socket.write(commands.map((c) => `${c}\n`).join(''));
      return await Promise.all(replies);
    } finally {
      clearTimeout(timer);
    }
  }

  #connect(): Promise<net.Socket> {
    if (this.#socket !== null) return Promise.resolve(this.#socket);
    if (this.#connecting !== null) return this.#connecting;
    const attempt = new Promise<net.Socket>((resolve, reject) => {
      const socket = net.createConnection(this.socketPath);
      socket.setEncoding('utf8');
      const timer = setTimeout(() => socket.destroy(new Error('connect timed out')), this.#timeoutMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        // The `prompt` command itself answers with an empty reply and the first prompt.
        this.#pending.push({ resolve: () => undefined, reject: () => undefined });
        socket.write('prompt\n');
        this.#socket = socket;
        this.#connecting = null;
        resolve(socket);
      });
      socket.on('data', (chunk: string) => this.#onData(socket, chunk));
      socket.on('error', (cause) => {
        clearTimeout(timer);
        if (this.#connecting === attempt) this.#connecting = null;
        reject(new HaproxySocketError('runtime socket unreachable', this.socketPath, { cause }));
        this.#onClose(socket, cause);
      });
      socket.on('close', () => this.#onClose(socket, undefined));
    });
    this.#connecting = attempt;
    return attempt;
  }

  #onData(socket: net.Socket, chunk: string): void {
    if (socket !== this.#socket) return;
    // Replies can be megabytes in 64 kB chunks: search only the new text (plus the 2 characters before it, where
    // a prompt may have started) and join the parts once per reply, never re-scanning what was searched.
    let text = chunk;
    for (;;) {
      const found = (this.#carry + text).indexOf(PROMPT);
      if (found < 0) {
        this.#parts.push(text);
        this.#carry = (this.#carry + text).slice(-(PROMPT.length - 1));
        return;
      }
      const cut = found - this.#carry.length;
      const before = this.#parts.join('');
      const raw = cut >= 0 ? before + text.slice(0, cut) : before.slice(0, before.length + cut);
      text = text.slice(cut + PROMPT.length);
      this.#parts = [];
      this.#carry = '';
      this.#pending.shift()?.resolve(cleanReply(raw));
    }
  }

  #onClose(socket: net.Socket, cause: unknown): void {
    if (socket !== this.#socket) return;
    this.#socket = null;
    this.#parts = [];
    this.#carry = '';
    this.#failPending(new HaproxySocketError('runtime connection closed', this.socketPath, { cause }));
  }

  #drop(error: Error): void {
    const socket = this.#socket;
    this.#socket = null;
    this.#connecting = null;
    this.#parts = [];
    this.#carry = '';
    this.#failPending(error);
    socket?.destroy();
  }

  #failPending(error: Error): void {
    const pending = this.#pending;
    this.#pending = [];
    for (const p of pending) p.reject(error);
  }
}

/** What ends every reply in prompt mode: the reply's blank line, then the `> ` prompt. */
const PROMPT = '\n> ';

/** Drops the `+ ` continuation prompts printed for payload lines and the trailing blank line. */
function cleanReply(raw: string): string {
  return raw.replace(/^(\+ )+/, '').replace(/\n+$/, '');
}
