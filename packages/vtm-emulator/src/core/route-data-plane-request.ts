import { runTrafficScript, TrafficScriptError, type ScriptRequest } from './traffic-script-interpreter.ts';
import { newTransaction, type HttpTransaction } from './traffic-script-transaction.ts';
import { isObject } from './validate-properties.ts';
import { pickWeighted } from './weighted-round-robin.ts';
import type { VtmConfigStore } from './vtm-config-store.ts';

/**
 * The emulated data plane's decisions, as pure functions of the configuration: which virtual server answers on
 * a port, and what its request rules do with a request. The shell (adapters/data-plane.ts) owns the sockets.
 */

/** What the data plane does with one request. */
export type DataPlaneDecision =
  | {
      readonly kind: 'respond';
      readonly status: number;
      readonly reason: string;
      readonly headers: Readonly<Record<string, string>>;
      readonly body: string;
    }
  | {
      readonly kind: 'pool';
      readonly virtualServer: string;
      readonly pool: string;
      readonly node: string | null;
      /** The transaction after the request rules: forward `tx.url` and `tx.headers`, then run the response rules. */
      readonly tx: HttpTransaction;
    }
  | { readonly kind: 'discard'; readonly why: string };

/**
 * The enabled plain-HTTP virtual servers per port (sorted by name): the ports the data plane listens on.
 * TLS-decrypting and non-HTTP services are not emulated.
 */
export function dataPlanePorts(store: VtmConfigStore): Map<number, string[]> {
  const ports = new Map<number, string[]>();
  for (const name of store.list('virtual_servers')) {
    const basic = basicOf(store, 'virtual_servers', name);
    if (basic === null || basic['enabled'] !== true || basic['protocol'] !== 'http' || basic['ssl_decrypt'] === true)
      continue;
    const port = basic['port'];
    if (typeof port !== 'number') continue;
    ports.set(port, [...(ports.get(port) ?? []), name]);
  }
  return ports;
}

/**
 * Runs the request rules of the virtual server on `port` in order over one transaction (edits carry from rule to
 * rule and into the forwarded request; the first rule that ends the request wins), then falls back to its default pool. `pick` (the shell's request counter) chooses among a pool's active nodes: round
 * robin, or smooth weighted round robin over their `nodes_table` weights when the pool's algorithm is
 * `weighted_round_robin`. The other algorithms (least connections, …) are emulated as round robin.
 * When several virtual servers share the port, the first by name answers (the emulator has one listen address).
 */
export function routeDataPlaneRequest(
  store: VtmConfigStore,
  port: number,
  request: ScriptRequest,
  pick: number,
  tx: HttpTransaction = newTransaction(request),
): DataPlaneDecision {
  const virtualServer = dataPlanePorts(store).get(port)?.[0];
  const basic = virtualServer === undefined ? null : basicOf(store, 'virtual_servers', virtualServer);
  if (virtualServer === undefined || basic === null)
    return { kind: 'discard', why: `no enabled virtual server on port ${port}` };
  const rules = Array.isArray(basic['request_rules']) ? basic['request_rules'] : [];
  for (const rule of rules) {
    if (typeof rule !== 'string') continue;
    const stored = store.get('rules', rule);
    if (stored?.kind !== 'text') return respond(500, 'Internal Server Error', `request rule ${rule} does not exist\n`);
    let outcome;
    try {
      outcome = runTrafficScript(stored.text, request, tx);
    } catch (error) {
      if (error instanceof TrafficScriptError)
        return respond(500, 'Internal Server Error', `rule ${rule}: ${error.message}\n`);
      throw error;
    }
    switch (outcome.kind) {
      case 'none':
        continue;
      case 'response':
        return fromSendResponse(outcome.status, outcome.contentType, outcome.body, outcome.headers);
      case 'redirect':
        return {
          kind: 'respond',
          status: 302,
          reason: 'Found',
          headers: { location: outcome.location, 'content-type': 'text/plain' },
          body: '',
        };
      case 'discard':
        return { kind: 'discard', why: `rule ${rule} discarded the connection` };
      case 'pool':
        return usePool(store, virtualServer, outcome.pool, outcome.node, pick, tx);
    }
  }
  const pool = typeof basic['pool'] === 'string' ? basic['pool'] : 'discard';
  return usePool(store, virtualServer, pool, null, pick, tx);
}

/**
 * Runs the response rules of `virtualServer` over `tx.response` (set by the caller from the node's answer), in
 * order; they edit its headers in place. Returns why a rule failed (the answer becomes a 500), or null.
 */
export function runResponseRules(store: VtmConfigStore, virtualServer: string, tx: HttpTransaction): string | null {
  const basic = basicOf(store, 'virtual_servers', virtualServer);
  const rules = basic !== null && Array.isArray(basic['response_rules']) ? basic['response_rules'] : [];
  for (const rule of rules) {
    if (typeof rule !== 'string') continue;
    const stored = store.get('rules', rule);
    if (stored?.kind !== 'text') return `response rule ${rule} does not exist`;
    try {
      const outcome = runTrafficScript(stored.text, { host: '', url: tx.url }, tx, 'response');
      if (outcome.kind !== 'none') return `response rule ${rule} ended with ${outcome.kind}, which is not emulated`;
    } catch (error) {
      if (error instanceof TrafficScriptError) return `rule ${rule}: ${error.message}`;
      throw error;
    }
  }
  return null;
}

function usePool(
  store: VtmConfigStore,
  virtualServer: string,
  pool: string,
  node: string | null,
  pick: number,
  tx: HttpTransaction,
): DataPlaneDecision {
  if (pool === 'discard') return { kind: 'discard', why: `virtual server ${virtualServer} uses the discard pool` };
  const basic = basicOf(store, 'pools', pool);
  if (basic === null) return respond(503, 'Service Unavailable', `pool ${pool} does not exist\n`);
  if (node !== null) return { kind: 'pool', virtualServer, pool, node, tx };
  const rows = Array.isArray(basic['nodes_table']) ? basic['nodes_table'] : [];
  const active = rows.filter(isObject).filter((r) => r['state'] === 'active' && typeof r['node'] === 'string');
  if (active.length === 0) return respond(503, 'Service Unavailable', `pool ${pool} has no active node\n`);
  const at =
    algorithmOf(store, pool) === 'weighted_round_robin'
      ? pickWeighted(
          active.map((r) => (typeof r['weight'] === 'number' ? r['weight'] : 1)),
          pick,
        )
      : pick % active.length;
  return { kind: 'pool', virtualServer, pool, node: active[at]?.['node'] as string, tx };
}

/** A pool's `load_balancing.algorithm`; only `weighted_round_robin` changes the pick, every other one is round robin. */
function algorithmOf(store: VtmConfigStore, pool: string): unknown {
  const stored = store.get('pools', pool);
  const section = stored?.kind === 'json' ? stored.properties['load_balancing'] : undefined;
  return isObject(section) ? section['algorithm'] : undefined;
}

/** `http.sendResponse(status line, content type, body, "Name: value\r\n…")` as an HTTP answer. */
function fromSendResponse(statusLine: string, contentType: string, body: string, extra: string): DataPlaneDecision {
  const match = /^\s*(\d{3})\s*(.*)$/.exec(statusLine);
  const status = match === null ? 200 : Number(match[1]);
  const headers: Record<string, string> = {};
  if (contentType !== '') headers['content-type'] = contentType;
  for (const line of extra.split(/\r?\n/)) {
    const sep = line.indexOf(':');
    if (sep > 0) headers[line.slice(0, sep).trim().toLowerCase()] = line.slice(sep + 1).trim();
  }
  return { kind: 'respond', status, reason: match?.[2] ?? '', headers, body };
}

function respond(status: number, reason: string, body: string): DataPlaneDecision {
  return { kind: 'respond', status, reason, headers: { 'content-type': 'text/plain' }, body };
}

function basicOf(store: VtmConfigStore, type: string, name: string): Record<string, unknown> | null {
  const stored = store.get(type, name);
  if (stored?.kind !== 'json') return null;
  const basic = stored.properties['basic'];
  return isObject(basic) ? basic : null;
}
