import type { CommandContext } from '../command-context.ts';
import type { LmParams } from '../lm-params.ts';
import type { LmResult } from '../lm-result.ts';
import { fail, missing, okData, okDone, strings } from '../lm-result.ts';

/** API key commands: at most 16 keys per user, the oldest evicted when a 17th is added. */

const MAX_KEYS_PER_USER = 16;

function keysOf(ctx: CommandContext, user: string): string[] {
  return ctx.store.state.apiKeys.filter((k) => k.user === user).map((k) => k.key);
}

/** `addapikey`: creates a key for the calling user and returns the user's keys. */
export function addApiKey(ctx: CommandContext): LmResult {
  ctx.store.state.apiKeys.push({ key: ctx.newApiKey(), user: ctx.user });
  const mine = keysOf(ctx, ctx.user);
  if (mine.length > MAX_KEYS_PER_USER) {
    const oldest = mine[0];
    ctx.store.state.apiKeys = ctx.store.state.apiKeys.filter((k) => k.key !== oldest);
  }
  return okData({ ApiKeys: strings('ApiKey', keysOf(ctx, ctx.user)) }, true);
}

/** `listapikeys`: the calling user's keys. */
export function listApiKeys(ctx: CommandContext): LmResult {
  return okData({ ApiKeys: strings('ApiKey', keysOf(ctx, ctx.user)) });
}

/** `delapikey?key=…[&user=…]`: deletes one key (of the caller unless `user` names another). */
export function delApiKey(ctx: CommandContext, params: LmParams): LmResult {
  const key = params.get('key');
  if (key === undefined || key === '') return missing('key');
  const user = params.get('user') ?? ctx.user;
  const found = ctx.store.state.apiKeys.find((k) => k.key === key && k.user === user);
  if (found === undefined) return fail(422, 'Unknown API key');
  ctx.store.state.apiKeys = ctx.store.state.apiKeys.filter((k) => k !== found);
  return okDone();
}
