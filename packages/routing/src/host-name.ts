import { decodePunycodeLabel } from './punycode-decode.ts';

/** A canonical host, or why the input cannot be one. '' is "any host". */
export type HostResult =
  | { readonly ok: true; readonly host: string }
  | {
      readonly ok: false;
      readonly reason: 'InvalidHost' | 'InvalidWildcard' | 'HostIsIPAddress' | 'MixedScriptHost';
      readonly message: string;
    };

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** Characters that would change how a URL parser reads the authority (port, userinfo, path...). */
const AUTHORITY_BREAKERS = /[\s:/?#@[\]\\%*]/u;

/**
 * Canonicalises an Ingress host before any comparison (so look-alike spellings of one host compare equal): lower case, IDNA to ASCII (the WHATWG URL parser,
 * which is global, not a `node:` import), one trailing dot removed, `*.` allowed only as the whole first label.
 * Rejects IP literals, mixed-script labels (homoglyph hosts) and anything that is not LDH after conversion.
 */
export function canonicalizeHost(raw: string): HostResult {
  if (raw === '') return { ok: true, host: '' };
  if (raw.length > 1024) return bad('InvalidHost', `host is ${raw.length} characters long (at most 253 after IDNA)`);
  let text = raw.endsWith('.') && !raw.endsWith('..') ? raw.slice(0, -1) : raw;
  const wildcard = text.startsWith('*.');
  if (wildcard) text = text.slice(2);
  if (text.includes('*'))
    return bad('InvalidWildcard', `host "${printable(raw)}": "*" may only be the whole first label`);
  if (text === '' || AUTHORITY_BREAKERS.test(text))
    return bad('InvalidHost', `host "${printable(raw)}" is not a DNS name`);
  const mixed = mixedScriptLabel(text);
  if (mixed !== null)
    return bad('MixedScriptHost', `host "${printable(raw)}": label "${printable(mixed)}" mixes scripts`);
  let ascii: string;
  try {
    ascii = new URL(`http://${text}/`).hostname;
  } catch {
    return bad('InvalidHost', `host "${printable(raw)}" is not a valid internationalised domain name`);
  }
  if (
    /^[0-9.]+$/.test(ascii) ||
    ascii.startsWith('[') ||
    /^(0x[0-9a-f]*|\d+)$/.test(ascii.slice(ascii.lastIndexOf('.') + 1))
  ) {
    return bad('HostIsIPAddress', `host "${printable(raw)}" is an IP address; Ingress hosts are DNS names`);
  }
  const labels = ascii.split('.');
  if (ascii.length > 253 || !labels.every((l) => LABEL.test(l))) {
    return bad(
      'InvalidHost',
      `host "${printable(raw)}" is not a DNS name (letters, digits and "-", labels of 1-63, at most 253)`,
    );
  }
  const decoded = mixedScriptLabel(
    labels.map((l) => (l.startsWith('xn--') ? (decodePunycodeLabel(l.slice(4)) ?? l) : l)).join('.'),
  );
  if (decoded !== null)
    return bad('MixedScriptHost', `host "${printable(raw)}": label "${printable(decoded)}" mixes scripts`);
  return { ok: true, host: wildcard ? `*.${ascii}` : ascii };
}

/**
 * Whether a canonical rule host matches a canonical request host: exact, or under a wildcard by one label
 * (`wildcardLabels` 'one', Ingress) or by any number of labels ('any', Gateway API).
 */
export function hostMatches(ruleHost: string, requestHost: string, wildcardLabels: 'one' | 'any' = 'one'): boolean {
  if (ruleHost === '') return true;
  if (!ruleHost.startsWith('*.')) return ruleHost === requestHost;
  const suffix = ruleHost.slice(1);
  if (wildcardLabels === 'any') return requestHost.length > suffix.length && requestHost.endsWith(suffix);
  const dot = requestHost.indexOf('.');
  return dot > 0 && requestHost.slice(dot + 1) === ruleHost.slice(2);
}

/**
 * The wildcard hosts that could match a request host, most specific (longest suffix) first: `*.b.c` for `a.b.c`,
 * and with `wildcardLabels` 'any' also `*.c`.
 */
export function wildcardsOf(requestHost: string, wildcardLabels: 'one' | 'any' = 'one'): string[] {
  const out: string[] = [];
  for (let dot = requestHost.indexOf('.'); dot > 0; dot = requestHost.indexOf('.', dot + 1)) {
    out.push(`*.${requestHost.slice(dot + 1)}`);
    if (wildcardLabels === 'one') break;
  }
  return out;
}

const SCRIPTS: readonly (readonly [string, RegExp])[] = [
  ['Latin', /\p{Script=Latin}/u],
  ['Cyrillic', /\p{Script=Cyrillic}/u],
  ['Greek', /\p{Script=Greek}/u],
  ['Han', /\p{Script=Han}/u],
  ['Hiragana', /\p{Script=Hiragana}/u],
  ['Katakana', /\p{Script=Katakana}/u],
  ['Hangul', /\p{Script=Hangul}/u],
  ['Bopomofo', /\p{Script=Bopomofo}/u],
  ['Arabic', /\p{Script=Arabic}/u],
  ['Hebrew', /\p{Script=Hebrew}/u],
  ['Armenian', /\p{Script=Armenian}/u],
  ['Georgian', /\p{Script=Georgian}/u],
];
/** Unicode's "highly restrictive" combinations: Latin may join the CJK scripts, nothing else mixes. */
const ALLOWED_MIXES: readonly (readonly string[])[] = [
  ['Latin', 'Han', 'Hiragana', 'Katakana'],
  ['Latin', 'Han', 'Bopomofo'],
  ['Latin', 'Han', 'Hangul'],
];

/** The first label whose letters come from a forbidden mix of scripts, or null. */
function mixedScriptLabel(host: string): string | null {
  for (const label of host.split(/[.\u3002\uff0e\uff61]/u)) {
    if (/^[\x00-\x7f]*$/.test(label)) continue;
    const seen = new Set<string>();
    for (const ch of label) {
      if (!/\p{L}/u.test(ch)) continue;
      seen.add(SCRIPTS.find(([, re]) => re.test(ch))?.[0] ?? `Other:${ch.codePointAt(0)}`);
    }
    if (seen.size > 1 && !ALLOWED_MIXES.some((mix) => [...seen].every((s) => mix.includes(s)))) return label;
  }
  return null;
}

function bad(reason: Extract<HostResult, { ok: false }>['reason'], message: string): HostResult {
  return { ok: false, reason, message };
}

/** Hosts are user input echoed into messages: keep them short and printable. */
function printable(s: string): string {
  const clean = s.replace(/[\p{C}]/gu, '?');
  return clean.length > 80 ? `${clean.slice(0, 77)}...` : clean;
}
