// A checkout under a 0700 home directory, run as root: Postgres (which runs as the postgres user) must still start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../process-control.ts';
import { stackConfig } from '../stack-config.ts';
import { ensureBinaries, stackBinaries } from '../system-packages.ts';
import { postgresService, postgresUser } from './postgres.ts';
import { existsSync } from 'node:fs';
import { postgresHome, RELOCATED_ROOT } from './postgres-home.ts';

test(
  'as root, a state folder under a 0700 home still gets a running Postgres, its data kept where postgres reaches',
  { skip: process.getuid?.() !== 0 ? 'only root hands Postgres to the postgres user' : false },
  async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'portolan-home-')); // mode 0700, owned by root
    const stateDir = path.join(home, 'checkout', '.portolan', 'stack');
    mkdirSync(stateDir, { recursive: true });
    const config = stackConfig({ stateDir, postgresPort: await freePort(), install: true }, {});
    const binary = ensureBinaries([stackBinaries.postgres], true).get('postgres')!;
    const pg = postgresService(config, binary);
    let dataHome: string | null = null;
    try {
      await pg.start();
      const status = await pg.status();
      assert.equal(status.healthy, true, `postgres is healthy: ${status.detail}`);
      dataHome = postgresHome(stateDir, postgresUser());
      assert.ok(dataHome.startsWith(`${RELOCATED_ROOT}/`), 'the data left the unreachable home');
      assert.ok(existsSync(path.join(dataHome, 'data', 'PG_VERSION')), 'initdb wrote the relocated data folder');
    } finally {
      await pg.stop();
      if (dataHome !== null) rmSync(dataHome, { recursive: true, force: true });
      rmSync(home, { recursive: true, force: true });
    }
  },
);
