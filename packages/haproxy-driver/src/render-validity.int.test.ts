import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { renderHaproxyBundle } from './core/render-haproxy-bundle.ts';
import { validateHaproxyConfig } from './adapters/validate-haproxy-config.ts';
import { writeBundleFiles } from './adapters/haproxy-config-files.ts';
import { representativeStates } from './testing/representative-states.ts';
import { selfSignedCertificate } from './testing/haproxy-harness.ts';

for (const [name, state] of Object.entries(representativeStates)) {
  test(`the ${name} render is a configuration HAProxy 2.6 accepts (haproxy -c)`, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'portolan-render-'));
    try {
      const bundle = renderHaproxyBundle(state, {
        configDir: dir,
        defaultAddress: '127.0.0.1',
        sizing: { minFreeSlots: 1, slotIncrement: 2 },
        serverHeader: 'portolan',
        hardStopAfter: '5m',
      });
      await writeBundleFiles(dir, bundle.files);
      for (const cert of bundle.certificates) {
        const material = selfSignedCertificate([cert.secret.name], dir);
        fs.writeFileSync(path.join(dir, cert.path), material.certificatePem + material.privateKeyPem);
      }
      assert.deepEqual(await validateHaproxyConfig('haproxy', path.join(dir, 'haproxy.cfg')), { ok: true });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}
