/**
 * An interpreter for the TrafficScript subset Portolan generates (and simple hand-written rules), used by the
 * emulator's data plane and by tests that check routing on the generated text itself.
 * Supported: `$v = expr;`, `if (expr) { … } else { … }`, `||`, `&&`, `==`, `!=`, `!`, `.` (concatenation),
 * string and integer literals (double-quoted strings interpolate `$v`), `#` comments and the functions in
 * `traffic-script-builtins.ts`. `pool.use`, `http.sendResponse`, `http.redirect` and `connection.discard` end the
 * rule. Anything else is refused with TrafficScriptError.
 */
import { builtinsFor, RuleStop, type Builtin, type RulePhase } from './traffic-script-builtins.ts';
import { TrafficScriptError, type RuleOutcome } from './traffic-script-outcome.ts';
import { stripComments, tokenize, type Token } from './traffic-script-tokens.ts';
import { newTransaction, type HttpTransaction, type TransactionInput } from './traffic-script-transaction.ts';

export { TrafficScriptError, type RuleOutcome } from './traffic-script-outcome.ts';

/** The request a rule sees (headers by lower-case name for http.getHeader). */
export type ScriptRequest = TransactionInput;

const TRUE = '1';
const FALSE = '';

/**
 * Runs one rule. Without `tx` the rule sees `request` afresh; with it (the data plane's transaction) the rule
 * reads and edits that transaction, so edits carry to later rules and to the forwarded request. `phase`
 * 'response' runs a response rule over `tx.response`.
 */
export function runTrafficScript(
  source: string,
  request: ScriptRequest,
  tx: HttpTransaction = newTransaction(request),
  phase: RulePhase = 'request',
): RuleOutcome {
  const vars = new Map<string, string>();
  const builtins = builtinsFor(tx, phase, (name, value) => vars.set(name, value));
  const interpreter = new Interpreter(tokenize(stripComments(source)), builtins, vars);
  try {
    interpreter.run();
  } catch (error) {
    if (error instanceof RuleStop) return error.outcome;
    throw error;
  }
  return { kind: 'none' };
}

/**
 * A recursive-descent evaluator over the token list; expressions evaluate to strings ('' is false). Mutable by
 * design: its cursor and variables live for one rule evaluation and are never shared.
 */
class Interpreter {
  readonly #tokens: readonly Token[];
  readonly #builtins: Readonly<Record<string, Builtin>>;
  readonly #vars: Map<string, string>;
  #pos = 0;

  constructor(tokens: readonly Token[], builtins: Readonly<Record<string, Builtin>>, vars: Map<string, string>) {
    this.#tokens = tokens;
    this.#builtins = builtins;
    this.#vars = vars;
  }

  run(): void {
    while (this.#pos < this.#tokens.length) this.#statement();
  }

  #peek(offset = 0): Token | undefined {
    return this.#tokens[this.#pos + offset];
  }

  #expect(v: string): void {
    const tok = this.#tokens[this.#pos++];
    if (tok?.v !== v || tok.t === 'str' || tok.t === 'tpl')
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
    if (tok.t === 'tpl')
      return tok.parts.map((p) => ('text' in p ? p.text : (this.#vars.get(p.variable) ?? ''))).join('');
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
