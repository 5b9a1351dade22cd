import fs from 'node:fs/promises';
import type { OperationResult } from '@portolan/appliance-driver';
import { isSameText, type Text } from '@portolan/desired-state';
import type { BackendSlots, HaproxyBundle } from './core/haproxy-bundle.ts';
import { CONFIG_FILE, configSections } from './core/render-haproxy-bundle.ts';
import { patchServerLines } from './core/patch-server-lines.ts';
import { isSameSlot } from './core/assign-slots.ts';
import { nullIfMissing, writeFileAtomic } from './adapters/haproxy-config-files.ts';
import { HaproxyConfigWriteError } from './errors.ts';
import { ConfigImage } from './adapters/config-image.ts';

/** Who asked for a deferred write, so that it is fenced as the operation itself was. */
export interface WriteAuthority {
  readonly epoch: number;
  /** Aborted when the writer's leadership is lost: its deferred write is dropped. */
  readonly signal: AbortSignal;
}

/** Refuses a write by `epoch` (a newer epoch has written here), or null to allow it. */
export type EpochFence = (epoch: number) => Promise<OperationResult | null>;

/** A server-line rewrite that is queued: the sections the file will hold, and the file they replace. */
interface Deferred {
  readonly sections: readonly string[];
  /** The file on disk when the first queued change was made; the write reuses its bytes. */
  readonly base: ConfigImage;
  /** Every backend changed since `base`, the last change of each (to patch the text if someone else rewrote it). */
  readonly backends: ReadonlyMap<string, BackendSlots>;
  readonly authority: WriteAuthority;
  readonly timer: NodeJS.Timeout;
}

/**
 * Keeps haproxy.cfg's server lines in step with what the Runtime API set, so a later reload keeps them.
 *
 * The Runtime API change is what serves traffic; the file only matters to the next reload. A large appliance's file
 * is megabytes, and rewriting it (temp file + rename, which the file system flushes at once) after every endpoint
 * change would compete with the database's commits for the disk. So a rewrite the render can express is queued and
 * written at most `delayMs` later, one write for every change made meanwhile. The driver writes the queued lines
 * before anything reads the files or reloads (`flush`), and at stop. A write is fenced like the operation that
 * queued it: dropped if that leader's leadership ended or a newer epoch has written here. The next leader's first
 * read-back then finds the file behind the runtime and corrects it. A reload someone else starts within `delayMs`
 * of a change loads the older server lines; the next drift check corrects the slots it changed.
 */
export class ServerLinesFile {
  readonly #file: string;
  readonly #delayMs: number;
  readonly #fence: EpochFence;
  /** haproxy.cfg as this driver last wrote it (valid while the file on disk is still that one). */
  #image: ConfigImage | null = null;
  #deferred: Deferred | null = null;
  /** The write in progress (queued writes run one at a time). */
  #writing: Promise<void> = Promise.resolve();

  constructor(file: string, delayMs: number, fence: EpochFence) {
    this.#file = file;
    this.#delayMs = delayMs;
    this.#fence = fence;
  }

  /** Whether a rewrite is queued and not yet written. */
  get pending(): boolean {
    return this.#deferred !== null;
  }

  /**
   * Brings the server lines of `backends` in line with the Runtime API. Usually the file is the last render's
   * sections and the new render differs in exactly these backends: the render's sections are queued (or written,
   * with no delay), re-encoding only the changed ones. Otherwise queued lines are written and the text is patched.
   */
  async patch(
    backends: readonly BackendSlots[],
    render: HaproxyBundle | null,
    authority: WriteAuthority,
  ): Promise<OperationResult> {
    await this.#writing;
    const done = (how: string): OperationResult => ({
      ok: true,
      detail: `${CONFIG_FILE}: server lines of ${backends.length} backend(s), ${how}`,
    });
    const sections = render === null ? undefined : configSections(render);
    const queued = this.#deferred;
    const base =
      queued?.base ?? (this.#image !== null && (await this.#image.isOnDisk(this.#file)) ? this.#image : null);
    if (
      base !== null &&
      render !== null &&
      sections !== undefined &&
      onlyTheseBackendsDiffer(queued?.sections ?? base.sections, sections, render.backends, backends)
    ) {
      if (this.#delayMs === 0) {
        this.#image = await ConfigImage.write(this.#file, sections, base);
        return done('written from the render');
      }
      const merged = new Map(queued?.backends);
      for (const b of backends) merged.set(b.name, b);
      const timer = queued?.timer ?? this.#schedule(this.#delayMs);
      this.#deferred = { sections, base, backends: merged, authority, timer };
      return done(`written from the render within ${this.#delayMs} ms`);
    }
    await this.flush();
    return this.#patchText(backends, sections);
  }

  /** After a reload that wrote the last render's haproxy.cfg: remember the file as that render's sections. */
  async adopt(written: Text | undefined, render: HaproxyBundle | null): Promise<void> {
    this.#image = null;
    const sections = render === null ? undefined : configSections(render);
    const rendered = render?.files.find((f) => f.path === CONFIG_FILE)?.content;
    if (sections === undefined || written === undefined || rendered === undefined || !isSameText(written, rendered))
      return;
    const stat = await fs.stat(this.#file).catch(nullIfMissing);
    if (stat !== null) this.#image = ConfigImage.adopt(sections, stat);
  }

  /**
   * Writes the queued server lines now, unless their writer's leadership ended or a newer epoch wrote here (then
   * they are dropped). A failed write stays queued and is retried; the error is thrown to the caller.
   */
  flush(): Promise<void> {
    const run = this.#writing.then(() => this.#writeQueued());
    this.#writing = run.catch(() => undefined);
    return run;
  }

  /** Drops queued lines without writing them (the timer too). */
  discard(): void {
    if (this.#deferred !== null) clearTimeout(this.#deferred.timer);
    this.#deferred = null;
  }

  /** A flush in `ms` (a failed timed flush keeps its lines queued and schedules the next one itself). */
  #schedule(ms: number): NodeJS.Timeout {
    // A failed timed flush keeps its lines queued and schedules the next one itself (see #writeQueued).
    return setTimeout(() => void this.flush().catch(() => undefined), ms).unref();
  }

  async #writeQueued(): Promise<void> {
    const queued = this.#deferred;
    if (queued === null) return;
    this.discard();
    if (queued.authority.signal.aborted || (await this.#fence(queued.authority.epoch)) !== null) return;
    try {
      if (await queued.base.isOnDisk(this.#file))
        this.#image = await ConfigImage.write(this.#file, queued.sections, queued.base);
      else {
        const result = await this.#patchText([...queued.backends.values()], queued.sections);
        if (!result.ok) throw new HaproxyConfigWriteError(result.message);
      }
    } catch (error) {
      // Keep the lines unless something newer was queued meanwhile (it holds them too), and tell the caller.
      if (this.#deferred === null) {
        this.#deferred = { ...queued, timer: this.#schedule(Math.max(this.#delayMs, 100)) };
      }
      throw new HaproxyConfigWriteError(`the queued server lines of ${this.#file} were not written`, { cause: error });
    }
  }

  /** Patches the file's text in place of a render write (someone else changed it, or the render moved on). */
  async #patchText(
    backends: readonly BackendSlots[],
    sections: readonly string[] | undefined,
  ): Promise<OperationResult> {
    const image = this.#image !== null && (await this.#image.isOnDisk(this.#file)) ? this.#image : null;
    const current = image?.text ?? (await fs.readFile(this.#file, 'utf8').catch(nullIfMissing));
    const patched = current === null ? null : patchServerLines(current, backends);
    if (patched === null) {
      this.#image = null;
      return {
        ok: false,
        code: 'ConfigOutOfStep',
        message: `${CONFIG_FILE} does not hold the server lines of ${backends.map((b) => b.name).join(', ')}; the next full apply rewrites it`,
        retryable: true,
      };
    }
    // Write it as the render's sections when that is what it now says, so the next patch takes the short way.
    if (sections !== undefined && patched === sections.join('\n')) {
      this.#image = await ConfigImage.write(this.#file, sections);
    } else {
      await writeFileAtomic(this.#file, patched);
      const stat = await fs.stat(this.#file).catch(nullIfMissing);
      this.#image = stat === null ? null : ConfigImage.ofText(patched, stat);
    }
    return { ok: true, detail: `${CONFIG_FILE}: server lines of ${backends.length} backend(s), patched in the text` };
  }
}

/**
 * Whether the file's sections and the render's differ only in backend sections of `patched` whose slots the render
 * holds as the operation says (backend sections come last, in the render's backend order).
 */
function onlyTheseBackendsDiffer(
  onDisk: readonly string[],
  rendered: readonly string[],
  renderedBackends: readonly BackendSlots[],
  patched: readonly BackendSlots[],
): boolean {
  if (onDisk.length !== rendered.length || rendered.length < renderedBackends.length) return false;
  const wanted = new Map(patched.map((b) => [b.name, b] as const));
  const first = rendered.length - renderedBackends.length;
  for (let i = 0; i < rendered.length; i++) {
    if (onDisk[i] === rendered[i]) continue;
    const backend = i >= first ? renderedBackends[i - first] : undefined;
    const want = backend === undefined ? undefined : wanted.get(backend.name);
    if (backend === undefined || want === undefined || !sameSlots([backend], [want])) return false;
  }
  return true;
}

/** Whether two slot lists hold the same backends and slots (as `diffSlots` compares them). */
export function sameSlots(a: readonly BackendSlots[] | undefined, b: readonly BackendSlots[]): boolean {
  if (a === undefined || a.length !== b.length) return false;
  return a.every((x, i) => {
    const y = b[i]!;
    return (
      x.name === y.name &&
      x.slots.length === y.slots.length &&
      x.slots.every((s, k) => s.name === y.slots[k]!.name && isSameSlot(s, y.slots[k]!))
    );
  });
}
