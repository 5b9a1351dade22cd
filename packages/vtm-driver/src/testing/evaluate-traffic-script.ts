/**
 * A tiny interpreter for the TrafficScript subset the driver generates, used only by tests: it runs a rule
 * against a request so routing semantics are checked on the generated text itself, not on a copy of the logic.
 * Supported: `$v = expr;`, `if (expr) { … }`, `||`, `&&`, `==`, `.` (concatenation), string literals and the
 * functions listed in `builtins`. `pool.use`, `http.sendResponse` and `connection.discard` end the rule.
 */

/** The request a rule sees. */
export interface ScriptRequest {
  readonly host: string;
  /** Path and query as sent (http.getRawURL); http.getPath is the part before '?'. */
  readonly url: string;
  readonly sni?: string;
}

/** How a rule ended. `none` means it fell through to the virtual server's default pool. */
export type ScriptOutcome =
  | { readonly kind: 'pool'; readonly pool: string }
  | { readonly kind: 'response'; readonly status: string; readonly headers: string }
  | { readonly kind: 'discard' }
  | { readonly kind: 'none' };

type Token = { t: 'str'; v: string } | { t: 'var'; v: string } | { t: 'id'; v: string } | { t: 'op'; v: string };

class Stop {
  readonly outcome: ScriptOutcome;
  constructor(outcome: ScriptOutcome) {
    this.outcome = outcome;
  }
}

/** Runs a generated rule against a request. Throws on syntax it does not know (a generator bug). */
export function evaluateTrafficScript(source: string, request: ScriptRequest): ScriptOutcome {
  const tokens = tokenize(source.split('\n').filter((l) => !l.trimStart().startsWith('#')).join('\n'));
  const vars = new Map<string, string>();
  let pos = 0;
  const peek = (): Token | undefined => tokens[pos];
  const expect = (v: string): void => {
    const tok = tokens[pos++];
    if (tok?.v !== v) throw new Error(`expected ${v}, got ${tok?.v}`);
  };
  const builtins: Record<string, (args: string[]) => string> = {
    'string.lowercase': ([s]) => (s ?? '').toLowerCase(),
    'string.regexSub': ([s, re, rep]) => (s ?? '').replace(new RegExp(re ?? '', 'g'), rep ?? ''),
    'string.regexMatch': ([s, re]) => (new RegExp(re ?? '').test(s ?? '') ? '1' : ''),
    'string.startsWith': ([s, p]) => ((s ?? '').startsWith(p ?? '') ? '1' : ''),
    'http.getHostHeader': () => request.host,
    'http.getPath': () => request.url.split('?')[0] ?? '',
    'http.getRawURL': () => request.url,
    'ssl.getSNIName': () => request.sni ?? '',
    'pool.use': ([p]) => {
      throw new Stop({ kind: 'pool', pool: p ?? '' });
    },
    'http.sendResponse': ([status, , , headers]) => {
      throw new Stop({ kind: 'response', status: status ?? '', headers: headers ?? '' });
    },
    'connection.discard': () => {
      throw new Stop({ kind: 'discard' });
    },
  };
  const primary = (): string => {
    const tok = tokens[pos++];
    if (tok === undefined) throw new Error('unexpected end');
    if (tok.t === 'str') return tok.v;
    if (tok.t === 'var') return vars.get(tok.v) ?? '';
    if (tok.t === 'op' && tok.v === '(') {
      const v = orExpr();
      expect(')');
      return v;
    }
    if (tok.t === 'id') {
      const fn = builtins[tok.v];
      if (fn === undefined) throw new Error(`unknown function ${tok.v}`);
      expect('(');
      const args: string[] = [];
      while (peek()?.v !== ')') {
        args.push(orExpr());
        if (peek()?.v === ',') pos += 1;
      }
      expect(')');
      return fn(args);
    }
    throw new Error(`unexpected ${tok.v}`);
  };
  const binary = (next: () => string, op: string, combine: (a: string, b: string) => string) => (): string => {
    let left = next();
    while (peek()?.t === 'op' && peek()?.v === op) {
      pos += 1;
      left = combine(left, next());
    }
    return left;
  };
  const concat = binary(primary, '.', (a, b) => a + b);
  const equality = binary(concat, '==', (a, b) => (a === b ? '1' : ''));
  const andExpr = binary(equality, '&&', (a, b) => (a !== '' && b !== '' ? '1' : ''));
  const orExpr = binary(andExpr, '||', (a, b) => (a !== '' || b !== '' ? '1' : ''));
  const statement = (): void => {
    const tok = peek();
    if (tok?.t === 'id' && tok.v === 'if') {
      pos += 1;
      expect('(');
      const cond = orExpr();
      expect(')');
      expect('{');
      const start = pos;
      let depth = 1;
      while (depth > 0) {
        const v = tokens[pos++]?.v;
        if (v === undefined) throw new Error('unclosed block');
        if (v === '{') depth += 1;
        if (v === '}') depth -= 1;
      }
      const end = pos;
      if (cond !== '') {
        pos = start;
        while (pos < end - 1) statement();
        pos = end;
      }
      return;
    }
    if (tok?.t === 'var' && tokens[pos + 1]?.v === '=') {
      pos += 2;
      vars.set(tok.v, orExpr());
    } else {
      orExpr();
    }
    expect(';');
  };
  try {
    while (pos < tokens.length) statement();
  } catch (error) {
    if (error instanceof Stop) return error.outcome;
    throw error;
  }
  return { kind: 'none' };
}

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i] as string;
    if (/\s/.test(c)) {
      i += 1;
    } else if (c === '"') {
      let v = '';
      i += 1;
      while (src[i] !== '"') {
        if (i >= src.length) throw new Error('unterminated string');
        if (src[i] === '\\') {
          const e = src[i + 1];
          v += e === 'n' ? '\n' : e === 't' ? '\t' : e === 'r' ? '\r' : (e ?? '');
          i += 2;
        } else {
          v += src[i];
          i += 1;
        }
      }
      i += 1;
      tokens.push({ t: 'str', v });
    } else if (c === '$') {
      const m = /^\$[A-Za-z_]\w*/.exec(src.slice(i));
      if (m === null) throw new Error('bad variable');
      tokens.push({ t: 'var', v: m[0] });
      i += m[0].length;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][\w]*(\.[A-Za-z_]\w*)*/.exec(src.slice(i)) as RegExpExecArray;
      tokens.push({ t: 'id', v: m[0] });
      i += m[0].length;
    } else {
      const two = src.slice(i, i + 2);
      const op = two === '||' || two === '&&' || two === '==' ? two : c;
      if (!'()=,;{}.|&'.includes(op[0] as string)) throw new Error(`unexpected character ${c}`);
      tokens.push({ t: 'op', v: op });
      i += op.length;
    }
  }
  return tokens;
}
