import type { JsonObject } from '@portolan/desired-state';
import { checkSchema, type Schema } from './json-schema.ts';
import { issue, type Issue } from './issue.ts';
import { parseStrictJson } from './strict-json.ts';

/** A typed annotation value: absent, present, or present but unusable (an issue naming the annotation). */
export type AnnotationValue<T> =
  | { readonly kind: 'absent' }
  | { readonly kind: 'value'; readonly value: T; readonly name: string }
  | { readonly kind: 'invalid'; readonly issue: Issue };

const ABSENT = { kind: 'absent' } as const;

/**
 * Reads one setting that may be spelled several ways (the vTM integration's documented table and prose disagree, so both spellings
 * are accepted). Two spellings with different values are an error rather than a silent pick.
 */
export function readRaw(
  annotations: Readonly<Record<string, string>>,
  names: readonly string[],
): AnnotationValue<string> {
  const present = names.filter((n) => Object.hasOwn(annotations, n));
  if (present.length === 0) return ABSENT;
  const values = new Set(present.map((n) => annotations[n]!));
  if (values.size > 1)
    return {
      kind: 'invalid',
      issue: issue('ConflictingAnnotations', `${present.join(' and ')} are both set, to different values`),
    };
  return { kind: 'value', value: annotations[present[0]!]!, name: present[0]! };
}

/** A boolean annotation: "true" or "false" (any case). */
export function readBool(
  annotations: Readonly<Record<string, string>>,
  names: readonly string[],
): AnnotationValue<boolean> {
  return mapValue(readRaw(annotations, names), (v, name) => {
    const lower = v.trim().toLowerCase();
    if (lower === 'true') return true;
    if (lower === 'false') return false;
    return invalid('InvalidAnnotation', `${name} must be "true" or "false", not "${short(v)}"`);
  });
}

/** A TCP port annotation: an integer 1-65535. */
export function readPort(
  annotations: Readonly<Record<string, string>>,
  names: readonly string[],
): AnnotationValue<number> {
  return mapValue(readRaw(annotations, names), (v, name) => {
    const t = v.trim();
    const n = /^\d{1,5}$/.test(t) ? Number(t) : NaN;
    return n >= 1 && n <= 65535 ? n : invalid('InvalidAnnotation', `${name} must be a port 1-65535, not "${short(v)}"`);
  });
}

/** An IP address annotation (IPv4 dotted quad or IPv6), returned in canonical form. */
export function readIp(
  annotations: Readonly<Record<string, string>>,
  names: readonly string[],
): AnnotationValue<string> {
  return mapValue(
    readRaw(annotations, names),
    (v, name) =>
      canonicalIp(v.trim()) ?? invalid('InvalidAnnotation', `${name} must be an IP address, not "${short(v)}"`),
  );
}

/** One of a fixed set of words. */
export function readWord<W extends string>(
  annotations: Readonly<Record<string, string>>,
  names: readonly string[],
  words: readonly W[],
): AnnotationValue<W> {
  return mapValue(readRaw(annotations, names), (v, name) => {
    const lower = v.trim().toLowerCase();
    return (words as readonly string[]).includes(lower)
      ? (lower as W)
      : invalid('InvalidAnnotation', `${name} must be one of ${words.join(', ')}, not "${short(v)}"`);
  });
}

/** A JSON annotation parsed strictly and checked against an allowlist schema (hostile JSON is refused). */
export function readJson(
  annotations: Readonly<Record<string, string>>,
  names: readonly string[],
  schema: Schema,
): AnnotationValue<JsonObject> {
  return mapValue(readRaw(annotations, names), (v, name) => {
    const parsed = parseStrictJson(v);
    if (!parsed.ok) return invalid('InvalidAnnotationJson', `${name}: ${parsed.message}`);
    const problem = checkSchema(parsed.value, schema);
    if (problem !== null) return invalid('InvalidAnnotationJson', `${name}: ${problem}`);
    return parsed.value as JsonObject;
  });
}

/** A script annotation (vTM TrafficScript): bounded, printable text. */
export function readScript(
  annotations: Readonly<Record<string, string>>,
  names: readonly string[],
): AnnotationValue<string> {
  return mapValue(readRaw(annotations, names), (v, name) => {
    if (v.length > 16 * 1024)
      return invalid('InvalidAnnotation', `${name} is ${v.length} characters long (at most 16384)`);
    if (/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/.test(v))
      return invalid('InvalidAnnotation', `${name} contains control characters`);
    if (v.trim() === '') return invalid('InvalidAnnotation', `${name} is empty`);
    return v;
  });
}

/** Canonical text of an IPv4 or IPv6 literal, or null. */
export function canonicalIp(text: string): string | null {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (v4 !== null) {
    const parts = v4.slice(1).map((p) => (p.length > 1 && p.startsWith('0') ? NaN : Number(p)));
    return parts.every((p) => p >= 0 && p <= 255) ? parts.join('.') : null;
  }
  if (!/^[0-9a-fA-F:.]+$/.test(text) || !text.includes(':')) return null;
  try {
    return new URL(`http://[${text}]/`).hostname.slice(1, -1);
  } catch (e) {
    // The URL parser refuses what is not an IPv6 literal with a TypeError: that is the answer, not a fault.
    if (!(e instanceof TypeError)) throw e;
    return null;
  }
}

/** Marks a value that failed conversion; a class so no user JSON can impersonate it. */
class InvalidValue {
  readonly issue: Issue;
  constructor(reason: string, message: string) {
    this.issue = issue(reason, message);
  }
}

function mapValue<A, B>(v: AnnotationValue<A>, f: (value: A, name: string) => B | InvalidValue): AnnotationValue<B> {
  if (v.kind !== 'value') return v;
  const out = f(v.value, v.name);
  if (out instanceof InvalidValue) return { kind: 'invalid', issue: out.issue };
  return { kind: 'value', value: out, name: v.name };
}

function invalid(reason: string, message: string): InvalidValue {
  return new InvalidValue(reason, message);
}

function short(v: string): string {
  const clean = v.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > 60 ? `${clean.slice(0, 57)}...` : clean;
}

/**
 * Collects issues while reading annotations; `take` returns the value or a fallback. Mutable: one is made per
 * Ingress read and discarded with it, so the readers can stay flat.
 */
export class AnnotationIssues {
  readonly errors: Issue[] = [];
  readonly warnings: Issue[] = [];

  /** The value, or `fallback` when absent; an invalid value records an error and yields the fallback. */
  take<T>(v: AnnotationValue<T>, fallback: T): T {
    if (v.kind === 'value') return v.value;
    if (v.kind === 'invalid') this.errors.push(v.issue);
    return fallback;
  }

  /** Like `take`, but null when absent or invalid. */
  opt<T>(v: AnnotationValue<T>): T | null {
    return this.take<T | null>(v as AnnotationValue<T | null>, null);
  }

  error(reason: string, message: string): void {
    this.errors.push(issue(reason, message));
  }

  warn(reason: string, message: string): void {
    this.warnings.push(issue(reason, message));
  }
}
