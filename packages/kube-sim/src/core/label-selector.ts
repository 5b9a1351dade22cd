/** One label selector requirement (labels.Requirement). */
export type LabelRequirement =
  | { readonly key: string; readonly op: 'exists' | 'notexists' }
  | { readonly key: string; readonly op: 'in' | 'notin'; readonly values: readonly string[] }
  | { readonly key: string; readonly op: 'gt' | 'lt'; readonly value: number };

/** A parsed label selector: all requirements must hold (an empty list matches everything). */
export type LabelSelector = readonly LabelRequirement[];

/** Result of parsing: the selector, or the message the API server gives for a bad one. */
export type LabelSelectorParse =
  { readonly ok: true; readonly selector: LabelSelector } | { readonly ok: false; readonly message: string };

const keyPattern = /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const valuePattern = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** Splits on commas that are not inside parentheses. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts;
}

function checkKey(key: string): string | null {
  const name = key.includes('/') ? key.slice(key.indexOf('/') + 1) : key;
  if (!keyPattern.test(key) || name.length > 63)
    return `unable to parse requirement: invalid label key "${key}": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`;
  return null;
}

function checkValue(value: string): string | null {
  if (value.length > 63 || !valuePattern.test(value))
    return `unable to parse requirement: invalid label value: "${value}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`;
  return null;
}

function parseSet(key: string, op: 'in' | 'notin', rest: string): LabelRequirement | string {
  const trimmed = rest.trim();
  if (!trimmed.startsWith('(') || !trimmed.endsWith(')'))
    return `unable to parse requirement: found '${trimmed}', expected: '('`;
  const values = trimmed
    .slice(1, -1)
    .split(',')
    .map((v) => v.trim());
  for (const v of values) {
    const bad = checkValue(v);
    if (bad !== null) return bad;
  }
  return { key, op, values };
}

function parseRequirement(raw: string): LabelRequirement | string {
  const text = raw.trim();
  if (text.startsWith('!')) {
    const key = text.slice(1).trim();
    return checkKey(key) ?? { key, op: 'notexists' };
  }
  const setMatch = /^(\S+)\s+(in|notin)\s*(\(.*\))$/.exec(text);
  if (setMatch !== null) {
    const key = setMatch[1] ?? '';
    return checkKey(key) ?? parseSet(key, setMatch[2] === 'in' ? 'in' : 'notin', setMatch[3] ?? '');
  }
  const opMatch = /^([^=!<>\s]+)\s*(==|!=|=|<|>)\s*(.*)$/.exec(text);
  if (opMatch === null) {
    return checkKey(text) ?? { key: text, op: 'exists' };
  }
  const key = opMatch[1] ?? '';
  const op = opMatch[2] ?? '';
  const value = (opMatch[3] ?? '').trim();
  const badKey = checkKey(key);
  if (badKey !== null) return badKey;
  if (op === '<' || op === '>') {
    const n = Number(value);
    if (!/^-?\d+$/.test(value))
      return `unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer`;
    return { key, op: op === '>' ? 'gt' : 'lt', value: n };
  }
  const badValue = checkValue(value);
  if (badValue !== null) return badValue;
  return { key, op: op === '!=' ? 'notin' : 'in', values: [value] };
}

/** Parses a `labelSelector` query value with the grammar of k8s.io/apimachinery labels.Parse. */
export function parseLabelSelector(text: string | null | undefined): LabelSelectorParse {
  if (text === null || text === undefined || text.trim() === '') return { ok: true, selector: [] };
  const requirements: LabelRequirement[] = [];
  for (const part of splitTopLevel(text)) {
    if (part.trim() === '')
      return { ok: false, message: `unable to parse requirement: found '', expected: identifier` };
    const parsed = parseRequirement(part);
    if (typeof parsed === 'string') return { ok: false, message: parsed };
    requirements.push(parsed);
  }
  return { ok: true, selector: requirements };
}

function matchesRequirement(req: LabelRequirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.hasOwn(labels, req.key);
  const value = has ? labels[req.key] : undefined;
  switch (req.op) {
    case 'exists':
      return has;
    case 'notexists':
      return !has;
    case 'in':
      return value !== undefined && req.values.includes(value);
    case 'notin':
      return value === undefined || !req.values.includes(value);
    case 'gt':
      return value !== undefined && /^-?\d+$/.test(value) && Number(value) > req.value;
    case 'lt':
      return value !== undefined && /^-?\d+$/.test(value) && Number(value) < req.value;
  }
}

/** True when the labels satisfy every requirement of the selector. */
export function matchesLabels(selector: LabelSelector, labels: Readonly<Record<string, string>> | undefined): boolean {
  const set = labels ?? {};
  return selector.every((req) => matchesRequirement(req, set));
}
