import {
  headerValue,
  pathOf,
  queryOf,
  removeHeader,
  setHeader,
  type HeaderFields,
  type HttpTransaction,
} from './traffic-script-transaction.ts';
import { TrafficScriptError, type RuleOutcome } from './traffic-script-outcome.ts';

/**
 * The TrafficScript functions the emulator knows, with vTM's documented semantics. Every function takes and
 * returns strings ('' is false, '1' true). Functions that end the rule (`pool.use`, `http.sendResponse`,
 * `http.redirect`, `connection.discard`) throw `RuleStop`.
 */

/** A builtin: arguments in, value out. */
export type Builtin = (args: string[]) => string;

/** Thrown by a builtin to end the rule with an outcome. */
export class RuleStop {
  readonly outcome: RuleOutcome;
  constructor(outcome: RuleOutcome) {
    this.outcome = outcome;
  }
}

/** Which side of the transaction a rule runs on: response rules see the backend's answer. */
export type RulePhase = 'request' | 'response';

const TRUE = '1';
const FALSE = '';

function regex(re: string | undefined, flags = ''): RegExp {
  try {
    return new RegExp(re ?? '', flags);
  } catch {
    throw new TrafficScriptError(`invalid regular expression ${JSON.stringify(re)}`);
  }
}

/** `%XX` sequences decoded (as UTF-8 where they form it, else byte by byte); `+` and malformed `%` are kept. */
export function urlDecode(s: string): string {
  return s.replace(/(%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run.replace(/%([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
    }
  });
}

/** The `string.*` functions. `string.regexMatch` sets `$1`…`$9` to its groups (unset groups ''), as vTM does. */
function stringBuiltins(setVar: (name: string, value: string) => void): Record<string, Builtin> {
  return {
    'string.lowercase': ([s]) => (s ?? '').toLowerCase(),
    'string.uppercase': ([s]) => (s ?? '').toUpperCase(),
    'string.regexSub': ([s, re, rep]) => (s ?? '').replace(regex(re, 'g'), rep ?? ''),
    'string.regexMatch': ([s, re, flags]) => {
      const m = regex(re, (flags ?? '').includes('i') ? 'i' : '').exec(s ?? '');
      if (m === null) return FALSE;
      for (let i = 1; i <= 9; i += 1) setVar(`$${i}`, m[i] ?? '');
      return TRUE;
    },
    'string.startsWith': ([s, p]) => ((s ?? '').startsWith(p ?? '') ? TRUE : FALSE),
    'string.endsWith': ([s, p]) => ((s ?? '').endsWith(p ?? '') ? TRUE : FALSE),
    'string.replaceAll': ([s, search, rep]) =>
      search === undefined || search === '' ? (s ?? '') : (s ?? '').split(search).join(rep ?? ''),
    'string.skip': ([s, n]) => (s ?? '').slice(Math.max(0, Number.parseInt(n ?? '0', 10) || 0)),
    'string.len': ([s]) => String((s ?? '').length),
    'string.urlDecode': ([s]) => urlDecode(s ?? ''),
  };
}

/** Request-side `http.*` functions: read and edit the request as it will be forwarded. */
function requestBuiltins(tx: HttpTransaction): Record<string, Builtin> {
  return {
    'http.getHostHeader': () => headerValue(tx.headers, 'host'),
    'http.getHeader': ([name]) => headerValue(tx.headers, name ?? ''),
    'http.headerExists': ([name]) =>
      tx.headers.some(([n]) => n.toLowerCase() === (name ?? '').toLowerCase()) ? TRUE : FALSE,
    'http.setHeader': ([name, value]) => (setHeader(tx.headers, name ?? '', value ?? ''), FALSE),
    'http.addHeader': ([name, value]) => (tx.headers.push([name ?? '', value ?? '']), FALSE),
    'http.removeHeader': ([name]) => (removeHeader(tx.headers, name ?? ''), FALSE),
    'http.getMethod': () => tx.method,
    'http.getPath': () => pathOf(tx.url),
    'http.setPath': ([path]) => {
      const query = queryOf(tx.url);
      tx.url = `${path ?? ''}${tx.url.includes('?') ? `?${query}` : ''}`;
      return FALSE;
    },
    'http.getRawURL': () => tx.url,
    'http.getQueryString': () => queryOf(tx.url),
    'ssl.getSNIName': () => tx.sni,
  };
}

/** Response-side `http.*` functions; calling one from a request rule is an error, as on vTM. */
function responseBuiltins(tx: HttpTransaction): Record<string, Builtin> {
  const response = (fn: string): HeaderFields => {
    if (tx.response === null) throw new TrafficScriptError(`${fn} can only be used in a response rule`);
    return tx.response.headers;
  };
  return {
    'http.getResponseCode': () => String(tx.response?.status ?? ''),
    'http.getResponseHeader': ([name]) => headerValue(response('http.getResponseHeader'), name ?? ''),
    'http.setResponseHeader': ([name, value]) => (
      setHeader(response('http.setResponseHeader'), name ?? '', value ?? ''),
      FALSE
    ),
    'http.addResponseHeader': ([name, value]) => (
      response('http.addResponseHeader').push([name ?? '', value ?? '']),
      FALSE
    ),
    'http.removeResponseHeader': ([name]) => (removeHeader(response('http.removeResponseHeader'), name ?? ''), FALSE),
    'connection.data.set': ([key, value]) => (tx.data.set(key ?? '', value ?? ''), FALSE),
    'connection.data.get': ([key]) => tx.data.get(key ?? '') ?? '',
  };
}

/** Functions that end the rule. `pool.use` belongs to request rules only. */
function endingBuiltins(phase: RulePhase): Record<string, Builtin> {
  const stop = (outcome: RuleOutcome): never => {
    throw new RuleStop(outcome);
  };
  return {
    'pool.use': ([pool, node, port]) => {
      if (phase === 'response') throw new TrafficScriptError('pool.use can only be used in a request rule');
      return stop({
        kind: 'pool',
        pool: pool ?? '',
        node: node === undefined ? null : port === undefined ? node : `${node}:${port}`,
      });
    },
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

/** Every function a rule may call, bound to its transaction and variables. */
export function builtinsFor(
  tx: HttpTransaction,
  phase: RulePhase,
  setVar: (name: string, value: string) => void,
): Readonly<Record<string, Builtin>> {
  return {
    ...stringBuiltins(setVar),
    ...requestBuiltins(tx),
    ...responseBuiltins(tx),
    ...endingBuiltins(phase),
  };
}
