import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { LmState } from '../core/lm-state.ts';
import { createLmState } from '../core/lm-state.ts';

/** Raised when the state file exists but cannot be read as emulator state. */
export class StateFileError extends Error {
  readonly code = 'LM_EMULATOR_STATE_FILE';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StateFileError';
  }
}

/** Loads the emulator state from a JSON file; a missing file means an empty appliance. */
export function loadStateFile(path: string): LmState {
  if (!existsSync(path)) return createLmState();
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<LmState>;
    if (!Array.isArray(parsed.virtualServices) || typeof parsed.nextVsIndex !== 'number')
      throw new Error('not emulator state');
    return { ...createLmState(), ...parsed };
  } catch (error) {
    throw new StateFileError(`state file ${path} is not LoadMaster emulator state`, { cause: error });
  }
}

/** Saves the state atomically (write then rename), readable by the owner only: it holds uploaded private keys. */
export function saveStateFile(path: string, state: LmState): void {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(state, null, 1)}\n`, { mode: 0o600 });
  renameSync(tmp, path);
}
