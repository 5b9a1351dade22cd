import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { LmState } from '../core/lm-state.ts';
import { createLmState } from '../core/lm-state.ts';
import { PortolanError } from '@portolan/errors';

/** Raised when the state file exists but cannot be read as emulator state. */
export class StateFileError extends PortolanError {
  readonly code = 'LM_EMULATOR_STATE_FILE';
}

/** Loads the emulator state from a JSON file; a missing file means an empty appliance. */
export function loadStateFile(path: string): LmState {
  if (!existsSync(path)) return createLmState();
  let parsed: Partial<LmState>;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<LmState>;
  } catch (error) {
    throw new StateFileError(`state file ${path} cannot be read as JSON`, { cause: error });
  }
  if (!Array.isArray(parsed.virtualServices) || typeof parsed.nextVsIndex !== 'number')
    throw new StateFileError(`state file ${path} is not LoadMaster emulator state`);
  return { ...createLmState(), ...parsed };
}

/** Saves the state atomically (write then rename), readable by the owner only: it holds uploaded private keys. */
export function saveStateFile(path: string, state: LmState): void {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(state, null, 1)}\n`, { mode: 0o600 });
  renameSync(tmp, path);
}
