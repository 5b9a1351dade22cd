import { PortolanError } from '@portolan/errors';
import type { JsonObject, JsonValue } from '@portolan/desired-state';

/** Bounds for parsing untrusted JSON (annotations): everything beyond them is refused, never truncated. */
export interface JsonLimits {
  readonly maxBytes: number;
  readonly maxDepth: number;
  readonly maxKeys: number;
  readonly maxStringLength: number;
}

/** Limits used for annotation JSON unless a schema says otherwise. */
export const ANNOTATION_JSON_LIMITS: JsonLimits = {
  maxBytes: 16 * 1024,
  maxDepth: 6,
  maxKeys: 200,
  maxStringLength: 4096,
};

/** Parsed JSON, or a reason a user can act on. */
export type StrictJsonResult =
  { readonly ok: true; readonly value: JsonValue } | { readonly ok: false; readonly message: string };

/** Keys that reach an object's prototype when merged into config objects (prototype pollution): refused outright. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Input the strict parser refuses (internal to the parser; reported as a message, never thrown out of it). */
class JsonRefused extends PortolanError {
  readonly code = 'PLANNER_JSON_REFUSED';
}

/**
 * A strict JSON parser for hostile input: refuses duplicate keys, prototype keys, excessive size, depth, key
 * count or string length, non-finite and unsafe numbers, and trailing data. Objects are built without a
 * prototype while parsing, then copied to plain objects, so no input can reach `Object.prototype`.
 */
export function parseStrictJson(text: string, limits: JsonLimits = ANNOTATION_JSON_LIMITS): StrictJsonResult {
  if (text.length > limits.maxBytes)
    return { ok: false, message: `JSON is ${text.length} characters long (at most ${limits.maxBytes})` };
  const parser = new Parser(text, limits);
  try {
    const value = parser.value(0);
    parser.space();
    if (parser.pos !== text.length) parser.fail('unexpected data after the JSON value');
    return { ok: true, value };
  } catch (e) {
    if (e instanceof JsonRefused) return { ok: false, message: e.message };
    throw e;
  }
}

/** A cursor over one text: mutable because it is a recursive-descent parser's position, discarded after the parse. */
class Parser {
  pos = 0;
  keys = 0;
  readonly text: string;
  readonly limits: JsonLimits;

  constructor(text: string, limits: JsonLimits) {
    this.text = text;
    this.limits = limits;
  }

  fail(message: string): never {
    throw new JsonRefused(`${message} (at character ${this.pos})`);
  }

  space(): void {
    while (this.pos < this.text.length && ' \t\n\r'.includes(this.text[this.pos]!)) this.pos++;
  }

  value(depth: number): JsonValue {
    this.space();
    const c = this.text[this.pos];
    if (c === '{' || c === '[') {
      if (depth >= this.limits.maxDepth) this.fail(`JSON nests deeper than ${this.limits.maxDepth} levels`);
      return c === '{' ? this.object(depth + 1) : this.array(depth + 1);
    }
    if (c === '"') return this.string();
    if (c === 't' || c === 'f' || c === 'n') return this.literal();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
    return this.fail(c === undefined ? 'unexpected end of JSON' : `unexpected character ${JSON.stringify(c)}`);
  }

  object(depth: number): JsonObject {
    this.pos++;
    const out = Object.create(null) as Record<string, JsonValue>;
    const seen = new Set<string>();
    this.space();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return { ...out };
    }
    for (;;) {
      this.space();
      if (this.text[this.pos] !== '"') this.fail('expected a quoted key');
      const key = this.string();
      if (PROTOTYPE_KEYS.has(key)) this.fail(`key "${key}" is not allowed`);
      if (seen.has(key)) this.fail(`duplicate key "${key.slice(0, 40)}"`);
      if (++this.keys > this.limits.maxKeys) this.fail(`more than ${this.limits.maxKeys} keys`);
      seen.add(key);
      this.space();
      if (this.text[this.pos++] !== ':') this.fail('expected ":"');
      out[key] = this.value(depth);
      this.space();
      const c = this.text[this.pos++];
      if (c === '}') return { ...out };
      if (c !== ',') this.fail('expected "," or "}"');
    }
  }

  array(depth: number): JsonValue[] {
    this.pos++;
    const out: JsonValue[] = [];
    this.space();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return out;
    }
    for (;;) {
      out.push(this.value(depth));
      if (++this.keys > this.limits.maxKeys) this.fail(`more than ${this.limits.maxKeys} elements`);
      this.space();
      const c = this.text[this.pos++];
      if (c === ']') return out;
      if (c !== ',') this.fail('expected "," or "]"');
    }
  }

  string(): string {
    const start = this.pos;
    this.pos++;
    for (;;) {
      const c = this.text.charCodeAt(this.pos);
      if (Number.isNaN(c)) this.fail('unterminated string');
      if (c < 0x20) this.fail('control character in string');
      if (c === 0x22) break;
      this.pos += c === 0x5c ? 2 : 1;
    }
    this.pos++;
    if (this.pos - start > this.limits.maxStringLength + 2)
      this.fail(`string longer than ${this.limits.maxStringLength}`);
    try {
      return JSON.parse(this.text.slice(start, this.pos)) as string;
    } catch (e) {
      if (!(e instanceof SyntaxError)) throw e;
      return this.fail('invalid string escape');
    }
  }

  literal(): JsonValue {
    for (const [word, value] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return value;
      }
    }
    return this.fail('invalid literal');
  }

  number(): number {
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(this.text.slice(this.pos, this.pos + 40));
    if (m === null) this.fail('invalid number');
    this.pos += m[0].length;
    const n = Number(m[0]);
    if (!Number.isFinite(n) || Math.abs(n) > Number.MAX_SAFE_INTEGER) this.fail(`number ${m[0]} is out of range`);
    return n;
  }
}
