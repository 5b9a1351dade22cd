import { isSystemError, PortolanError } from '@portolan/errors';
import { chmod, readFile, rename, writeFile } from 'node:fs/promises';
import type { KubeObject } from '../core/resource-types.ts';

/** The persisted form of the simulator's objects. */
export interface PersistedState {
  readonly format: 'portolan-kube-sim-state/v1';
  readonly resourceVersion: number;
  readonly objects: readonly KubeObject[];
}

/** The state file could not be read or parsed. */
export class StateFileError extends PortolanError {
  readonly code = 'KUBE_SIM_STATE_FILE';
}

/** Loads the state file; null when it does not exist yet. */
export async function loadStateFile(path: string): Promise<PersistedState | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (isSystemError(error, 'ENOENT')) return null;
    throw new StateFileError(`cannot read state file ${path}`, { cause: error });
  }
  let parsed: PersistedState;
  try {
    parsed = JSON.parse(text) as PersistedState;
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    throw new StateFileError(`state file ${path} is not a kube-sim state file`, { cause: error });
  }
  if (parsed?.format !== 'portolan-kube-sim-state/v1' || !Array.isArray(parsed.objects))
    throw new StateFileError(`state file ${path} is not a kube-sim state file: unknown format`);
  return parsed;
}

/** Writes state on change, debounced, atomically (write a temporary file, then rename over the old one). */
export class StateFileWriter {
  private readonly path: string;
  private readonly debounceMs: number;
  private readonly snapshot: () => PersistedState;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(path: string, debounceMs: number, snapshot: () => PersistedState) {
    this.path = path;
    this.debounceMs = debounceMs;
    this.snapshot = snapshot;
  }

  /** Schedules a write after the debounce delay (repeated calls coalesce). */
  schedule(): void {
    if (this.timer !== null) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.write();
    }, this.debounceMs);
  }

  private write(): Promise<void> {
    const state = this.snapshot();
    this.writing = this.writing.then(async () => {
      const tmp = `${this.path}.tmp-${process.pid}`;
      // The state holds Secret data in clear, as an API server's etcd does: readable by its owner only.
      await writeFile(tmp, JSON.stringify(state), { mode: 0o600 });
      await chmod(tmp, 0o600); // writeFile's mode applies only when it creates the file
      await rename(tmp, this.path);
    });
    return this.writing;
  }

  /** Writes any pending change now and waits for it (used on close). */
  async flush(): Promise<void> {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
      await this.write();
    }
    await this.writing;
  }
}
