import { TrafficScriptError } from './traffic-script-outcome.ts';

/**
 * TrafficScript's lexical layer for the interpreter: `#` comments, string literals and tokens. A double-quoted
 * string interpolates `$name` and `$1`…`$9` (TrafficScript's Perl-like strings); `\$` writes a literal `$`, so
 * generated rules escape every `$` of a user value. A `$` not followed by a name is literal (`"(:[0-9]+)?$"`).
 */

/** A string literal's parts: text, or a variable read when the literal is evaluated. */
export type StringPart = { readonly text: string } | { readonly variable: string };

export type Token =
  | { t: 'str'; v: string }
  | { t: 'tpl'; v: string; parts: readonly StringPart[] }
  | { t: 'var'; v: string }
  | { t: 'id'; v: string }
  | { t: 'op'; v: string };

/** Drops `#` comments outside string literals. */
export function stripComments(source: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < source.length; i += 1) {
    const c = source[i] as string;
    if (inString) {
      out += c;
      if (c === '\\') out += source[++i] ?? '';
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (c === '#') {
      while (i < source.length && source[i] !== '\n') i += 1;
      out += '\n';
    } else {
      out += c;
    }
  }
  return out;
}

const ESCAPES: Readonly<Record<string, string>> = { n: '\n', t: '\t', r: '\r' };
const VARIABLE = /^\$([A-Za-z_]\w*|[0-9])/;

function readString(src: string, start: number): { token: Token; end: number } {
  const parts: StringPart[] = [];
  let text = '';
  let i = start + 1;
  while (src[i] !== '"') {
    if (i >= src.length) throw new TrafficScriptError('unterminated string');
    const m = src[i] === '$' ? VARIABLE.exec(src.slice(i, i + 100)) : null;
    if (src[i] === '\\') {
      const e = src[i + 1] ?? '';
      text += ESCAPES[e] ?? e;
      i += 2;
    } else if (m !== null) {
      if (text !== '') parts.push({ text });
      text = '';
      parts.push({ variable: m[0] });
      i += m[0].length;
    } else {
      text += src[i];
      i += 1;
    }
  }
  if (parts.length === 0) return { token: { t: 'str', v: text }, end: i + 1 };
  if (text !== '') parts.push({ text });
  return { token: { t: 'tpl', v: src.slice(start, i + 1), parts }, end: i + 1 };
}

/** The rule's tokens; characters outside the subset are refused. */
export function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i] as string;
    const rest = src.slice(i, i + 200);
    let m: RegExpExecArray | null;
    if (/\s/.test(c)) {
      i += 1;
    } else if (c === '"') {
      const { token, end } = readString(src, i);
      tokens.push(token);
      i = end;
    } else if ((m = /^\$([A-Za-z_]\w*|[0-9])/.exec(rest)) !== null) {
      tokens.push({ t: 'var', v: m[0] });
      i += m[0].length;
    } else if ((m = /^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*/.exec(rest)) !== null) {
      tokens.push({ t: 'id', v: m[0] });
      i += m[0].length;
    } else if ((m = /^[0-9]+/.exec(rest)) !== null) {
      tokens.push({ t: 'str', v: m[0] });
      i += m[0].length;
    } else {
      const two = src.slice(i, i + 2);
      const op = ['||', '&&', '==', '!='].includes(two) ? two : c;
      if (op.length === 1 && !'()=,;{}.!'.includes(op))
        throw new TrafficScriptError(`unexpected character ${JSON.stringify(c)}`);
      tokens.push({ t: 'op', v: op });
      i += op.length;
    }
  }
  return tokens;
}
