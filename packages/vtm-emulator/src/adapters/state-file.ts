import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { StoreSnapshot } from '../core/vtm-config-store.ts';
import { isSystemError, PortolanError } from '@portolan/errors';

/** Raised when a state file exists but cannot be read as a store snapshot. */
export class StateFileError extends PortolanError {
  readonly code = 'VTM_EMULATOR_STATE_FILE';
}

/** Reads a state file; null when it does not exist yet. */
export function readStateFile(path: string): StoreSnapshot | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (isSystemError(error, 'ENOENT')) return null;
    throw new StateFileError(`cannot read state file ${path}`, { cause: error });
  }
  let parsed: StoreSnapshot;
  try {
    parsed = JSON.parse(text) as StoreSnapshot;
  } catch (cause) {
    throw new StateFileError(`state file ${path} cannot be read as JSON`, { cause });
  }
  if (parsed.version !== 1 || typeof parsed.objects !== 'object')
    throw new StateFileError(`state file ${path} is not a version 1 vTM emulator snapshot`);
  return parsed;
}

/** Writes the snapshot atomically (temp file + rename), readable by the owner only: it holds private keys. */
export function writeStateFile(path: string, snapshot: StoreSnapshot): void {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(snapshot, null, 1)}\n`, { mode: 0o600 });
  renameSync(tmp, path);
}
