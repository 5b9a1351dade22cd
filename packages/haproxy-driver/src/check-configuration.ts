import fs from 'node:fs/promises';
import path from 'node:path';
import type { ConfigCheck, SecretResolver } from '@portolan/appliance-driver';
import type { DesiredState } from '@portolan/desired-state';
import { renderHaproxyBundle, CONFIG_FILE, type HaproxyRenderOptions } from './core/render-haproxy-bundle.ts';
import { writeBundleFiles, writeCertificate } from './adapters/haproxy-config-files.ts';
import { validateHaproxyConfig } from './adapters/validate-haproxy-config.ts';
import { resolvePem } from './runtime-batch.ts';
import { HaproxyRouteRefusedError } from './errors.ts';
import type { HaproxyBundle } from './core/haproxy-bundle.ts';

/**
 * `haproxy -c` on what `desired` renders to, in a scratch folder inside the configuration folder (certificates are
 * key material: they stay where the live ones are, owner-only, and the folder is removed after). Nothing running
 * is touched. A certificate whose Secret cannot be opened is left out, so HAProxy refuses its crt-list line and
 * the search that asks finds that Secret; a route the render refuses (`HaproxyRouteRefusedError`) is a refusal too.
 */
export async function checkHaproxyConfiguration(
  desired: DesiredState,
  options: HaproxyRenderOptions,
  binary: string,
  secrets: SecretResolver,
): Promise<ConfigCheck> {
  let bundle: HaproxyBundle;
  const dir = await fs.mkdtemp(path.join(options.configDir, '.check-'));
  try {
    try {
      bundle = renderHaproxyBundle(desired, { ...options, configDir: dir });
    } catch (error) {
      // A route the render refuses is refused as HAProxy would refuse it: the search that asks finds its source.
      if (error instanceof HaproxyRouteRefusedError) return { ok: false, message: error.message };
      throw error;
    }
    await writeBundleFiles(dir, bundle.files);
    for (const cert of bundle.certificates) {
      const pem = await resolvePem(secrets, cert.secret);
      if (pem !== null) await writeCertificate(dir, cert.path, pem, cert.fingerprint);
    }
    const verdict = await validateHaproxyConfig(binary, path.join(dir, CONFIG_FILE));
    // The scratch folder's name is noise in HAProxy's words: report paths relative to it.
    return verdict.ok ? verdict : { ok: false, message: verdict.message.replaceAll(`${dir}/`, '') };
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
