/**
 * An interpreter for the TrafficScript subset Portolan generates (and simple hand-written request rules), used by
 * the emulator's data plane and by tests that check routing on the generated text itself.
 * Supported: `$v = expr;`, `if (expr) { … } else { … }`, `||`, `&&`, `==`, `!=`, `!`, `.` (concatenation),
 * string and integer literals, `#` comments and the functions in `builtins`. `pool.use`, `http.sendResponse`,
 * `http.redirect` and `connection.discard` end the rule. Anything else is refused with TrafficScriptError.
 */
import { PortolanError } from '@portolan/errors';

/** The request a rule sees. */
export interface ScriptRequest {
  readonly host: string;
  /** Path and query as sent (http.getRawURL); http.getPath is the part before '?'. */
  readonly url: string;
  /** HTTP method; GET when absent. */
  readonly method?: string;
  readonly sni?: string;
  /** Request headers by lower-case name (http.getHeader). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** How a rule ended. `none` means it fell through (the next rule, then the virtual server's default pool). */
export type RuleOutcome =
  | { readonly kind: 'pool'; readonly pool: string; readonly node: string | null }
  | {
      readonly kind: 'response';
      readonly status: string;
      readonly contentType: string;
      readonly body: string;
      readonly headers: string;
    }
  | { readonly kind: 'redirect'; readonly location: string }
  | { readonly kind: 'discard' }
  | { readonly kind: 'none' };

/** A rule uses syntax or a function this interpreter does not know (a generator bug, or a rule beyond the subset). */
export class TrafficScriptError extends PortolanError {
  readonly code = 'TRAFFIC_SCRIPT_UNSUPPORTED';
}

type Token = { t: 'str'; v: string } | { t: 'var'; v: string } | { t: 'id'; v: string } | { t: 'op'; v: string };

/** Thrown inside the interpreter to end the rule with an outcome. */
class Stop {
  readonly outcome: RuleOutcome;
  constructor(outcome: RuleOutcome) {
    this.outcome = outcome;
  }
}

const TRUE = '1';
const FALSE = '';

/** Runs one rule against a request. */
export function runTrafficScript(source: string, request: ScriptRequest): RuleOutcome {
  const interpreter = new Interpreter(tokenize(stripComments(source)), builtinsFor(request));
  try {
    interpreter.run();
  } catch (error) {
    if (error instanceof Stop) return error.outcome;
    throw error;
  }
  return { kind: 'none' };
}

function builtinsFor(request: ScriptRequest): Readonly<Record<string, (args: string[]) => string>> {
  const stop = (outcome: RuleOutcome): never => {
    throw new Stop(outcome);
  };
  const regex = (re: string | undefined, flags = ''): RegExp => {
    try {
      return new RegExp(re ?? '', flags);
    } catch {
      throw new TrafficScriptError(`invalid regular expression ${JSON.stringify(re)}`);
    }
  };
  return {
    'string.lowercase': ([s]) => (s ?? '').toLowerCase(),
    'string.uppercase': ([s]) => (s ?? '').toUpperCase(),
    'string.regexSub': ([s, re, rep]) => (s ?? '').replace(regex(re, 'g'), rep ?? ''),
    'string.regexMatch': ([s, re]) => (regex(re).test(s ?? '') ? TRUE : FALSE),
    'string.startsWith': ([s, p]) => ((s ?? '').startsWith(p ?? '') ? TRUE : FALSE),
    'string.endsWith': ([s, p]) => ((s ?? '').endsWith(p ?? '') ? TRUE : FALSE),
    'http.getHostHeader': () => request.host,
    'http.getHeader': ([name]) => request.headers?.[(name ?? '').toLowerCase()] ?? '',
    'http.getMethod': () => request.method ?? 'GET',
    'http.getPath': () => request.url.split('?')[0] ?? '',
    'http.getRawURL': () => request.url,
    'http.getQueryString': () => (request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : ''),
    'ssl.getSNIName': () => request.sni ?? '',
    'pool.use': ([pool, node, port]) =>
      stop({
        kind: 'pool',
        pool: pool ?? '',
        node: node === undefined ? null : port === undefined ? node : `${node}:${port}`,
      }),
    'http.sendResponse': ([status, contentType, body, headers]) =>
      stop({
        kind: 'response',
        status: status ?? '',
        contentType: contentType ?? '',
        body: body ?? '',
        headers: headers ?? '',
      }),
    'http.redirect': ([location]) => stop({ kind: 'redirect', location: location ?? '' }),
    'connection.discard': () => stop({ kind: 'discard' }),
  };
}

/**
 * A recursive-descent evaluator over the token list; expressions evaluate to strings ('' is false). Mutable by
 * design: its cursor and variables live for one rule evaluation and are never shared.
 */
class Interpreter {
  readonly #tokens: readonly Token[];
  readonly #builtins: Readonly<Record<string, (args: string[]) => string>>;
  readonly #vars = new Map<string, string>();
  #pos = 0;

  constructor(tokens: readonly Token[], builtins: Readonly<Record<string, (args: string[]) => string>>) {
    this.#tokens = tokens;
    this.#builtins = builtins;
  }

  run(): void {
    while (this.#pos < this.#tokens.length) this.#statement();
  }

  #peek(offset = 0): Token | undefined {
    return this.#tokens[this.#pos + offset];
  }

  #expect(v: string): void {
    const tok = this.#tokens[this.#pos++];
    if (tok?.v !== v || tok.t === 'str')
      throw new TrafficScriptError(`expected "${v}", got ${tok === undefined ? 'end of rule' : `"${tok.v}"`}`);
  }

  #statement(): void {
    const tok = this.#peek();
    if (tok?.t === 'id' && tok.v === 'if') return this.#ifStatement();
    if (tok?.t === 'var' && this.#peek(1)?.v === '=' && this.#peek(1)?.t === 'op') {
      this.#pos += 2;
      this.#vars.set(tok.v, this.#or());
    } else {
      this.#or();
    }
    this.#expect(';');
  }

  #ifStatement(): void {
    this.#pos += 1;
    this.#expect('(');
    const taken = this.#or() !== FALSE;
    this.#expect(')');
    this.#block(taken);
    let chainTaken = taken;
    while (this.#peek()?.t === 'id' && this.#peek()?.v === 'else') {
      this.#pos += 1;
      if (this.#peek()?.t === 'id' && this.#peek()?.v === 'if') {
        this.#pos += 1;
        this.#expect('(');
        // The condition is evaluated only when no earlier branch ran (it may call functions that end the rule).
        const cond = chainTaken ? this.#skipParenthesised() : this.#or() !== FALSE;
        if (!chainTaken) this.#expect(')');
        this.#block(!chainTaken && cond);
        chainTaken ||= cond;
      } else {
        this.#block(!chainTaken);
        return;
      }
    }
  }

  /** Skips `… )` without evaluating; returns false. */
  #skipParenthesised(): boolean {
    let depth = 1;
    while (depth > 0) {
      const tok = this.#tokens[this.#pos++];
      if (tok === undefined) throw new TrafficScriptError('unclosed parenthesis');
      if (tok.t === 'op' && tok.v === '(') depth += 1;
      if (tok.t === 'op' && tok.v === ')') depth -= 1;
    }
    return false;
  }

  /** `{ … }`: runs the statements when `run`, else skips to the matching brace. */
  #block(run: boolean): void {
    this.#expect('{');
    const start = this.#pos;
    let depth = 1;
    while (depth > 0) {
      const tok = this.#tokens[this.#pos++];
      if (tok === undefined) throw new TrafficScriptError('unclosed block');
      if (tok.t === 'op' && tok.v === '{') depth += 1;
      if (tok.t === 'op' && tok.v === '}') depth -= 1;
    }
    const end = this.#pos;
    if (!run) return;
    this.#pos = start;
    while (this.#pos < end - 1) this.#statement();
    this.#pos = end;
  }

  #binary(next: () => string, ops: Readonly<Record<string, (a: string, b: string) => string>>): string {
    let left = next();
    for (;;) {
      const tok = this.#peek();
      const combine = tok?.t === 'op' ? ops[tok.v] : undefined;
      if (combine === undefined) return left;
      this.#pos += 1;
      left = combine(left, next());
    }
  }

  #or(): string {
    return this.#binary(() => this.#and(), { '||': (a, b) => (a !== FALSE || b !== FALSE ? TRUE : FALSE) });
  }

  #and(): string {
    return this.#binary(() => this.#equality(), { '&&': (a, b) => (a !== FALSE && b !== FALSE ? TRUE : FALSE) });
  }

  #equality(): string {
    return this.#binary(() => this.#concat(), {
      '==': (a, b) => (a === b ? TRUE : FALSE),
      '!=': (a, b) => (a !== b ? TRUE : FALSE),
    });
  }

  #concat(): string {
    return this.#binary(() => this.#unary(), { '.': (a, b) => a + b });
  }

  #unary(): string {
    const tok = this.#peek();
    if (tok?.t === 'op' && tok.v === '!') {
      this.#pos += 1;
      return this.#unary() === FALSE ? TRUE : FALSE;
    }
    return this.#primary();
  }

  #primary(): string {
    const tok = this.#tokens[this.#pos++];
    if (tok === undefined) throw new TrafficScriptError('unexpected end of rule');
    if (tok.t === 'str') return tok.v;
    if (tok.t === 'var') return this.#vars.get(tok.v) ?? '';
    if (tok.t === 'op' && tok.v === '(') {
      const v = this.#or();
      this.#expect(')');
      return v;
    }
    if (tok.t === 'id') return this.#call(tok.v);
    throw new TrafficScriptError(`unexpected "${tok.v}"`);
  }

  #call(name: string): string {
    const fn = this.#builtins[name];
    if (fn === undefined) throw new TrafficScriptError(`unknown function ${name}`);
    this.#expect('(');
    const args: string[] = [];
    while (!(this.#peek()?.t === 'op' && this.#peek()?.v === ')')) {
      args.push(this.#or());
      if (this.#peek()?.t === 'op' && this.#peek()?.v === ',') this.#pos += 1;
      else if (!(this.#peek()?.t === 'op' && this.#peek()?.v === ')'))
        throw new TrafficScriptError(`expected "," or ")" in call of ${name}`);
    }
    this.#expect(')');
    return fn(args);
  }
}

/** Drops `#` comments outside string literals. */
function stripComments(source: string): string {
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

function readString(src: string, start: number): { value: string; end: number } {
  let value = '';
  let i = start + 1;
  while (src[i] !== '"') {
    if (i >= src.length) throw new TrafficScriptError('unterminated string');
    if (src[i] === '\\') {
      const e = src[i + 1] ?? '';
      value += ESCAPES[e] ?? e;
      i += 2;
    } else {
      value += src[i];
      i += 1;
    }
  }
  return { value, end: i + 1 };
}

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i] as string;
    const rest = src.slice(i, i + 200);
    let m: RegExpExecArray | null;
    if (/\s/.test(c)) {
      i += 1;
    } else if (c === '"') {
      const { value, end } = readString(src, i);
      tokens.push({ t: 'str', v: value });
      i = end;
    } else if ((m = /^\$[A-Za-z_]\w*/.exec(rest)) !== null) {
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
