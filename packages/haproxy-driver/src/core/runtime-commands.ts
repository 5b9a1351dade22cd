import type { MapEntry, ServerSlot } from './haproxy-bundle.ts';
import type { MapEdit } from './map-edit.ts';

/**
 * Runtime API commands as data, each with the rule that tells its success from its refusal
 * (HAProxy 2.6 answers in free text; the accepted forms are the replies HAProxy 2.6 documents).
 */
export interface RuntimeCommand {
  /** The command line, or a payload command (`… <<\n<lines>\n`), without the final newline. */
  readonly text: string;
  /** True when the reply means the command took effect. */
  readonly accepts: (reply: string) => boolean;
  /** Replaces `text` in logs and error messages (payload commands may carry key material). */
  readonly redacted?: string;
}

/** HAProxy reads a command (payload included) into one buffer of `tune.bufsize` (16 kB by default). */
export const MAX_COMMAND_BYTES = 12_000;

const empty = (reply: string): boolean => reply.trim() === '';

/** Commands that make a server slot match `slot`: address and weight before the state, so it serves right at once. */
export function serverCommands(backend: string, slot: ServerSlot): RuntimeCommand[] {
  const target = `${backend}/${slot.name}`;
  if (slot.state === 'maint') return [{ text: `set server ${target} state maint`, accepts: empty }];
  return [
    {
      text: `set server ${target} addr ${slot.address} port ${slot.port}`,
      accepts: (reply) => empty(reply) || /changed from|no need to change/i.test(reply),
    },
    { text: `set server ${target} weight ${slot.weight}`, accepts: empty },
    { text: `set server ${target} state ${slot.state}`, accepts: empty },
  ];
}

/** `prepare map`: opens a new, invisible version of a map; its reply names the version. */
export function prepareMapCommand(file: string): RuntimeCommand {
  return { text: `prepare map ${file}`, accepts: (reply) => preparedVersion(reply) !== null };
}

/** The version number in a `prepare map` reply (`New version created: <v>`). */
export function preparedVersion(reply: string): number | null {
  const match = /New version created: (\d+)/.exec(reply);
  return match ? Number(match[1]) : null;
}

/** Fills a prepared map version (in payload chunks that fit HAProxy's buffer) and commits it atomically. */
export function fillAndCommitMapCommands(
  file: string,
  version: number,
  entries: readonly MapEntry[],
): RuntimeCommand[] {
  const commands: RuntimeCommand[] = [];
  const head = `add map @${version} ${file} <<\n`;
  let chunk = '';
  for (const [key, value] of entries) {
    const line = `${key} ${value}\n`;
    if (chunk !== '' && head.length + chunk.length + line.length > MAX_COMMAND_BYTES) {
      commands.push({ text: head + chunk, accepts: empty });
      chunk = '';
    }
    chunk += line;
  }
  if (chunk !== '') commands.push({ text: head + chunk, accepts: empty });
  commands.push({ text: `commit map @${version} ${file}`, accepts: empty });
  return commands;
}

/** Replaces a loaded certificate in one transaction. The PEM travels only in this command's payload. */
export function setCertificateCommands(file: string, pem: string): RuntimeCommand[] {
  const body = pem
    .replace(/\r/g, '')
    .split('\n')
    .filter((line) => line !== '')
    .join('\n');
  return [
    {
      text: `set ssl cert ${file} <<\n${body}\n`,
      redacted: `set ssl cert ${file} <<[PEM redacted]`,
      accepts: (reply) => /Transaction (created|updated)/i.test(reply),
    },
    { text: `commit ssl cert ${file}`, accepts: (reply) => /Success!/.test(reply) },
  ];
}

/** Creates an empty certificate store HAProxy has not loaded, so `set ssl cert` + commit can fill it. */
export function newCertificateCommand(file: string): RuntimeCommand {
  return { text: `new ssl cert ${file}`, accepts: (reply) => /New empty certificate store/i.test(reply) };
}

/** Removes one certificate's line from a loaded crt-list (by the certificate's path, the line's first word). */
export function deleteCrtListLineCommand(crtList: string, line: string): RuntimeCommand {
  const certificate = line.split(' ')[0] ?? '';
  return { text: `del ssl crt-list ${crtList} ${certificate}`, accepts: (reply) => /deleted in crtlist/i.test(reply) };
}

/** Appends a line (certificate path and SNI filters) to a loaded crt-list. */
export function addCrtListLineCommand(crtList: string, line: string): RuntimeCommand {
  return { text: `add ssl crt-list ${crtList} <<\n${line}\n`, accepts: (reply) => /Success!/.test(reply) };
}

/** One entry's change in a loaded map, atomic on its own: `add map`, `set map` or `del map`. */
export function mapEditCommands(file: string, edit: MapEdit): RuntimeCommand[] {
  return [
    ...edit.del.map((key) => ({ text: `del map ${file} ${key}`, accepts: empty })),
    ...edit.set.map(([key, value]) => ({ text: `set map ${file} ${key} ${value}`, accepts: empty })),
    ...edit.add.map(([key, value]) => ({ text: `add map ${file} ${key} ${value}`, accepts: empty })),
  ];
}

/** Drops a certificate store no crt-list uses any more. */
export function deleteCertificateCommand(file: string): RuntimeCommand {
  return { text: `del ssl cert ${file}`, accepts: (reply) => /deleted/i.test(reply) };
}
