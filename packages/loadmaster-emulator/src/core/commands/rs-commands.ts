import type { CommandContext } from '../command-context.ts';
import type { LmParams } from '../lm-params.ts';
import { parseLmBool, parseLmInt } from '../lm-params.ts';
import type { LmResult } from '../lm-result.ts';
import { fail, missing, okData, okDone } from '../lm-result.ts';
import type { LmRealServer, LmVirtualService } from '../lm-state.ts';
import { viewRs, viewSubVsLink } from '../vs-view.ts';
import { isIpAddress } from './vs-commands.ts';

/** Real server commands: addrs, modrs, delrs, showrs, addressed by ip+rsport or `rs=!<RsIndex>`. */

const UNKNOWN_RS = 'Unknown Real Server';

type Located = { vs: LmVirtualService; rs: LmRealServer } | LmResult;

function locate(ctx: CommandContext, params: LmParams): Located {
  if (!params.has('vs')) return missing('vs');
  if (!params.has('rs')) return missing('rs');
  const vs = ctx.store.resolveVs(params);
  if (vs === undefined) return fail(422, 'Unknown VS');
  const rs = ctx.store.resolveRs(vs, params);
  return rs === undefined ? fail(422, UNKNOWN_RS) : { vs, rs };
}

/** `addrs`: adds a real server to a VS or SubVS. A VS with SubVSs takes no direct real servers. */
export function addRs(ctx: CommandContext, params: LmParams): LmResult {
  if (!params.has('vs')) return missing('vs');
  const addr = params.get('rs');
  if (addr === undefined || addr === '') return missing('rs');
  const vs = ctx.store.resolveVs(params);
  if (vs === undefined) return fail(422, 'Unknown VS');
  if (vs.realServers.some((rs) => rs.subVs !== 0)) return fail(422, 'Cannot add Real Servers to a VS with SubVSs');
  const portText = params.get('rsport') ?? (vs.port === '0' ? undefined : vs.port);
  if (portText === undefined || portText === '') return missing('rsport');
  const port = parseLmInt(portText, 1, 65535);
  if (port === null) return fail(422, 'Invalid port');
  if (!isIpAddress(addr)) return fail(422, 'Invalid Real Server address');
  if (vs.realServers.some((rs) => rs.addr === addr && rs.port === port)) return fail(422, 'Duplicate Real Server');
  const rs: LmRealServer = {
    rsIndex: 0,
    addr,
    port,
    subVs: 0,
    weight: 1000,
    forward: 'nat',
    enable: true,
    limit: 0,
    critical: false,
    follow: 0,
    rules: [],
  };
  const error = applyRsParams(vs, rs, params);
  if (error !== null) return fail(422, error);
  rs.rsIndex = ctx.store.state.nextRsIndex++;
  vs.realServers.push(rs);
  return okData({ Rs: [viewRs(vs, rs)] }, true);
}

/** `modrs`: changes weight, forward, enable, limit, critical, follow, or the port (`newport`). */
export function modRs(ctx: CommandContext, params: LmParams): LmResult {
  const found = locate(ctx, params);
  if ('ok' in found) return found;
  const copy = { ...found.rs };
  const error = applyRsParams(found.vs, copy, params);
  if (error !== null) return fail(422, error);
  const newPort = params.get('newport');
  if (newPort !== undefined && newPort !== '') {
    const port = parseLmInt(newPort, 1, 65535);
    if (port === null || copy.subVs !== 0) return fail(422, 'Invalid port');
    if (found.vs.realServers.some((rs) => rs !== found.rs && rs.addr === copy.addr && rs.port === port)) {
      return fail(422, 'Duplicate Real Server');
    }
    copy.port = port;
  }
  Object.assign(found.rs, copy);
  return okDone();
}

/** `delrs`: removes a real server. SubVS links are removed with `delvs` on the SubVS. */
export function delRs(ctx: CommandContext, params: LmParams): LmResult {
  const found = locate(ctx, params);
  if ('ok' in found) return found;
  if (found.rs.subVs !== 0) return fail(422, 'Use delvs to delete a SubVS');
  found.vs.realServers = found.vs.realServers.filter((rs) => rs !== found.rs);
  return okDone();
}

/** `showrs`: one real server (or SubVS link). */
export function showRs(ctx: CommandContext, params: LmParams): LmResult {
  const found = locate(ctx, params);
  if ('ok' in found) return found;
  if (found.rs.subVs !== 0) return okData({ SubVS: [viewSubVsLink(ctx.store, found.rs)] });
  return okData({ Rs: [viewRs(found.vs, found.rs)] });
}

function applyRsParams(vs: LmVirtualService, rs: LmRealServer, params: LmParams): string | null {
  const weight = params.get('weight');
  if (weight !== undefined) {
    const n = parseLmInt(weight, 1, 65535);
    if (n === null) return 'Invalid weight';
    rs.weight = n;
  }
  const limit = params.get('limit');
  if (limit !== undefined) {
    const n = parseLmInt(limit, 0, 100000);
    if (n === null) return 'Invalid limit';
    rs.limit = n;
  }
  const follow = params.get('follow');
  if (follow !== undefined) {
    const n = parseLmInt(follow, 0, Number.MAX_SAFE_INTEGER);
    if (n === null) return 'Invalid follow';
    rs.follow = n;
  }
  for (const key of ['enable', 'critical'] as const) {
    const raw = params.get(key);
    if (raw === undefined) continue;
    const b = parseLmBool(raw);
    if (b === null) return `Invalid ${key}`;
    rs[key] = b;
  }
  const forward = params.get('forward')?.toLowerCase();
  if (forward !== undefined) {
    if (forward !== 'nat' && forward !== 'route') return 'Invalid forward';
    if (forward === 'route' && vs.props['ForceL7'] === true) return 'Route forwarding is only possible on a Layer 4 VS';
    rs.forward = forward;
  }
  return null;
}
