import type { CommandContext } from './command-context.ts';
import type { LmParams } from './lm-params.ts';
import type { LmResult } from './lm-result.ts';
import { fail } from './lm-result.ts';
import { addVs, delVs, listVs, modVs, showVs } from './commands/vs-commands.ts';
import { addRs, delRs, modRs, showRs } from './commands/rs-commands.ts';
import { addRule, assignRsRule, assignVsRule, delRule, modRule, showRule } from './commands/rule-commands.ts';
import { addCert, delCert, listCert, readCert } from './commands/cert-commands.ts';
import { addApiKey, delApiKey, listApiKeys } from './commands/apikey-commands.ts';

type Handler = (ctx: CommandContext, params: LmParams) => LmResult;

/** Every command the emulator implements; both wire formats dispatch here, so they share one state. */
const COMMANDS: Readonly<Record<string, Handler>> = {
  listvs: listVs,
  showvs: showVs,
  addvs: addVs,
  modvs: modVs,
  delvs: delVs,
  addrs: addRs,
  modrs: modRs,
  delrs: delRs,
  showrs: showRs,
  addrule: addRule,
  modrule: modRule,
  delrule: delRule,
  showrule: showRule,
  addrsrule: (c, p) => assignRsRule(c, p, true),
  delrsrule: (c, p) => assignRsRule(c, p, false),
  addprerule: (c, p) => assignVsRule(c, p, 'pre', true),
  delprerule: (c, p) => assignVsRule(c, p, 'pre', false),
  addrequestrule: (c, p) => assignVsRule(c, p, 'request', true),
  delrequestrule: (c, p) => assignVsRule(c, p, 'request', false),
  addresponserule: (c, p) => assignVsRule(c, p, 'response', true),
  delresponserule: (c, p) => assignVsRule(c, p, 'response', false),
  addresponsebodyrule: (c, p) => assignVsRule(c, p, 'responsebody', true),
  delresponsebodyrule: (c, p) => assignVsRule(c, p, 'responsebody', false),
  addcert: addCert,
  listcert: listCert,
  readcert: readCert,
  delcert: delCert,
  addapikey: addApiKey,
  listapikeys: listApiKeys,
  delapikey: delApiKey,
};

/** Runs one command against the state. Unknown commands answer 405 as the appliance does. */
export function runCommand(command: string, ctx: CommandContext, params: LmParams): LmResult {
  const handler = Object.hasOwn(COMMANDS, command.toLowerCase()) ? COMMANDS[command.toLowerCase()] : undefined;
  if (handler === undefined) return fail(405, 'Unknown command');
  return handler(ctx, params);
}

/** True when the command name is one the emulator implements. */
export function isKnownCommand(command: string): boolean {
  return Object.hasOwn(COMMANDS, command.toLowerCase());
}
