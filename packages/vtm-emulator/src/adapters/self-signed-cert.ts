import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PortolanError } from '@portolan/errors';

const run = promisify(execFile);

/** Raised when the self-signed admin certificate cannot be made (openssl missing or failing). */
export class SelfSignedCertError extends PortolanError {
  readonly code = 'VTM_EMULATOR_CERT';
}

/** Makes a throw-away self-signed certificate for localhost, like a Traffic Manager's default admin certificate. */
export async function makeSelfSignedCert(): Promise<{ key: string; cert: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'vtm-emulator-cert-'));
  try {
    const keyPath = join(dir, 'key.pem');
    const certPath = join(dir, 'cert.pem');
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyPath,
      '-out',
      certPath,
      '-days',
      '3650',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ]);
    return { key: await readFile(keyPath, 'utf8'), cert: await readFile(certPath, 'utf8') };
  } catch (cause) {
    throw new SelfSignedCertError('could not create the self-signed certificate with openssl', { cause });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
