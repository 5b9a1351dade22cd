import { PortolanError } from '@portolan/errors';
import { readFile } from 'node:fs/promises';
import type { UserInfo } from '../core/rbac-authorizer.ts';
import { parseTokenFile } from '../core/token-file.ts';

/** The token file could not be read or is not a valid `--token-auth-file` (the API server would not start). */
export class TokenFileError extends PortolanError {
  readonly code = 'KUBE_SIM_TOKEN_FILE';
}

/** Reads a `--token-auth-file` CSV: each token's user, as listed (without `system:authenticated`). */
export async function loadTokenFile(path: string): Promise<ReadonlyMap<string, UserInfo>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new TokenFileError(`cannot read token file ${path}`, { cause: error });
  }
  const parsed = parseTokenFile(text);
  if (!parsed.ok) throw new TokenFileError(`token file '${path}' ${parsed.reason}`);
  return parsed.users;
}
