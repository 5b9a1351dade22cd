import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ESLint } from 'eslint';

const root = path.resolve(import.meta.dirname, '..');
const eslint = new ESLint({ cwd: root });

async function problems(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return (result?.messages ?? []).map((m) => `${m.ruleId}: ${m.message}`);
}

test('a core/ module importing pg fails lint', async () => {
  const found = await problems('services/planner/src/core/probe.ts', "import pg from 'pg';\nexport const p = pg;\n");
  assert.ok(
    found.some((p) => p.startsWith('no-restricted-imports') && p.includes('database')),
    found.join('\n'),
  );
});

test('core/ may not read the clock, randomness, env, or Node built-ins', async () => {
  const code =
    "import { readFileSync } from 'node:fs';\nexport const a = Date.now() + Math.random();\nexport const b = process.env.X;\nexport const c = readFileSync;\n";
  const found = await problems('packages/x/src/core/probe.ts', code);
  for (const rule of ['no-restricted-imports', 'no-restricted-properties', 'no-restricted-globals']) {
    assert.ok(
      found.some((p) => p.startsWith(rule)),
      `${rule} missing in:\n${found.join('\n')}`,
    );
  }
});

test('the same imports are allowed in an adapter', async () => {
  const found = await problems(
    'services/planner/src/adapters/probe.ts',
    "import pg from 'pg';\nexport const p = pg;\n",
  );
  assert.deepEqual(found, []);
});

test('services never import each other, and packages import no service; the CLI composes them', async () => {
  const code = (spec: string) => `import { x } from '${spec}';\nexport const y = x;\n`;
  const banned = (found: string[]) =>
    found.some((p) => p.startsWith('no-restricted-imports') && p.includes('Services never'));
  assert.ok(banned(await problems('services/applier/src/probe.ts', code('@portolan/planner'))), 'applier → planner');
  assert.ok(
    banned(await problems('services/planner/src/core/probe.ts', code('@portolan/leader'))),
    'planner core → leader',
  );
  assert.ok(banned(await problems('packages/audit/src/probe.ts', code('@portolan/applier'))), 'audit → applier');
  assert.ok(
    banned(await problems('packages/snapshot/src/probe.ts', code('@portolan/planner/testing/x'))),
    'subpaths too',
  );
  const coreStillPure = await problems(
    'services/planner/src/core/probe.ts',
    "import pg from 'pg';\nexport const p = pg;\n",
  );
  assert.ok(
    coreStillPure.some((p) => p.includes('database')),
    'the core purity bans still apply beside the boundary',
  );
  assert.equal(
    banned(await problems('services/applier/src/probe.ts', code('@portolan/applier'))),
    false,
    'own package',
  );
  assert.equal(
    banned(await problems('packages/cli/src/probe.ts', code('@portolan/planner'))),
    false,
    'the CLI composes',
  );
});
