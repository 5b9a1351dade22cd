// Regenerates proto/src/gen from proto/**/*.proto with the buf binary and the local protoc-gen-es plugin.
// `--check` generates into a temporary directory and fails when the committed code differs.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const protoDir = path.join(root, 'proto');
const buf = path.join(root, 'node_modules', '.bin', 'buf');

function generate(outputBase: string): void {
  rmSync(path.join(outputBase, 'src', 'gen'), { recursive: true, force: true });
  execFileSync(buf, ['generate', '--output', outputBase], { cwd: protoDir, stdio: 'inherit' });
}

function listFiles(dir: string, base = dir): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    return statSync(p).isDirectory() ? listFiles(p, base) : [path.relative(base, p)];
  });
}

if (process.argv.includes('--check')) {
  const tmp = mkdtempSync(path.join(tmpdir(), 'portolan-proto-'));
  try {
    generate(tmp);
    const fresh = path.join(tmp, 'src', 'gen');
    const committed = path.join(protoDir, 'src', 'gen');
    const want = listFiles(fresh);
    const have = listFiles(committed);
    const differing = want.filter(
      (f) =>
        !have.includes(f) ||
        readFileSync(path.join(fresh, f), 'utf8') !== readFileSync(path.join(committed, f), 'utf8'),
    );
    const extra = have.filter((f) => !want.includes(f));
    if (differing.length + extra.length > 0) {
      console.error(`generated protobuf code is stale (${[...differing, ...extra].join(', ')}): run npm run generate`);
      process.exit(1);
    }
    console.log('generated protobuf code is current');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
} else {
  generate(protoDir);
}
