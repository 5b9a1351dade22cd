import type { LmRealServer, LmVirtualService } from './lm-state.ts';
import type { LmOutObject, LmOutValue } from './lm-result.ts';
import { strings } from './lm-result.ts';
import { VS_PROPERTIES } from './vs-properties.ts';
import type { LmStore } from './lm-store.ts';

/**
 * Output shapes of showvs/listvs/addvs/showrs as the appliance prints them (mathlu test_data captures):
 * field order, which numerics are strings in v2 (VSPort, ErrorCode, CheckPort), Y/N booleans in v1.
 */

/** The showvs object of one VS or SubVS, including its `Rs` and `SubVS` entries. */
export function viewVs(store: LmStore, vs: LmVirtualService): LmOutObject {
  const direct = vs.realServers.filter((rs) => rs.subVs === 0);
  const links = vs.realServers.filter((rs) => rs.subVs !== 0);
  const out: Record<string, LmOutValue> = {
    Status: statusOf(store, vs),
    Index: vs.index,
    VSAddress: vs.address,
    VSPort: vs.port,
    Layer: vs.props['ForceL7'] === true || vs.props['VStype'] === 'http' || vs.props['VStype'] === 'http2' ? 7 : 4,
  };
  for (const def of VS_PROPERTIES) {
    const value = vs.props[def.tag];
    if (value === undefined || (def.kind === 'string' && value === '' && def.tag !== 'NickName')) continue;
    out[def.tag] = value;
  }
  out['Protocol'] = vs.protocol;
  out['MasterVS'] = links.length > 0 ? 1 : 0;
  out['MasterVSID'] = vs.parent;
  out['NRules'] = vs.rules.pre.length;
  out['NRequestRules'] = vs.rules.request.length;
  out['NResponseRules'] = vs.rules.response.length;
  out['NMatchBodyRules'] = vs.rules.responsebody.length;
  if (vs.rules.pre.length > 0) out['MatchRules'] = strings('Name', vs.rules.pre);
  if (vs.rules.request.length > 0) out['RequestRules'] = strings('Name', vs.rules.request);
  if (vs.rules.response.length > 0) out['ResponseRules'] = strings('Name', vs.rules.response);
  out['NumberOfRSs'] = direct.length;
  if (direct.length > 0) out['Rs'] = direct.map((rs) => viewRs(vs, rs));
  if (links.length > 0) out['SubVS'] = links.map((link) => viewSubVsLink(store, link));
  return out;
}

/** One `Rs` entry. `MatchRules` lists assigned content rules when there are any. */
export function viewRs(vs: LmVirtualService, rs: LmRealServer): LmOutObject {
  const out: Record<string, LmOutValue> = {
    Status: !rs.enable ? 'Disabled' : vs.props['Enable'] === false ? 'Down' : 'Up',
    VSIndex: vs.index,
    RsIndex: rs.rsIndex,
    Addr: rs.addr,
    Port: rs.port,
    DnsName: '',
    Forward: rs.forward,
    Weight: rs.weight,
    Limit: rs.limit,
    RateLimit: 0,
    Follow: rs.follow,
    Enable: rs.enable,
    Critical: rs.critical,
    Nrules: rs.rules.length,
  };
  if (rs.rules.length > 0) out['MatchRules'] = strings('Name', rs.rules);
  return out;
}

/** One parent-side `SubVS` entry: the SubVS's own index, its RsIndex in the parent, and its link settings. */
export function viewSubVsLink(store: LmStore, link: LmRealServer): LmOutObject {
  const sub = store.vsByIndex(link.subVs);
  const name = String(sub?.props['NickName'] ?? '');
  const out: Record<string, LmOutValue> = {
    VSIndex: link.subVs,
    RsIndex: link.rsIndex,
    Name: name === '' ? '-' : name,
    Forward: link.forward,
    Weight: link.weight,
    Limit: link.limit,
    Enable: link.enable,
    Critical: link.critical,
    Nrules: link.rules.length,
  };
  if (link.rules.length > 0) out['MatchRules'] = strings('Name', link.rules);
  return out;
}

function statusOf(store: LmStore, vs: LmVirtualService): string {
  if (vs.props['Enable'] === false) return 'Disabled';
  const up = vs.realServers.some((rs) => {
    if (!rs.enable) return false;
    if (rs.subVs === 0) return true;
    const sub = store.vsByIndex(rs.subVs);
    return sub !== undefined && statusOf(store, sub) === 'Up';
  });
  return up ? 'Up' : 'Down';
}
