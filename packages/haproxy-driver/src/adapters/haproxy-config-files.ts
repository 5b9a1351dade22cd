import fs from 'node:fs/promises';
import path from 'node:path';
import { textOf } from '@portolan/desired-state';
import { isSystemError } from '@portolan/errors';
import type { BundleFile } from '../core/haproxy-bundle.ts';
import { CONFIG_FILE } from '../core/fixed-sections.ts';
import { BRIDGES_FILE } from '../core/spare-backends.ts';

/**
 * The files Portolan owns in an HAProxy config directory: haproxy.cfg, maps/, crt-lists/, certs/ (PEMs are
 * written 0600 in a 0700 directory) and certs/index.json (fingerprints of the PEMs, no key material).
 * Writes are atomic (temp file + rename) so HAProxy never reads half a file.
 */

/** File holding the highest fencing epoch that wrote to this HAProxy. */
export const EPOCH_FILE = 'epoch';

const TEXT_DIRS = ['maps', 'crt-lists'] as const;
const CERT_DIR = 'certs';
const CERT_INDEX = 'certs/index.json';

/** A copy of every owned file (certificates included), taken before a reload so a failure can be undone. */
export type FilesSnapshot = ReadonlyMap<string, Buffer>;

/** Creates the config directory and its sub-directories. */
export async function ensureConfigDirs(configDir: string): Promise<void> {
  await fs.mkdir(configDir, { recursive: true });
  for (const dir of TEXT_DIRS) await fs.mkdir(path.join(configDir, dir), { recursive: true });
  await fs.mkdir(path.join(configDir, CERT_DIR), { recursive: true, mode: 0o700 });
}

/** Reads haproxy.cfg, map files and crt-lists as bundle files (sorted by path); missing ones are absent. */
export async function readBundleFiles(configDir: string): Promise<BundleFile[]> {
  const paths = [
    CONFIG_FILE,
    BRIDGES_FILE,
    ...(await listDir(configDir, 'maps', '.map')),
    ...(await listDir(configDir, 'crt-lists', '.crtlist')),
  ];
  const files: BundleFile[] = [];
  for (const rel of paths) {
    const content = await readIfExists(path.join(configDir, rel));
    if (content !== null) files.push({ path: rel, content: content.toString('utf8') });
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Writes bundle files and removes map / crt-list files the bundle no longer has. */
export async function writeBundleFiles(configDir: string, files: readonly BundleFile[]): Promise<void> {
  await ensureConfigDirs(configDir);
  for (const file of files) await writeFileAtomic(path.join(configDir, file.path), textOf(file.content));
  const keep = new Set(files.map((f) => f.path));
  for (const rel of [
    ...(await listDir(configDir, 'maps', '.map')),
    ...(await listDir(configDir, 'crt-lists', '.crtlist')),
  ]) {
    if (!keep.has(rel)) await fs.rm(path.join(configDir, rel), { force: true });
  }
}

/** Writes a file atomically (temp + rename) with the given mode. */
export async function writeFileAtomic(file: string, content: string | Buffer, mode = 0o644): Promise<void> {
  const temp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(temp, content, { mode });
  await fs.rename(temp, file);
}

/** Copies every owned file into memory. */
export async function snapshotFiles(configDir: string): Promise<FilesSnapshot> {
  const snapshot = new Map<string, Buffer>();
  for (const rel of await ownedFiles(configDir)) {
    const content = await readIfExists(path.join(configDir, rel));
    if (content !== null) snapshot.set(rel, content);
  }
  return snapshot;
}

/** Puts the owned files back exactly as a snapshot had them (files created since are removed). */
export async function restoreSnapshot(configDir: string, snapshot: FilesSnapshot): Promise<void> {
  for (const rel of await ownedFiles(configDir)) {
    if (!snapshot.has(rel)) await fs.rm(path.join(configDir, rel), { force: true });
  }
  for (const [rel, content] of snapshot) {
    await writeFileAtomic(path.join(configDir, rel), content, rel.startsWith(`${CERT_DIR}/`) ? 0o600 : 0o644);
  }
}

/** For `.catch`: a file that does not exist reads as null; any other failure is rethrown. */
export function nullIfMissing(error: unknown): null {
  if (isSystemError(error, 'ENOENT')) return null;
  throw error;
}

/** Certificate fingerprints by PEM path, as last written by the driver. */
export async function readCertificateIndex(configDir: string): Promise<Map<string, string>> {
  const raw = await readIfExists(path.join(configDir, CERT_INDEX));
  if (raw === null) return new Map();
  try {
    const parsed = JSON.parse(raw.toString('utf8')) as unknown;
    if (typeof parsed !== 'object' || parsed === null) return new Map();
    return new Map(Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch (error) {
    // A corrupt index only means the fingerprints are unknown: the next diff rewrites the certificates.
    if (error instanceof SyntaxError) return new Map();
    throw error;
  }
}

/** Writes a certificate PEM (0600) and records its fingerprint in the index. */
export async function writeCertificate(
  configDir: string,
  rel: string,
  pem: string,
  fingerprint: string,
): Promise<void> {
  await ensureConfigDirs(configDir);
  await writeFileAtomic(path.join(configDir, rel), pem, 0o600);
  const index = await readCertificateIndex(configDir);
  index.set(rel, fingerprint);
  await writeCertificateIndex(configDir, index);
}

/** Removes one certificate PEM and its index entry. */
export async function removeCertificate(configDir: string, rel: string): Promise<void> {
  await fs.rm(path.join(configDir, rel), { force: true });
  const index = await readCertificateIndex(configDir);
  if (index.delete(rel)) await writeCertificateIndex(configDir, index);
}

/** Removes certificate PEMs (and their index entries) not in `keep`. */
export async function pruneCertificates(configDir: string, keep: ReadonlySet<string>): Promise<void> {
  const index = await readCertificateIndex(configDir);
  for (const rel of await listDir(configDir, CERT_DIR, '.pem')) {
    if (!keep.has(rel)) await fs.rm(path.join(configDir, rel), { force: true });
  }
  for (const rel of index.keys()) if (!keep.has(rel)) index.delete(rel);
  await writeCertificateIndex(configDir, index);
}

async function writeCertificateIndex(configDir: string, index: ReadonlyMap<string, string>): Promise<void> {
  const sorted = Object.fromEntries([...index.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)));
  await writeFileAtomic(path.join(configDir, CERT_INDEX), `${JSON.stringify(sorted, null, 2)}\n`);
}

async function ownedFiles(configDir: string): Promise<string[]> {
  return [
    CONFIG_FILE,
    BRIDGES_FILE,
    ...(await listDir(configDir, 'maps', '.map')),
    ...(await listDir(configDir, 'crt-lists', '.crtlist')),
    ...(await listDir(configDir, CERT_DIR, '.pem')),
    CERT_INDEX,
  ];
}

async function listDir(configDir: string, dir: string, suffix: string): Promise<string[]> {
  try {
    const names = await fs.readdir(path.join(configDir, dir));
    return names
      .filter((n) => n.endsWith(suffix))
      .sort()
      .map((n) => `${dir}/${n}`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

async function readIfExists(file: string): Promise<Buffer | null> {
  try {
    return await fs.readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
