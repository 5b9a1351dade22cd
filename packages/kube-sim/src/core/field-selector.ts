import type { KubeObject, ResourceType } from './resource-types.ts';

/** One field selector term (fields.Requirement): `=`/`==` or `!=` on one field label. */
export interface FieldRequirement {
  readonly field: string;
  readonly op: 'eq' | 'neq';
  readonly value: string;
}

/** A parsed field selector: all terms must hold. */
export type FieldSelector = readonly FieldRequirement[];

/** Result of parsing: the selector, or the message for a malformed or unsupported one. */
export type FieldSelectorParse =
  { readonly ok: true; readonly selector: FieldSelector } | { readonly ok: false; readonly message: string };

/** Splits on an unescaped separator, keeping backslash escapes for the next stage. */
function splitUnescaped(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] ?? '';
    if (ch === '\\' && i + 1 < text.length) {
      current += ch + (text[i + 1] ?? '');
      i++;
    } else if (ch === separator) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts;
}

function unescape(text: string): string {
  return text.replace(/\\(.)/g, '$1');
}

function parseTerm(term: string): FieldRequirement | null {
  const match = /^((?:[^=!\\]|\\.)+?)(==|!=|=)((?:[^\\]|\\.)*)$/.exec(term);
  if (match === null) return null;
  const op = match[2] === '!=' ? 'neq' : 'eq';
  return { field: unescape(match[1] ?? '').trim(), op, value: unescape(match[3] ?? '') };
}

/** Parses a `fieldSelector` query value and checks each field label is supported for the type. */
export function parseFieldSelector(text: string | null | undefined, type: ResourceType): FieldSelectorParse {
  if (text === null || text === undefined || text.trim() === '') return { ok: true, selector: [] };
  const terms: FieldRequirement[] = [];
  for (const raw of splitUnescaped(text, ',')) {
    const term = parseTerm(raw);
    if (term === null) return { ok: false, message: `invalid selector: '${text}'; can't understand '${raw}'` };
    const supported =
      term.field === 'metadata.name' || term.field === 'metadata.namespace' || type.fieldLabels.includes(term.field);
    if (!supported) return { ok: false, message: `field label not supported: ${term.field}` };
    terms.push(term);
  }
  return { ok: true, selector: terms };
}

function pathValue(obj: unknown, path: readonly string[]): string {
  let current: unknown = obj;
  for (const part of path) {
    if (current === null || typeof current !== 'object') return '';
    current = (current as Record<string, unknown>)[part];
  }
  if (current === undefined || current === null) return '';
  return typeof current === 'string' ? current : JSON.stringify(current);
}

/** The value of one field label on an object, as the API server's field-label conversion gives it. */
export function fieldValue(obj: KubeObject, field: string): string {
  if (field === 'source') return pathValue(obj, ['source', 'component']);
  if (field === 'spec.unschedulable') return pathValue(obj, ['spec', 'unschedulable']) === 'true' ? 'true' : 'false';
  return pathValue(obj, field.split('.'));
}

/** True when the object satisfies every term of the field selector. */
export function matchesFields(selector: FieldSelector, obj: KubeObject): boolean {
  return selector.every((req) => (fieldValue(obj, req.field) === req.value) === (req.op === 'eq'));
}
