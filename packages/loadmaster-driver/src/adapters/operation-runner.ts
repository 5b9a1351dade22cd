import type { ExecutionContext, Operation, OperationResult } from '@portolan/appliance-driver';
import type { JsonObject, ObjectRef } from '@portolan/desired-state';
import type { LmIndexMap } from '../core/parse-read-back.ts';
import type { LoadMasterClient, LoadMasterReply } from './loadmaster-client.ts';
import { LoadMasterTransportError } from './loadmaster-client.ts';
import { PortolanError } from '@portolan/errors';

type Params = Record<string, string | number>;

/** Raised when an operation's payload is not one this driver's diff produces (a bug, not an appliance refusal). */
export class MalformedOperationError extends PortolanError {
  readonly code = 'LOADMASTER_MALFORMED_OPERATION';
}

/**
 * Executes diff operations against the appliance, one API call each (a SubVS create: two). Objects are
 * addressed by the index map from the last read-back, kept current from the replies of addvs/createsubvs;
 * a miss triggers one listvs refresh. Appliance refusals and dropped connections are results, not throws.
 */
export class OperationRunner {
  readonly #client: LoadMasterClient;
  readonly #refresh: (signal: AbortSignal) => Promise<LmIndexMap>;
  indexes: LmIndexMap = { vs: new Map(), subVs: new Map() };

  constructor(client: LoadMasterClient, refresh: (signal: AbortSignal) => Promise<LmIndexMap>) {
    this.#client = client;
    this.#refresh = refresh;
  }

  /** Runs one operation. */
  async run(op: Operation, ctx: ExecutionContext): Promise<OperationResult> {
    if (ctx.signal.aborted)
      return { ok: false, code: 'Aborted', message: 'leadership lost before the call', retryable: true };
    const p = op.payload ?? {};
    try {
      if (op.objectType === 'binding') {
        return { ok: false, code: 'VirtualServiceNotFound', message: op.summary, retryable: false };
      }
      const reply = await this.#dispatch(op, p, ctx);
      if (reply.ok) return { ok: true, detail: op.summary };
      if (reply.status === 0)
        return { ok: false, code: 'SecretUnavailable', message: `${op.summary}: ${reply.message}`, retryable: true };
      return {
        ok: false,
        code: `LoadMaster${reply.status}`,
        message: `${op.summary}: ${reply.message}`,
        retryable: reply.status >= 500,
      };
    } catch (error) {
      if (error instanceof LoadMasterTransportError)
        return { ok: false, code: error.code, message: `${op.summary}: ${error.message}`, retryable: true };
      if (ctx.signal.aborted)
        return { ok: false, code: 'Aborted', message: 'leadership lost during the call', retryable: true };
      if (error instanceof UnresolvedError)
        return { ok: false, code: 'NotFound', message: `${op.summary}: ${error.message}`, retryable: true };
      throw error;
    }
  }

  /** Uploads a certificate with its key, resolved from the Secret just before the call. */
  async #addCertificate(
    p: JsonObject,
    call: (cmd: string, params: Params) => Promise<LoadMasterReply>,
    ctx: ExecutionContext,
  ): Promise<LoadMasterReply> {
    let material;
    try {
      material = await ctx.secrets.resolve(secretRef(p));
    } catch (error) {
      // Any rejection of a SecretResolver means the material is unavailable: a refusal of this operation. Its error
      // may quote the sealed payload, so only its class name goes into the result.
      return { ok: false, status: 0, message: `Secret unavailable (${error instanceof Error ? error.name : 'error'})` };
    }
    const data = Buffer.from(`${material.certificatePem.trim()}\n${material.privateKeyPem.trim()}\n`).toString(
      'base64',
    );
    return call('addcert', { cert: text(p, 'name'), replace: 0, data });
  }

  async #dispatch(op: Operation, p: JsonObject, ctx: ExecutionContext): Promise<LoadMasterReply> {
    const call = (cmd: string, params: Params): Promise<LoadMasterReply> => this.#client.call(cmd, params, ctx.signal);
    switch (`${op.objectType}:${op.action}`) {
      case 'certificate:create':
        return this.#addCertificate(p, call, ctx);
      case 'certificate:delete':
        return call('delcert', { cert: text(p, 'name') });
      case 'rule:create':
      case 'rule:update':
        return call(op.action === 'create' ? 'addrule' : 'modrule', ruleCallParams(p, op.action === 'create'));
      case 'rule:delete':
        return call('delrule', { name: text(p, 'name') });
      case 'virtual-service:create':
        return this.#createVs(p, call);
      case 'virtual-service:update':
        return call('modvs', { vs: await this.#vsIndex(text(p, 'nickname'), ctx), ...(p['params'] as Params) });
      case 'virtual-service:delete':
        return this.#deleteVs(p, call, ctx);
      case 'sub-vs:create':
        return this.#createSubVs(p, call, ctx);
      case 'sub-vs:update':
        return call('modvs', {
          vs: (await this.#sub(text(p, 'parent'), text(p, 'nickname'), ctx)).index,
          ...(p['params'] as Params),
        });
      case 'sub-vs:delete': {
        const index =
          typeof p['index'] === 'number'
            ? p['index']
            : (await this.#sub(text(p, 'parent'), text(p, 'nickname'), ctx)).index;
        return call('delvs', { vs: index });
      }
      case 'rule-assignment:create':
      case 'rule-assignment:delete': {
        const parent = await this.#vsIndex(text(p, 'parent'), ctx);
        const sub = await this.#sub(text(p, 'parent'), text(p, 'subVs'), ctx);
        return call(op.action === 'create' ? 'addrsrule' : 'delrsrule', {
          vs: parent,
          rs: `!${sub.rsIndex}`,
          rule: text(p, 'rule'),
        });
      }
      case 'rule-list:create':
      case 'rule-list:delete':
        return this.#ruleList(op.action, p, call, ctx);
      case 'real-server:create':
      case 'real-server:update':
      case 'real-server:delete':
        return this.#realServer(op.action, p, call, ctx);
      default:
        throw new MalformedOperationError(`unknown operation ${op.objectType}:${op.action}`);
    }
  }

  async #createVs(
    p: JsonObject,
    call: (cmd: string, params: Params) => Promise<LoadMasterReply>,
  ): Promise<LoadMasterReply> {
    const nickname = text(p, 'nickname');
    const params = Object.fromEntries(Object.entries(p['params'] as Params).filter(([, v]) => v !== ''));
    const reply = await call('addvs', {
      vs: text(p, 'address'),
      port: Number(p['port']),
      prot: text(p, 'protocol'),
      nickname,
      ...params,
    });
    if (reply.ok) this.indexes.vs.set(nickname, Number(reply.body['Index']));
    return reply;
  }

  async #deleteVs(
    p: JsonObject,
    call: (cmd: string, params: Params) => Promise<LoadMasterReply>,
    ctx: ExecutionContext,
  ): Promise<LoadMasterReply> {
    const nickname = text(p, 'nickname');
    const index = typeof p['index'] === 'number' ? p['index'] : await this.#vsIndex(nickname, ctx);
    const reply = await call('delvs', { vs: index });
    if (reply.ok) this.indexes.vs.delete(nickname);
    return reply;
  }

  /** `modvs createsubvs=` returns the parent; the new SubVS is the unnamed link with the highest index. */
  async #createSubVs(
    p: JsonObject,
    call: (cmd: string, params: Params) => Promise<LoadMasterReply>,
    ctx: ExecutionContext,
  ): Promise<LoadMasterReply> {
    const parent = text(p, 'parent');
    const nickname = text(p, 'nickname');
    const reply = await call('modvs', { vs: await this.#vsIndex(parent, ctx), createsubvs: '' });
    if (!reply.ok) return reply;
    const links = (Array.isArray(reply.body['SubVS']) ? reply.body['SubVS'] : [reply.body['SubVS']]) as Record<
      string,
      unknown
    >[];
    const fresh = links
      .filter((l) => typeof l === 'object' && l !== null && l['Name'] === '-')
      .sort((a, b) => Number(b['VSIndex']) - Number(a['VSIndex']))[0];
    if (fresh === undefined) return { ok: false, status: 500, message: 'createsubvs returned no new SubVS' };
    const index = Number(fresh['VSIndex']);
    // The SubVS's own parameters (Schedule) go with the naming call: still two calls per SubVS create.
    const named = await call('modvs', { vs: index, nickname, ...((p['params'] ?? {}) as Params) });
    if (named.ok) this.indexes.subVs.set(`${parent}/${nickname}`, { index, rsIndex: Number(fresh['RsIndex']) });
    return named;
  }

  /** Appends a rule to, or removes it from, a VS's pre list or a SubVS's request/response list. */
  async #ruleList(
    action: Operation['action'],
    p: JsonObject,
    call: (cmd: string, params: Params) => Promise<LoadMasterReply>,
    ctx: ExecutionContext,
  ): Promise<LoadMasterReply> {
    const parent = text(p, 'parent');
    const vs =
      typeof p['subVs'] === 'string'
        ? (await this.#sub(parent, p['subVs'], ctx)).index
        : await this.#vsIndex(parent, ctx);
    const list = text(p, 'list');
    if (list !== 'pre' && list !== 'request' && list !== 'response')
      throw new MalformedOperationError(`unknown rule list ${list}`);
    return call(`${action === 'create' ? 'add' : 'del'}${list}rule`, { vs, rule: text(p, 'rule') });
  }

  async #realServer(
    action: Operation['action'],
    p: JsonObject,
    call: (cmd: string, params: Params) => Promise<LoadMasterReply>,
    ctx: ExecutionContext,
  ): Promise<LoadMasterReply> {
    const scope = text(p, 'scope');
    const vs = text(p, 'vs');
    let where: Params;
    if (scope === 'target') where = targetAddressing(vs);
    else if (scope === 'subvs') where = { vs: (await this.#sub(vs, text(p, 'subVs'), ctx)).index };
    else where = { vs: await this.#vsIndex(vs, ctx) };
    const rs = { rs: text(p, 'address'), rsport: Number(p['port']) };
    if (action === 'delete') return call('delrs', { ...where, ...rs });
    const settings = { weight: Number(p['weight']), enable: p['enable'] === true ? 1 : 0 };
    return call(action === 'create' ? 'addrs' : 'modrs', { ...where, ...rs, ...settings });
  }

  async #vsIndex(nickname: string, ctx: ExecutionContext): Promise<number> {
    let index = this.indexes.vs.get(nickname);
    if (index === undefined) {
      this.indexes = await this.#refresh(ctx.signal);
      index = this.indexes.vs.get(nickname);
    }
    if (index === undefined) throw new UnresolvedError(`virtual service ${nickname} is not on the LoadMaster`);
    return index;
  }

  async #sub(parent: string, nickname: string, ctx: ExecutionContext): Promise<{ index: number; rsIndex: number }> {
    const key = `${parent}/${nickname}`;
    let sub = this.indexes.subVs.get(key);
    if (sub === undefined) {
      this.indexes = await this.#refresh(ctx.signal);
      sub = this.indexes.subVs.get(key);
    }
    if (sub === undefined) throw new UnresolvedError(`SubVS ${key} is not on the LoadMaster`);
    return sub;
  }
}

/** An object the operation names is not on the appliance (yet): a retryable refusal, not a bug. */
class UnresolvedError extends PortolanError {
  readonly code = 'LOADMASTER_UNRESOLVED';
}

/** Service-mode target addressing: `vs=<index>` or `vs=<ip>&port=<p>&prot=<prot>`. */
function targetAddressing(target: string): Params {
  if (/^\d+$/.test(target)) return { vs: Number(target) };
  const parts = target.split(':');
  const prot = parts.pop() ?? 'tcp';
  const port = Number(parts.pop());
  return { vs: parts.join(':'), port, prot };
}

/**
 * addrule/modrule parameters of a rule operation, by type: a match rule (0) all of its parameters (so modrule
 * resets what render no longer wants, e.g. a flag), a header rule (1 add, 2 delete) only those its type takes.
 * `type` goes only with addrule: modrule keeps a rule's type.
 */
function ruleCallParams(p: JsonObject, create: boolean): Params {
  const type = Number(p['type'] ?? 0);
  const flags = { onlyonflag: Number(p['onlyOnFlag'] ?? 0), onlyonnoflag: Number(p['onlyOnNoFlag'] ?? 0) };
  const base = { name: text(p, 'name'), ...(create ? { type } : {}) };
  if (type === 1) return { ...base, header: text(p, 'header'), replacement: text(p, 'replacement'), ...flags };
  if (type === 2) return { ...base, pattern: text(p, 'pattern'), ...flags };
  return {
    ...base,
    matchtype: 'regex',
    pattern: text(p, 'pattern'),
    inchost: p['incHost'] === true ? 1 : 0,
    nocase: 0,
    header: typeof p['header'] === 'string' ? p['header'] : '',
    setonmatch: Number(p['setOnMatch'] ?? 0),
    ...flags,
  };
}

function secretRef(p: JsonObject): ObjectRef {
  const s = p['secret'];
  if (s === null || typeof s !== 'object' || Array.isArray(s))
    throw new MalformedOperationError('certificate operation lacks its Secret');
  const o = s as JsonObject;
  return { cluster: String(o['cluster']), kind: 'Secret', namespace: String(o['namespace']), name: String(o['name']) };
}

function text(p: JsonObject, key: string): string {
  const v = p[key];
  if (v === undefined) throw new MalformedOperationError(`operation payload lacks ${key}`);
  return typeof v === 'string' ? v : (v as unknown as string);
}
