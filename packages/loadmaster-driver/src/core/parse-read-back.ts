import { compareCodeUnits } from '@portolan/desired-state';
import type {
  LmCertSpec,
  LmRealServerSpec,
  LmRuleSpec,
  LmSubVsSpec,
  LmTargetVs,
  LmVendorState,
  LmVsSpec,
} from './lm-vendor-state.ts';
import { isOwnedBy } from './owner-mark.ts';

/**
 * Turns the read-back replies (listvs, showrule, listcert; v2 JSON bodies) into the observed vendor state and
 * the index map the operation runner addresses objects by. Pure. Only objects whose mark names this appliance
 * are "owned"; every other top-level VS is a possible Service-mode target, never changed beyond its real servers.
 */

/** Appliance indexes of owned objects, by nickname (VS) and `parent/sub` nickname (SubVS). */
export interface LmIndexMap {
  readonly vs: Map<string, number>;
  readonly subVs: Map<string, { index: number; rsIndex: number }>;
}

type Json = Readonly<Record<string, unknown>>;

/** The managed VS parameters, read back as the strings render writes. */
export const MANAGED_VS_PARAMS = [
  'VStype',
  'ForceL7',
  'SSLAcceleration',
  'CertFile',
  'ErrorCode',
  'ErrorUrl',
  'Schedule',
] as const;

/** Parses the three read-back replies. */
export function parseReadBack(
  appliance: string,
  listvs: Json,
  showrule: Json,
  listcert: Json,
): { state: LmVendorState; indexes: LmIndexMap } {
  const all = asList(listvs['VS']);
  const byIndex = new Map(all.map((v) => [num(v['Index']), v] as const));
  const indexes: LmIndexMap = { vs: new Map(), subVs: new Map() };
  const virtualServices: LmVsSpec[] = [];
  const targets: LmTargetVs[] = [];
  for (const v of all) {
    if (num(v['MasterVSID']) !== 0) continue;
    const nickname = str(v['NickName']);
    if (!isOwnedBy(nickname, appliance, 'vs')) {
      targets.push({
        index: num(v['Index']),
        address: str(v['VSAddress']),
        port: num(v['VSPort']),
        protocol: str(v['Protocol']),
        realServers: realServersOf(v),
      });
      continue;
    }
    indexes.vs.set(nickname, num(v['Index']));
    const subVss = subVssOf(v, nickname, appliance, byIndex, indexes);
    const params: Record<string, string> = {};
    for (const p of MANAGED_VS_PARAMS) params[p] = paramText(v[p]);
    const preRules = strList(v['MatchRules']);
    virtualServices.push({
      ...(preRules.length === 0 ? {} : { preRules }),
      nickname,
      address: str(v['VSAddress']),
      port: num(v['VSPort']),
      protocol: 'tcp',
      params,
      subVss: subVss.sort((a, b) => compareCodeUnits(a.nickname, b.nickname)),
      realServers: realServersOf(v).map(({ address, port, weight, enable }) => ({ address, port, weight, enable })),
      index: num(v['Index']),
    });
  }
  const rules = ownedRules(appliance, showrule);
  const certificates: LmCertSpec[] = asList(listcert['cert'])
    .filter((c) => isOwnedBy(str(c['name']), appliance, 'ct'))
    .map((c) => ({ name: str(c['name']), secret: null }));
  return {
    state: {
      virtualServices: virtualServices.sort((a, b) => compareCodeUnits(a.nickname, b.nickname)),
      rules: rules.sort((a, b) => compareCodeUnits(a.name, b.name)),
      certificates: certificates.sort((a, b) => compareCodeUnits(a.name, b.name)),
      bindings: [],
      targets,
      skipped: [],
    },
    indexes,
  };
}

/** The SubVSs of an owned VS (a foreign one keeps an empty nickname), noting the owned ones' indexes. */
function subVssOf(
  v: Json,
  nickname: string,
  appliance: string,
  byIndex: ReadonlyMap<number, Json>,
  indexes: LmIndexMap,
): LmSubVsSpec[] {
  return asList(v['SubVS']).map((link) => {
    const sub = byIndex.get(num(link['VSIndex'])) ?? {};
    const subName = str(sub['NickName']);
    const owned = isOwnedBy(subName, appliance, 'sv') ? subName : '';
    if (owned !== '')
      indexes.subVs.set(`${nickname}/${owned}`, { index: num(link['VSIndex']), rsIndex: num(link['RsIndex']) });
    return {
      nickname: owned,
      rules: strList(link['MatchRules']).sort(compareCodeUnits),
      realServers: realServersOf(sub).map(({ address, port, weight, enable }) => ({ address, port, weight, enable })),
      params: { Schedule: paramText(sub['Schedule']) },
      ...ruleLists(sub),
      index: num(link['VSIndex']),
      rsIndex: num(link['RsIndex']),
    };
  });
}

/** The owned rules of a showrule reply, of the types this driver writes. */
function ownedRules(appliance: string, showrule: Json): LmRuleSpec[] {
  return RULE_TAGS.flatMap(([tag, type]) =>
    asList(showrule[tag])
      .filter((r) => isOwnedBy(str(r['Name']), appliance, 'rl'))
      .map((r) => ruleOf(r, type)),
  );
}

/** The rule types this driver writes, by the tag showrule lists them under. */
const RULE_TAGS = [
  ['MatchContentRule', 0],
  ['AddHeaderRule', 1],
  ['DeleteHeaderRule', 2],
] as const;

/** A rule as read back, in the shape render produces (parameters at their defaults left out). */
function ruleOf(r: Json, type: 0 | 1 | 2): LmRuleSpec {
  const optional = {
    ...(type === 0 ? {} : { type }),
    ...(str(r['Header']) === '' ? {} : { header: str(r['Header']) }),
    ...(str(r['Replacement']) === '' ? {} : { replacement: str(r['Replacement']) }),
    ...(num(r['SetOnMatch']) === 0 ? {} : { setOnMatch: num(r['SetOnMatch']) }),
    ...(num(r['OnlyOnFlag']) === 0 ? {} : { onlyOnFlag: num(r['OnlyOnFlag']) }),
    ...(num(r['OnlyOnNoFlag']) === 0 ? {} : { onlyOnNoFlag: num(r['OnlyOnNoFlag']) }),
  };
  const incHost = r['AddHost'] === true || r['AddHost'] === 'Y';
  return { name: str(r['Name']), pattern: str(r['Pattern']), incHost, ...optional };
}

/** The request and response header rules of a SubVS, in their order. */
function ruleLists(sub: Json): { requestRules?: string[]; responseRules?: string[] } {
  const requestRules = strList(sub['RequestRules']);
  const responseRules = strList(sub['ResponseRules']);
  return {
    ...(requestRules.length === 0 ? {} : { requestRules }),
    ...(responseRules.length === 0 ? {} : { responseRules }),
  };
}

function realServersOf(v: Json): (LmRealServerSpec & { rsIndex: number })[] {
  return asList(v['Rs'])
    .map((rs) => ({
      address: str(rs['Addr']),
      port: num(rs['Port']),
      weight: num(rs['Weight']),
      enable: rs['Enable'] !== false,
      rsIndex: num(rs['RsIndex']),
    }))
    .sort((a, b) => compareCodeUnits(a.address, b.address) || a.port - b.port);
}

/** The appliance prints one element unwrapped and many as a list; normalise to a list of objects. */
function asList(value: unknown): Json[] {
  if (value === undefined || value === null) return [];
  const list = Array.isArray(value) ? value : [value];
  return list.filter((x): x is Json => typeof x === 'object' && x !== null);
}

function strList(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  return (Array.isArray(value) ? value : [value]).map((x) => String(x));
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}

function num(value: unknown): number {
  const n = Number(value);
  return Number.isFinite(n) ? n : 0;
}

function paramText(value: unknown): string {
  if (typeof value === 'boolean') return value ? '1' : '0';
  return value === undefined || value === null ? '' : String(value);
}
