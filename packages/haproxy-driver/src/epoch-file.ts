import { readFileSync } from 'node:fs';
import type { OperationResult } from '@portolan/appliance-driver';
import { isSystemError } from '@portolan/errors';

/**
 * The epoch that last wrote here. Fails closed: only a file that does not exist yet reads as epoch 0 (a fresh
 * appliance); an unreadable file or one that does not hold an epoch refuses the write, since taking it for 0 would
 * let any stale leader write. A few bytes from the local config directory, read synchronously: four thread-pool
 * hops of an async read cost more than the read, and this runs before every write.
 */
export function readEpochFile(file: string): { ok: true; epoch: number } | { ok: false; message: string } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if (isSystemError(e, 'ENOENT')) return { ok: true, epoch: 0 };
    return {
      ok: false,
      message: `the fencing epoch file cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'}); nothing is written until it can`,
    };
  }
  const trimmed = text.trim();
  if (!/^\d{1,15}$/.test(trimmed))
    return {
      ok: false,
      message: `the fencing epoch file holds "${trimmed.slice(0, 20)}", not an epoch; nothing is written until it is repaired`,
    };
  return { ok: true, epoch: Number(trimmed) };
}

/** Refused because the caller's epoch is not current (its write gate said no). */
export function staleEpoch(epoch: number): OperationResult {
  return {
    ok: false,
    code: 'StaleEpoch',
    message: `epoch ${epoch} is no longer the current epoch of this appliance group`,
    retryable: false,
  };
}

/** Not sent: leadership was lost first. */
export function aborted(): OperationResult {
  return { ok: false, code: 'Aborted', message: 'leadership lost before this operation ran', retryable: true };
}
