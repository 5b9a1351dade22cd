import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PortolanError } from '@portolan/errors';

const run = promisify(execFile);

/** Raised when openssl cannot produce the emulator's self-signed certificate. */
export class SelfSignedCertificateError extends PortolanError {
  readonly code = 'LM_EMULATOR_SELF_SIGNED_CERT';
}

/** Generates a fresh self-signed certificate for 127.0.0.1/localhost (like the appliance's own) by shelling out to openssl. */
export async function generateSelfSignedCertificate(): Promise<{ cert: string; key: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'lm-emulator-'));
  try {
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
      '-days',
      '365',
      '-subj',
      '/CN=loadmaster-emulator',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ]);
    return { cert: await readFile(join(dir, 'cert.pem'), 'utf8'), key: await readFile(join(dir, 'key.pem'), 'utf8') };
  } catch (error) {
    throw new SelfSignedCertificateError('openssl could not generate the self-signed certificate', { cause: error });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
