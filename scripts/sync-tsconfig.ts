// Writes the root tsconfig.json so that `tsc -b` builds every workspace (and tests/). Run after adding a workspace;
// tests/workspaces.test.ts fails when the file is out of date.
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

/** Every folder with a tsconfig.json that `tsc -b` must build, sorted. */
export function projectDirs(): string[] {
  const dirs = ['proto', 'infra', 'tests'];
  for (const parent of ['packages', 'services']) {
    const base = path.join(root, parent);
    if (existsSync(base)) for (const d of readdirSync(base)) dirs.push(`${parent}/${d}`);
  }
  return dirs.filter((d) => existsSync(path.join(root, d, 'tsconfig.json'))).sort();
}

/** The root tsconfig.json text for the current projects. */
export function rootTsconfig(): string {
  return `${JSON.stringify({ files: [], references: projectDirs().map((d) => ({ path: `./${d}` })) }, null, 2)}\n`;
}

if (import.meta.main) writeFileSync(path.join(root, 'tsconfig.json'), rootTsconfig());
