import { createHash } from 'node:crypto';
import type { ExecutionContext, Operation, OperationResult } from '@portolan/appliance-driver';
import type { JsonObject, ObjectRef } from '@portolan/desired-state';
import { VtmTransportError, type VtmReply, type VtmRestClient, type WriteStamp } from './vtm-rest-client.ts';

/**
 * Runs one diff operation against the appliance. Appliance refusals and transport failures become failed
 * results (never exceptions); TLS material is fetched through the context's resolver only here, and never
 * appears in a result, a log or an error.
 */
export async function executeOperation(
  client: VtmRestClient,
  op: Operation,
  context: ExecutionContext,
): Promise<OperationResult> {
  if (context.signal.aborted)
    return { ok: false, code: 'aborted', message: 'leadership lost: write not sent', retryable: false };
  try {
    const { reply, detail } = await send(client, op, context);
    const ok = reply.status >= 200 && reply.status < 300;
    if (ok || (op.action === 'delete' && reply.status === 404))
      return { ok: true, detail: `${detail} → ${reply.status}` };
    return failure(reply);
  } catch (error) {
    if (context.signal.aborted)
      return { ok: false, code: 'aborted', message: 'leadership lost during the write', retryable: false };
    if (error instanceof VtmTransportError)
      return { ok: false, code: error.code, message: error.message, retryable: true };
    throw error;
  }
}

async function send(
  client: VtmRestClient,
  op: Operation,
  context: ExecutionContext,
): Promise<{ reply: VtmReply; detail: string }> {
  const { objectType: type, objectName: name } = op;
  const { signal } = context;
  const stamp = writeStamp(context);
  if (op.action === 'delete')
    return { reply: await client.delete(type, name, signal, stamp), detail: `DELETE ${type}/${name}` };
  const payload = op.payload ?? {};
  if (type === 'rules')
    return {
      reply: await client.putText(type, name, String(payload['text'] ?? ''), signal, stamp),
      detail: `PUT ${type}/${name}`,
    };
  if (type === 'ssl/server_keys') return putServerKey(client, op, context);
  return {
    reply: await client.putJson(type, name, { properties: payload['properties'] }, signal, stamp),
    detail: `PUT ${type}/${name}`,
  };
}

/** The epoch and snapshot of a write, as headers. */
function writeStamp(context: ExecutionContext): WriteStamp {
  const epoch = { 'x-portolan-epoch': String(context.epoch) };
  return context.snapshotId === undefined ? epoch : { ...epoch, 'x-portolan-snapshot': context.snapshotId };
}

/**
 * Writes an SSL server key. The appliance shows `private` only as its base64 SHA-256; when that equals the hash
 * of the resolved key (and the certificate is the same), only the note is written and the key is not re-sent.
 */
async function putServerKey(
  client: VtmRestClient,
  op: Operation,
  context: ExecutionContext,
): Promise<{ reply: VtmReply; detail: string }> {
  const { objectType: type, objectName: name } = op;
  const payload = op.payload ?? {};
  const properties = payload['properties'] as JsonObject;
  const note = (properties['basic'] as JsonObject | undefined)?.['note'] ?? '';
  const material = await context.secrets.resolve(payload['secret'] as unknown as ObjectRef);
  const keyHash = createHash('sha256').update(material.privateKeyPem).digest('base64');
  const current = await client.get(type, name, context.signal);
  const currentBasic = (current.json as { properties?: { basic?: { private?: string; public?: string } } } | null)
    ?.properties?.basic;
  const unchanged =
    current.status === 200 && currentBasic?.private === keyHash && currentBasic.public === material.certificatePem;
  const basic = unchanged ? { note } : { note, public: material.certificatePem, private: material.privateKeyPem };
  const reply = await client.putJson(type, name, { properties: { basic } }, context.signal, writeStamp(context));
  return { reply, detail: `PUT ${type}/${name} (${unchanged ? 'key unchanged, note only' : 'certificate and key'})` };
}

function failure(reply: VtmReply): OperationResult {
  const body = (reply.json ?? {}) as { error_id?: string; error_text?: string; error_info?: unknown };
  const info = body.error_info === undefined ? '' : ` ${JSON.stringify(body.error_info).slice(0, 1000)}`;
  return {
    ok: false,
    code: body.error_id ?? `http_${reply.status}`,
    message: `${body.error_text ?? reply.text.slice(0, 200)}${info}`,
    retryable: reply.status >= 500 || reply.status === 429,
  };
}
