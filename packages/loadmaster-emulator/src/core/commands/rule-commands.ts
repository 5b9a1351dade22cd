import type { CommandContext } from '../command-context.ts';
import type { LmParams } from '../lm-params.ts';
import { parseLmBool, parseLmInt } from '../lm-params.ts';
import type { LmOutObject, LmResult } from '../lm-result.ts';
import { fail, missing, okData, okDone } from '../lm-result.ts';
import type { LmRule, LmVirtualService, LmVsRules } from '../lm-state.ts';
import { defaultRule } from '../lm-state.ts';
import { compileRulePattern } from '../rule-match.ts';

/** Content rule commands: system-wide rules by name, their assignment to real servers, SubVSs and VSs. */

const MAX_RULES = 1024;
const RULE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const TYPE_TAGS = [
  'MatchContentRule',
  'AddHeaderRule',
  'DeleteHeaderRule',
  'ReplaceHeaderRule',
  'ModifyURLRule',
  'ReplaceBodyRule',
];

/** `addrule`: creates a rule; type 0 (match content) by default; `pattern` mandatory except for type 1. */
export function addRule(ctx: CommandContext, params: LmParams): LmResult {
  const name = params.get('name');
  if (name === undefined || name === '') return missing('name');
  if (!RULE_NAME.test(name)) return fail(422, 'Invalid rule name');
  if (ctx.store.rule(name) !== undefined) return fail(422, 'Rule already exists');
  if (ctx.store.state.rules.length >= MAX_RULES) return fail(422, 'Too many rules');
  const type = parseLmInt(params.get('type') ?? '0', 0, 5);
  if (type === null) return fail(422, 'Invalid rule type');
  const rule = defaultRule(name, type as LmRule['type']);
  const error = applyRuleParams(rule, params) ?? requiredOf(rule);
  if (error !== null) return error;
  ctx.store.state.rules.push(rule);
  return okDone();
}

/** `modrule`: changes an existing rule's parameters (its type stays). */
export function modRule(ctx: CommandContext, params: LmParams): LmResult {
  const name = params.get('name');
  if (name === undefined || name === '') return missing('name');
  const rule = ctx.store.rule(name);
  if (rule === undefined) return fail(422, 'Rule not found');
  const copy = { ...rule };
  const error = applyRuleParams(copy, params) ?? requiredOf(copy);
  if (error !== null) return error;
  Object.assign(rule, copy);
  return okDone();
}

/** `delrule`: deletes a rule that nothing refers to. */
export function delRule(ctx: CommandContext, params: LmParams): LmResult {
  const name = params.get('name');
  if (name === undefined || name === '') return missing('name');
  if (ctx.store.rule(name) === undefined) return fail(422, 'Rule not found');
  if (ctx.store.isRuleInUse(name)) return fail(422, 'Rule is in use');
  ctx.store.state.rules = ctx.store.state.rules.filter((r) => r.name !== name);
  return okDone();
}

/** `showrule[?name=][&type=]`: rules grouped in arrays per type (`MatchContentRule`, `AddHeaderRule`, …). */
export function showRule(ctx: CommandContext, params: LmParams): LmResult {
  const name = params.get('name');
  let rules = ctx.store.state.rules;
  if (name !== undefined && name !== '') {
    rules = rules.filter((r) => r.name === name);
    if (rules.length === 0) return fail(422, 'Rule not found');
  }
  const type = params.get('type');
  if (type !== undefined && type !== '') rules = rules.filter((r) => String(r.type) === type);
  const out: Record<string, LmOutObject[]> = {};
  for (const rule of rules) {
    const tag = TYPE_TAGS[rule.type] ?? 'MatchContentRule';
    (out[tag] ??= []).push(viewRule(rule));
  }
  return okData(out);
}

/** `addrsrule` / `delrsrule`: assigns a rule to a real server or, by `rs=!<RsIndex>`, to a SubVS in its parent. */
export function assignRsRule(ctx: CommandContext, params: LmParams, add: boolean): LmResult {
  for (const p of ['vs', 'rs', 'rule']) if (!params.has(p)) return missing(p);
  const vs = ctx.store.resolveVs(params);
  if (vs === undefined) return fail(422, 'Unknown VS');
  const rs = ctx.store.resolveRs(vs, params);
  if (rs === undefined) return fail(422, 'Unknown Real Server');
  const name = params.get('rule') ?? '';
  const rule = ctx.store.rule(name);
  if (rule === undefined) return fail(422, 'Rule not found');
  if (add) {
    if (rule.type !== 0) return fail(422, 'Only content matching rules can be assigned to Real Servers');
    if (rs.rules.includes(name)) return fail(422, 'Rule already assigned');
    rs.rules.push(name);
  } else {
    if (!rs.rules.includes(name)) return fail(422, 'Rule not assigned');
    rs.rules = rs.rules.filter((r) => r !== name);
  }
  return okDone();
}

/** Which rule types a VS-level list accepts. */
const VS_LIST_TYPES: Record<keyof LmVsRules, readonly number[]> = {
  pre: [0],
  request: [1, 2, 3, 4],
  response: [1, 2, 3],
  responsebody: [5],
};

/** `addprerule`, `addrequestrule`, `addresponserule`, `addresponsebodyrule` and their `del…` twins. */
export function assignVsRule(ctx: CommandContext, params: LmParams, list: keyof LmVsRules, add: boolean): LmResult {
  for (const p of ['vs', 'rule']) if (!params.has(p)) return missing(p);
  const vs: LmVirtualService | undefined = ctx.store.resolveVs(params);
  if (vs === undefined) return fail(422, 'Unknown VS');
  const name = params.get('rule') ?? '';
  const rule = ctx.store.rule(name);
  if (rule === undefined) return fail(422, 'Rule not found');
  const current = vs.rules[list];
  if (add) {
    if (!VS_LIST_TYPES[list].includes(rule.type)) return fail(422, 'Rule type not valid here');
    if (current.includes(name)) return fail(422, 'Rule already assigned');
    vs.rules[list] = [...current, name];
  } else {
    if (!current.includes(name)) return fail(422, 'Rule not assigned');
    vs.rules[list] = current.filter((r) => r !== name);
  }
  return okDone();
}

function viewRule(rule: LmRule): LmOutObject {
  const base = { Name: rule.name, Pattern: rule.pattern };
  if (rule.type !== 0)
    return {
      ...base,
      Header: rule.header,
      Replacement: rule.replacement,
      OnlyOnFlag: rule.onlyOnFlag,
      OnlyOnNoFlag: rule.onlyOnNoFlag,
    };
  return {
    ...base,
    MatchType: rule.matchType === 'regex' ? 'Regex' : rule.matchType === 'prefix' ? 'Prefix' : 'Postfix',
    AddHost: rule.incHost,
    Negate: rule.negate,
    CaseIndependent: rule.noCase,
    IncludeQuery: rule.incQuery,
    Header: rule.header,
    MustFail: rule.mustFail,
    SetOnMatch: rule.setOnMatch,
    OnlyOnFlag: rule.onlyOnFlag,
    OnlyOnNoFlag: rule.onlyOnNoFlag,
  };
}

const BOOLS = {
  inchost: 'incHost',
  incquery: 'incQuery',
  nocase: 'noCase',
  negate: 'negate',
  mustfail: 'mustFail',
  caseindependent: 'noCase',
} as const;
const FLAGS = { setonmatch: 'setOnMatch', onlyonflag: 'onlyOnFlag', onlyonnoflag: 'onlyOnNoFlag' } as const;

function applyRuleParams(rule: LmRule, params: LmParams): LmResult | null {
  const matchType = params.get('matchtype')?.toLowerCase();
  if (matchType !== undefined) {
    if (matchType !== 'regex' && matchType !== 'prefix' && matchType !== 'postfix')
      return fail(422, 'Invalid matchtype');
    rule.matchType = matchType;
  }
  for (const [p, field] of Object.entries(BOOLS)) {
    const raw = params.get(p);
    if (raw === undefined) continue;
    const b = parseLmBool(raw);
    if (b === null) return fail(422, `Invalid ${p} value`);
    rule[field] = b;
  }
  for (const [p, field] of Object.entries(FLAGS)) {
    const raw = params.get(p);
    if (raw === undefined) continue;
    const n = parseLmInt(raw === '' ? '0' : raw, 0, 9);
    if (n === null) return fail(422, `Invalid ${p} value`);
    rule[field] = n;
  }
  rule.pattern = params.get('pattern') ?? rule.pattern;
  rule.header = params.get('header') ?? rule.header;
  rule.replacement = params.get('replacement') ?? params.get('headervalue') ?? rule.replacement;
  if (rule.pattern.length > 250) return fail(422, 'Pattern too long');
  if (rule.type !== 0 && rule.setOnMatch !== 0) return fail(422, 'setonmatch is only valid for content matching rules');
  if (CONTROL.test(rule.pattern + rule.header + rule.replacement)) return fail(422, 'Invalid character');
  if (rule.header !== '' && !HEADER_NAME.test(rule.header)) return fail(422, 'Invalid header name');
  const regex = rule.type === 0 ? rule.matchType === 'regex' : rule.pattern.startsWith('/');
  if (regex && rule.pattern !== '' && compileRulePattern(rule) === null) {
    return fail(422, 'Invalid regular expression');
  }
  return null;
}

const CONTROL = /[\x00-\x1f\x7f]/;
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

/**
 * The parameters each rule type needs: a match (0), delete-header (2) and modify-URL (4) rule a `pattern`; an
 * add-header rule (1) the `header` to add; a replace-header rule (3) both the `header` and the `pattern`.
 */
function requiredOf(rule: LmRule): LmResult | null {
  if ((rule.type === 1 || rule.type === 3) && rule.header === '') return missing('header');
  if (rule.type !== 1 && rule.pattern === '') return missing('pattern');
  return null;
}
