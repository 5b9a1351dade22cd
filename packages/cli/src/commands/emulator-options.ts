import { readFile } from 'node:fs/promises';
import { UsageError } from '../command.ts';

/** The `--port` of an emulator command: required, 0–65535 (0 picks a free port). */
export function requiredPort(value: string | undefined): number {
  const port = Number(value);
  if (value === undefined || !Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError('--port <0-65535> is required');
  return port;
}

/** The password from exactly one of `--password` and `--password-file` (a trailing newline in the file is dropped). */
export async function passwordFrom(password: string | undefined, passwordFile: string | undefined): Promise<string> {
  if ((password === undefined) === (passwordFile === undefined))
    throw new UsageError('give exactly one of --password and --password-file');
  return password ?? (await readFile(passwordFile as string, 'utf8')).replace(/\r?\n$/, '');
}
