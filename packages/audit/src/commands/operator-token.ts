import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { isSystemError } from '@portolan/errors';
import type { LoadedFleetConfig } from '@portolan/fleet-config';
import type { CommandIo } from '../adapters/command-io.ts';
import type { AuditContext } from '../api/audit-context.ts';
import { AuditUsageError } from '../errors.ts';
import { withContext } from './command-shell.ts';

/** The options of the commands that write: `--reason` (required) and `--token-file`. */
export const writeOptions = {
  reason: { type: 'string' },
  'token-file': { type: 'string' },
} as const;

/** Where the CLI found the operator token, named in messages. */
type TokenSource = { readonly token: string; readonly from: string };

/** The file `portolan up` writes the operator token to, beside the fleet config (mode 0600). */
export const OPERATOR_TOKEN_FILE = 'operator.token';

/**
 * The actor a CLI write records, under the same rule as the console's API: an operator token from `--token-file`,
 * else $PORTOLAN_TOKEN, else `operator.token` beside the fleet config, whose hash is in the fleet config's
 * `console.tokens` with role operator. Anything else is a message saying what to do, and nothing is written.
 */
export async function operatorActor(
  io: CommandIo,
  fleet: LoadedFleetConfig,
  tokenFile: string | undefined,
): Promise<{ readonly ok: true; readonly actor: string } | { readonly ok: false; readonly message: string }> {
  const found = await findToken(io, fleet, tokenFile);
  if (typeof found === 'string') return { ok: false, message: found };
  // Loaded here, not at the top: the Kubernetes client it brings is only needed by the commands that write.
  const { actorOf, allows, authenticateToken } = await import('@portolan/access');
  const identity = authenticateToken(fleet.config.console?.tokens ?? [], found.token);
  if (identity === null)
    return {
      ok: false,
      message: `the token from ${found.from} is not one the fleet config grants (console.tokens in ${fleet.baseDir}): use an operator token it lists, or add its hash there`,
    };
  if (!allows(identity.role, 'write'))
    return {
      ok: false,
      message: `the token from ${found.from} belongs to "${identity.name}", a viewer: approve, rollback and resume need an operator token`,
    };
  return { ok: true, actor: actorOf(identity) };
}

/** The presented token and where it came from, or a message saying how to give one. */
async function findToken(
  io: CommandIo,
  fleet: LoadedFleetConfig,
  tokenFile: string | undefined,
): Promise<TokenSource | string> {
  if (tokenFile !== undefined) {
    const file = path.resolve(io.cwd, tokenFile);
    try {
      return nonEmpty(await readFile(file, 'utf8'), `--token-file ${tokenFile}`);
    } catch (e) {
      if (!isSystemError(e, 'ENOENT', 'EACCES', 'EISDIR', 'ENOTDIR')) throw e;
      return `cannot read --token-file ${tokenFile}: ${e.message}`;
    }
  }
  const env = io.env['PORTOLAN_TOKEN']?.trim();
  if (env !== undefined && env !== '') return { token: env, from: '$PORTOLAN_TOKEN' };
  const beside = path.join(fleet.baseDir, OPERATOR_TOKEN_FILE);
  try {
    return nonEmpty(await readFile(beside, 'utf8'), beside);
  } catch (e) {
    if (!isSystemError(e, 'ENOENT')) throw e;
    return `an operator token is required: pass --token-file <file>, set PORTOLAN_TOKEN, or keep it in ${beside} (\`portolan up\` writes one there)`;
  }
}

function nonEmpty(text: string, from: string): TokenSource | string {
  const token = text.trim();
  return token === '' ? `${from} is empty: it should hold an operator token` : { token, from };
}

/** `--reason`, required on every write (the api checks its length). */
export function reasonOption(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw new AuditUsageError('--reason is required: operator actions are part of the audit trail');
  return value;
}

/** Runs a write with an opened context and the authenticated operator; without one, prints why (exit 1). */
export function withOperator(
  io: CommandIo,
  name: string,
  values: { readonly config?: unknown; readonly 'token-file'?: unknown },
  body: (ctx: AuditContext, actor: string) => Promise<number>,
): Promise<number> {
  return withContext(io, name, values.config, async (ctx) => {
    const tokenFile = typeof values['token-file'] === 'string' ? values['token-file'] : undefined;
    const who = await operatorActor(io, ctx.fleet, tokenFile);
    if (!who.ok) {
      io.stderr.write(`portolan ${name}: ${who.message}\n`);
      return 1;
    }
    return body(ctx, who.actor);
  });
}
