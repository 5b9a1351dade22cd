import type { LmScalar } from './lm-state.ts';
import { parseLmBool, parseLmInt } from './lm-params.ts';

/**
 * The settable virtual-service parameters the emulator knows, in the order showvs prints them.
 * Input names are case-insensitive (`nickname`, `NickName`); unknown inputs are ignored, as on the appliance.
 */

/** How one property is parsed and printed. `numstr` is a number printed as a string in v2 (VSPort, ErrorCode). */
interface PropDef {
  readonly tag: string;
  readonly kind: 'bool' | 'int' | 'numstr' | 'string';
  readonly min?: number;
  readonly max?: number;
  readonly oneOf?: readonly string[];
  readonly pattern?: RegExp;
  readonly maxLength?: number;
}

const NICKNAME = /^[A-Za-z0-9][A-Za-z0-9.@_-]*$/;

/** The property table (the subset of LoadMaster's virtual service properties relevant to ingress control, plus common operational ones). */
export const VS_PROPERTIES: readonly PropDef[] = [
  { tag: 'NickName', kind: 'string', pattern: NICKNAME },
  { tag: 'Enable', kind: 'bool' },
  { tag: 'SSLReverse', kind: 'bool' },
  { tag: 'SSLReencrypt', kind: 'bool' },
  { tag: 'Transparent', kind: 'bool' },
  { tag: 'SubnetOriginating', kind: 'bool' },
  { tag: 'Idletime', kind: 'int', min: 0, max: 86400 },
  { tag: 'Cache', kind: 'bool' },
  { tag: 'Compress', kind: 'bool' },
  { tag: 'ForceL7', kind: 'bool' },
  { tag: 'ErrorCode', kind: 'numstr', min: 0, max: 599 },
  { tag: 'ErrorUrl', kind: 'string' },
  { tag: 'CheckUse1.1', kind: 'bool' },
  { tag: 'CheckUseGet', kind: 'int', min: 0, max: 3 },
  { tag: 'VStype', kind: 'string', oneOf: ['gen', 'http', 'http2', 'ts', 'tls', 'log'] },
  {
    tag: 'Schedule',
    kind: 'string',
    oneOf: ['rr', 'wrr', 'lc', 'wlc', 'fixed', 'adaptive', 'sh', 'dl', 'sdn-adaptive', 'uhash'],
  },
  {
    tag: 'CheckType',
    kind: 'string',
    oneOf: [
      'icmp',
      'https',
      'http',
      'tcp',
      'smtp',
      'nntp',
      'ftp',
      'telnet',
      'pop3',
      'imap',
      'rdp',
      'bdata',
      'ldap',
      'none',
    ],
  },
  { tag: 'CheckUrl', kind: 'string', maxLength: 126 },
  { tag: 'CheckHost', kind: 'string' },
  { tag: 'CheckCodes', kind: 'string' },
  { tag: 'CheckPort', kind: 'numstr', min: 0, max: 65535 },
  {
    tag: 'Persist',
    kind: 'string',
    oneOf: [
      'none',
      'cookie',
      'active-cookie',
      'cookie-or-src',
      'active-cookie-or-src',
      'src',
      'header',
      'host',
      'url',
      'query-hash',
      'ssl',
      'rdp',
      'super',
    ],
  },
  { tag: 'PersistTimeout', kind: 'numstr', min: 0, max: 604800 },
  { tag: 'Cookie', kind: 'string' },
  { tag: 'QueryTag', kind: 'string' },
  { tag: 'AddVia', kind: 'int', min: 0, max: 6 },
  { tag: 'SSLAcceleration', kind: 'bool' },
  { tag: 'CertFile', kind: 'string', maxLength: 8099 },
  { tag: 'IntermediateCerts', kind: 'string' },
  { tag: 'TlsType', kind: 'numstr', min: 0, max: 30 },
  { tag: 'CipherSet', kind: 'string' },
  { tag: 'NeedHostName', kind: 'bool' },
  { tag: 'AllowHTTP2', kind: 'bool' },
  { tag: 'DefaultGW', kind: 'string' },
  { tag: 'ExtraPorts', kind: 'string' },
];

const BY_INPUT = new Map(VS_PROPERTIES.map((p) => [p.tag.toLowerCase(), p]));

/** Parses one input parameter if it names a VS property: the (tag, value) to store, an error text, or null if unknown. */
export function parseVsProperty(
  name: string,
  raw: string,
): { tag: string; value: LmScalar } | { error: string } | null {
  const def = BY_INPUT.get(name.toLowerCase());
  if (def === undefined) return null;
  const invalid = { error: `Invalid ${def.tag} value` };
  switch (def.kind) {
    case 'bool': {
      const b = parseLmBool(raw);
      return b === null ? invalid : { tag: def.tag, value: b };
    }
    case 'int':
    case 'numstr': {
      const n = parseLmInt(raw === '' ? '0' : raw, def.min ?? 0, def.max ?? Number.MAX_SAFE_INTEGER);
      if (n === null) return invalid;
      return { tag: def.tag, value: def.kind === 'int' ? n : String(n) };
    }
    case 'string': {
      const value = def.oneOf !== undefined ? raw.toLowerCase() : raw;
      if (def.oneOf !== undefined && !def.oneOf.includes(value)) return invalid;
      if (def.pattern !== undefined && value !== '' && !def.pattern.test(value)) return invalid;
      if (def.maxLength !== undefined && value.length > def.maxLength) return invalid;
      return { tag: def.tag, value };
    }
  }
}

/** Creation defaults: non-transparent and subnet-originating for TCP, transparent L4 for UDP; type by port. */
export function defaultVsProperties(port: number, protocol: 'tcp' | 'udp'): Record<string, LmScalar> {
  const http = protocol === 'tcp' && (port === 80 || port === 8080 || port === 443);
  return {
    NickName: '',
    Enable: true,
    SSLReverse: false,
    SSLReencrypt: false,
    Transparent: protocol === 'udp',
    SubnetOriginating: protocol === 'tcp',
    Idletime: 660,
    Cache: false,
    Compress: false,
    ForceL7: protocol === 'tcp',
    ErrorCode: '0',
    ErrorUrl: '',
    'CheckUse1.1': false,
    CheckUseGet: 0,
    VStype: http ? 'http' : 'gen',
    Schedule: 'rr',
    CheckType: protocol === 'udp' ? 'icmp' : http ? 'http' : 'tcp',
    CheckUrl: '',
    CheckHost: '',
    CheckCodes: '',
    CheckPort: '0',
    Persist: 'none',
    PersistTimeout: '0',
    Cookie: '',
    QueryTag: '',
    AddVia: 0,
    SSLAcceleration: false,
    CertFile: '',
    IntermediateCerts: '',
    TlsType: '0',
    CipherSet: '',
    NeedHostName: false,
    AllowHTTP2: false,
    DefaultGW: '',
    ExtraPorts: '',
  };
}
