import type { CommandContext } from '../command-context.ts';
import type { LmParams } from '../lm-params.ts';
import { parseLmInt } from '../lm-params.ts';
import type { LmResult } from '../lm-result.ts';
import { fail, missing, okData, okDone } from '../lm-result.ts';
import type { LmScalar, LmVirtualService } from '../lm-state.ts';
import { viewVs } from '../vs-view.ts';
import { defaultVsProperties, parseVsProperty } from '../vs-properties.ts';

/** Virtual service commands: listvs, showvs, addvs, modvs (incl. createsubvs, vsport), delvs. */

const UNKNOWN_VS = 'Unknown VS';

/** `listvs`: every VS and SubVS (SubVSs as their own entries with MasterVSID = parent). */
export function listVs(ctx: CommandContext): LmResult {
  const all = [...ctx.store.state.virtualServices].sort((a, b) => a.index - b.index);
  return okData({ VS: all.map((vs) => viewVs(ctx.store, vs)) });
}

/** `showvs`: one VS by address or index. */
export function showVs(ctx: CommandContext, params: LmParams): LmResult {
  if (!params.has('vs')) return missing('vs');
  const vs = ctx.store.resolveVs(params);
  return vs === undefined ? fail(422, UNKNOWN_VS) : okData(viewVs(ctx.store, vs));
}

/** `addvs`: creates a VS on (vs, port, prot) with defaults, then applies any VS parameters given. */
export function addVs(ctx: CommandContext, params: LmParams): LmResult {
  const address = params.get('vs');
  if (address === undefined || address === '') return missing('vs');
  const portText = params.get('port');
  if (portText === undefined || portText === '') return missing('port');
  const port = parseLmInt(portText, 1, 65535);
  if (port === null) return fail(422, 'Invalid port');
  if (!isIpAddress(address)) return fail(422, 'Invalid VS address');
  const prot = (params.get('prot') ?? 'tcp').toLowerCase();
  if (prot !== 'tcp' && prot !== 'udp') return fail(422, 'Invalid protocol');
  if (ctx.store.vsByAddress(address, String(port), prot) !== undefined)
    return fail(422, 'Virtual Service already exists');
  const props = defaultVsProperties(port, prot);
  const changes = parseVsChanges(ctx, params, props);
  if ('error' in changes) return fail(422, changes.error);
  const vs: LmVirtualService = {
    index: ctx.store.state.nextVsIndex++,
    address,
    port: String(port),
    protocol: prot,
    parent: 0,
    props: { ...props, ...changes.props },
    realServers: [],
    rules: { pre: [], request: [], response: [], responsebody: [] },
  };
  ctx.store.state.virtualServices.push(vs);
  return okData(viewVs(ctx.store, vs), true);
}

/** `modvs`: changes parameters; `vsport=` moves the port; `createsubvs=` adds a SubVS and returns the parent. */
export function modVs(ctx: CommandContext, params: LmParams): LmResult {
  if (!params.has('vs')) return missing('vs');
  const vs = ctx.store.resolveVs(params);
  if (vs === undefined) return fail(422, UNKNOWN_VS);
  const changes = parseVsChanges(ctx, params, vs.props);
  if ('error' in changes) return fail(422, changes.error);
  let port = vs.port;
  const newPort = params.get('vsport');
  if (newPort !== undefined && newPort !== '') {
    const parsed = parseLmInt(newPort, 1, 65535);
    if (parsed === null || vs.parent !== 0) return fail(422, 'Invalid port');
    const clash = ctx.store.vsByAddress(vs.address, String(parsed), vs.protocol);
    if (clash !== undefined && clash !== vs) return fail(422, 'Virtual Service already exists');
    port = String(parsed);
  }
  const subVs = params.has('createsubvs');
  if (subVs && vs.parent !== 0) return fail(422, 'Cannot create a SubVS within a SubVS');
  if (subVs && vs.realServers.some((rs) => rs.subVs === 0))
    return fail(422, 'Cannot create a SubVS on a VS with Real Servers');
  vs.port = port;
  if (subVs) createSubVs(ctx, vs);
  Object.assign(vs.props, changes.props);
  return okData(viewVs(ctx.store, vs), true);
}

/** `delvs`: deletes a VS (with its SubVSs) or a SubVS. */
export function delVs(ctx: CommandContext, params: LmParams): LmResult {
  if (!params.has('vs')) return missing('vs');
  const vs = ctx.store.resolveVs(params);
  if (vs === undefined) return fail(422, UNKNOWN_VS);
  ctx.store.deleteVs(vs.index);
  return okDone();
}

function createSubVs(ctx: CommandContext, parent: LmVirtualService): void {
  const index = ctx.store.state.nextVsIndex++;
  const props = defaultVsProperties(Number(parent.port), parent.protocol);
  props['VStype'] = parent.props['VStype'] ?? props['VStype'] ?? 'gen';
  ctx.store.state.virtualServices.push({
    index,
    address: '',
    port: '0',
    protocol: parent.protocol,
    parent: parent.index,
    props,
    realServers: [],
    rules: { pre: [], request: [], response: [], responsebody: [] },
  });
  parent.realServers.push({
    rsIndex: ctx.store.state.nextRsIndex++,
    addr: '',
    port: 0,
    subVs: index,
    weight: 1000,
    forward: 'nat',
    enable: true,
    limit: 0,
    critical: false,
    follow: 0,
    rules: [],
  });
}

/** Parses every VS parameter of a command and checks cross-field rules against the resulting property set. */
function parseVsChanges(
  ctx: CommandContext,
  params: LmParams,
  current: Record<string, LmScalar>,
): { props: Record<string, LmScalar> } | { error: string } {
  const props: Record<string, LmScalar> = {};
  for (const [name, raw] of params.entries()) {
    const parsed = parseVsProperty(name, raw);
    if (parsed === null) continue;
    if ('error' in parsed) return parsed;
    props[parsed.tag] = parsed.value;
  }
  const merged = { ...current, ...props };
  if (props['CertFile'] !== undefined) {
    const names = String(props['CertFile'])
      .replace(/^"|"$/g, '')
      .split(/\s+/)
      .filter((n) => n !== '');
    const unknown = names.find((n) => ctx.store.certificate(n) === undefined);
    if (unknown !== undefined) return { error: `Certificate ${unknown} not found` };
    props['CertFile'] = names.join(' ');
  }
  if (merged['AllowHTTP2'] === true && merged['SSLAcceleration'] !== true) {
    return { error: 'AllowHTTP2 requires SSLAcceleration' };
  }
  return { props };
}

/** True for an IPv4 dotted quad or an IPv6 literal. */
export function isIpAddress(text: string): boolean {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (v4 !== null) return v4.slice(1).every((o) => Number(o) <= 255);
  return /^[0-9a-fA-F:]+$/.test(text) && text.includes(':') && text.split(':').length <= 8;
}
