import path from 'node:path';
import type { OperationResult, SecretResolver } from '@portolan/appliance-driver';
import type { HaproxyOperation } from './core/haproxy-operations.ts';
import type { MapEntry } from './core/haproxy-bundle.ts';
import type { SlotChange } from './core/diff-slots.ts';
import {
  type RuntimeCommand,
  addCrtListLineCommand,
  deleteCertificateCommand,
  deleteCrtListLineCommand,
  fillAndCommitMapCommands,
  mapEditCommands,
  newCertificateCommand,
  prepareMapCommand,
  preparedVersion,
  serverCommands,
  setCertificateCommands,
} from './core/runtime-commands.ts';
import { renderMapFile } from './core/routing-maps.ts';
import type { HaproxyRuntimeClient } from './adapters/haproxy-runtime-client.ts';
import { removeCertificate, writeCertificate, writeFileAtomic } from './adapters/haproxy-config-files.ts';
import { HaproxySocketError } from './errors.ts';

/** The code of a refusal the applier answers by isolating the object responsible (as after a refused reload). */
const CONFIG_INVALID = 'ConfigInvalid';

/** The operations that go through the Runtime API. */
export type RuntimeKind = 'server' | 'map' | 'ssl-cert' | 'crt-list' | 'ssl-cert-del';

/** Whether an operation goes through the Runtime API (as part of the pipelined batch). */
export function isRuntimeOperation(op: HaproxyOperation): op is Extract<HaproxyOperation, { kind: RuntimeKind }> {
  return (
    op.kind === 'server' ||
    op.kind === 'map' ||
    op.kind === 'ssl-cert' ||
    op.kind === 'crt-list' ||
    op.kind === 'ssl-cert-del'
  );
}

/** A runtime operation with its position in the caller's list. */
export interface IndexedRuntimeOperation {
  readonly index: number;
  readonly op: Extract<HaproxyOperation, { kind: RuntimeKind }>;
}

interface Planned {
  readonly index: number;
  readonly commands: readonly RuntimeCommand[];
  /**
   * The result code of a refusal: `ConfigInvalid` where HAProxy refused material a reload would refuse as well (a new
   * certificate it cannot load), so the applier isolates the object responsible as after a refused reload.
   */
  readonly refusedCode?: string;
  /** Runs after the commands succeeded: rewrites the file a later reload will read. */
  readonly persist: () => Promise<void>;
}

/**
 * Applies slot, map and certificate operations through the Runtime API as ONE pipelined batch (plus one
 * round trip for `prepare map` when maps change), then rewrites the matching files so a later reload sees the
 * same. Each operation succeeds or fails on its own; a refused command fails only its operation.
 */
export async function runRuntimeOperations(
  configDir: string,
  runtime: HaproxyRuntimeClient,
  ops: readonly IndexedRuntimeOperation[],
  secrets: SecretResolver,
): Promise<Map<number, OperationResult>> {
  const results = new Map<number, OperationResult>();
  try {
    const planned = await planCommands(configDir, runtime, ops, secrets, results);
    const replies = await runtime.execute(planned.flatMap((p) => p.commands.map((c) => c.text)));
    let cursor = 0;
    for (const plan of planned) {
      const own = replies.slice(cursor, cursor + plan.commands.length);
      cursor += plan.commands.length;
      const refused = plan.commands.findIndex((c, i) => !c.accepts(own[i] ?? ''));
      if (refused >= 0) {
        const command = plan.commands[refused];
        results.set(plan.index, refusal(command, own[refused] ?? '', plan.refusedCode));
        continue;
      }
      await plan.persist();
      results.set(plan.index, { ok: true, detail: own.filter((r) => r !== '').join('; ') || 'applied' });
    }
  } catch (error) {
    if (!(error instanceof HaproxySocketError)) throw error;
    for (const { index } of ops) {
      if (!results.has(index)) results.set(index, unreachable(error));
    }
  }
  return results;
}

/** Brings slots to their desired content; returns the refusals (empty when all took effect). */
export async function applySlotChanges(
  runtime: HaproxyRuntimeClient,
  changes: readonly SlotChange[],
): Promise<string[]> {
  if (changes.length === 0) return [];
  const commands = changes.flatMap((c) => serverCommands(c.backend, c.slot));
  const replies = await runtime.execute(commands.map((c) => c.text));
  return commands.flatMap((c, i) => (c.accepts(replies[i] ?? '') ? [] : [`${c.text}: ${replies[i] ?? ''}`]));
}

async function planCommands(
  configDir: string,
  runtime: HaproxyRuntimeClient,
  ops: readonly IndexedRuntimeOperation[],
  secrets: SecretResolver,
  results: Map<number, OperationResult>,
): Promise<Planned[]> {
  // Only maps replaced whole need a new version; an edit changes entries of the loaded one.
  const maps = ops.filter((o) => o.op.kind === 'map' && o.op.edit === undefined);
  const prepareReplies = await runtime.execute(
    maps.map((o) => prepareMapCommand(path.join(configDir, o.op.kind === 'map' ? o.op.path : '')).text),
  );
  const versions = new Map(maps.map((o, i) => [o.index, preparedVersion(prepareReplies[i] ?? '')]));
  const planned: Planned[] = [];
  for (const { index, op } of ops) {
    switch (op.kind) {
      case 'server':
        planned.push({ index, commands: serverCommands(op.backend, op.slot), persist: async () => {} });
        break;
      case 'map': {
        const file = path.join(configDir, op.path);
        const version = op.edit === undefined ? (versions.get(index) ?? null) : null;
        if (op.edit !== undefined) {
          planned.push(mapFile(index, file, mapEditCommands(file, op.edit), op.entries));
          break;
        }
        if (version === null) {
          results.set(
            index,
            refusal(prepareMapCommand(file), prepareReplies[maps.findIndex((m) => m.index === index)] ?? ''),
          );
          break;
        }
        planned.push(mapFile(index, file, fillAndCommitMapCommands(file, version, op.entries), op.entries));
        break;
      }
      case 'ssl-cert': {
        const pem = await resolvePem(secrets, op.certificate.secret);
        if (pem === null)
          results.set(index, secretUnavailable(op.certificate.secret.namespace, op.certificate.secret.name));
        else planned.push(planCertificate(configDir, index, op, pem));
        break;
      }
      case 'crt-list':
        planned.push(planCrtList(configDir, index, op));
        break;
      case 'ssl-cert-del':
        planned.push(planCertificateDrop(configDir, index, op.path));
        break;
    }
  }
  return planned;
}

/** A certificate's material through the Runtime API (created first when HAProxy has not loaded it), then its file. */
function planCertificate(
  configDir: string,
  index: number,
  op: Extract<HaproxyOperation, { kind: 'ssl-cert' }>,
  pem: string,
): Planned {
  const rel = op.certificate.path;
  const file = path.join(configDir, rel);
  const create = op.create === true ? [newCertificateCommand(file)] : [];
  return {
    index,
    commands: [...create, ...setCertificateCommands(file, pem)],
    ...(op.create === true ? { refusedCode: CONFIG_INVALID } : {}),
    persist: () => writeCertificate(configDir, rel, pem, op.certificate.fingerprint),
  };
}

/** Map commands, then the map's file with every entry. */
function mapFile(index: number, file: string, commands: RuntimeCommand[], entries: readonly MapEntry[]): Planned {
  return { index, commands, persist: () => writeFileAtomic(file, renderMapFile(entries)) };
}

/** A certificate no crt-list names: dropped from HAProxy, then its PEM and index entry. */
function planCertificateDrop(configDir: string, index: number, rel: string): Planned {
  return {
    index,
    commands: [deleteCertificateCommand(path.join(configDir, rel))],
    persist: () => removeCertificate(configDir, rel),
  };
}

/** Crt-list lines removed, then added, through the Runtime API; then the file. */
function planCrtList(configDir: string, index: number, op: Extract<HaproxyOperation, { kind: 'crt-list' }>): Planned {
  const file = path.join(configDir, op.path);
  return {
    index,
    refusedCode: CONFIG_INVALID,
    commands: [
      ...op.remove.map((line) => deleteCrtListLineCommand(file, line)),
      ...op.add.map((line) => addCrtListLineCommand(file, line)),
    ],
    persist: () => writeFileAtomic(file, op.content),
  };
}

/** Certificate and key as one PEM bundle (HAProxy's crt format), or null when the Secret cannot be resolved. */
export async function resolvePem(
  secrets: SecretResolver,
  secret: Parameters<SecretResolver['resolve']>[0],
): Promise<string | null> {
  try {
    const material = await secrets.resolve(secret);
    return `${material.certificatePem.trim()}\n${material.privateKeyPem.trim()}\n`;
  } catch {
    // Any rejection of a SecretResolver means the material is unavailable. Its error may quote the Secret, so only
    // which Secret failed is reported (see secretUnavailable).
    return null;
  }
}

/** The result for an operation whose Secret could not be resolved. */
export function secretUnavailable(namespace: string, name: string): OperationResult {
  return {
    ok: false,
    code: 'SecretUnavailable',
    message: `TLS material of Secret ${namespace}/${name} could not be resolved`,
    retryable: true,
  };
}

function refusal(command: RuntimeCommand | undefined, reply: string, code = 'RuntimeRefused'): OperationResult {
  const shown = command?.redacted ?? command?.text.split('\n')[0] ?? '';
  return {
    ok: false,
    code,
    message: `${shown}: ${reply.trim() || 'unexpected empty reply'}`,
    retryable: false,
  };
}

function unreachable(error: HaproxySocketError): OperationResult {
  return { ok: false, code: 'RuntimeUnavailable', message: error.message, retryable: true };
}
