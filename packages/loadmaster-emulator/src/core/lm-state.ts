/**
 * The emulated LoadMaster's whole configuration as plain, JSON-serialisable data (it is also the state-file
 * format). Virtual services and SubVSs share one monotonically increasing index space; real servers and the
 * SubVS "links" inside a parent share another (RsIndex), as on the appliance.
 */

/** A scalar VS property value as stored (booleans stay booleans; the wire formats render them). */
export type LmScalar = string | number | boolean;

/** A real server inside a VS, or the link of a SubVS inside its parent (then `subVs` is its VS index). */
export interface LmRealServer {
  rsIndex: number;
  /** Address of a real server; '' for a SubVS link. */
  addr: string;
  port: number;
  /** The SubVS's own VS index when this entry is a SubVS link; 0 for a real server. */
  subVs: number;
  weight: number;
  forward: 'nat' | 'route';
  enable: boolean;
  limit: number;
  critical: boolean;
  follow: number;
  /** Content rules assigned to this real server / SubVS (addrsrule), in assignment order. */
  rules: string[];
}

/** VS-level rule lists (addprerule, addrequestrule, addresponserule, addresponsebodyrule). */
export interface LmVsRules {
  pre: string[];
  request: string[];
  response: string[];
  responsebody: string[];
}

/** One virtual service or SubVS. */
export interface LmVirtualService {
  index: number;
  /** '' for a SubVS (SubVSs have no address of their own). */
  address: string;
  /** '0' for a SubVS. */
  port: string;
  protocol: 'tcp' | 'udp';
  /** Parent VS index for a SubVS (`MasterVSID`); 0 for a top-level VS. */
  parent: number;
  /** Settable properties keyed by their output tag (NickName, Enable, VStype, CertFile, …). */
  props: Record<string, LmScalar>;
  /** Real servers and SubVS links, in creation order. */
  realServers: LmRealServer[];
  rules: LmVsRules;
}

/** A content rule (system-wide, by name). */
export interface LmRule {
  name: string;
  /** 0 MatchContent, 1 AddHeader, 2 DeleteHeader, 3 ReplaceHeader, 4 ModifyURL, 5 ReplaceBody. */
  type: 0 | 1 | 2 | 3 | 4 | 5;
  matchType: 'regex' | 'prefix' | 'postfix';
  pattern: string;
  header: string;
  replacement: string;
  incHost: boolean;
  incQuery: boolean;
  noCase: boolean;
  negate: boolean;
  mustFail: boolean;
  setOnMatch: number;
  onlyOnFlag: number;
  onlyOnNoFlag: number;
}

/** An installed certificate (certificate and private key PEM, as uploaded). */
export interface LmCertificate {
  name: string;
  pem: string;
  type: 'RSA' | 'ECC';
  /** RSA modulus (hex) or EC public key (hex), as listcert shows it. */
  publicValue: string;
}

/** One API key and the user it authenticates as. Kept in creation order (oldest evicted beyond 16 per user). */
export interface LmApiKey {
  key: string;
  user: string;
}

/** The whole emulated configuration. */
export interface LmState {
  nextVsIndex: number;
  nextRsIndex: number;
  virtualServices: LmVirtualService[];
  rules: LmRule[];
  certificates: LmCertificate[];
  apiKeys: LmApiKey[];
}

/** An empty appliance. */
/** A rule as `addrule` creates it before its parameters apply: every setting at the appliance's default. */
export function defaultRule(name: string, type: LmRule['type'] = 0): LmRule {
  return {
    name,
    type,
    matchType: 'regex',
    pattern: '',
    header: '',
    replacement: '',
    incHost: false,
    incQuery: false,
    noCase: false,
    negate: false,
    mustFail: false,
    setOnMatch: 0,
    onlyOnFlag: 0,
    onlyOnNoFlag: 0,
  };
}

export function createLmState(): LmState {
  return { nextVsIndex: 1, nextRsIndex: 1, virtualServices: [], rules: [], certificates: [], apiKeys: [] };
}
