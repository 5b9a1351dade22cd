import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A key pair in PEM. */
export interface PemPair {
  readonly certificatePem: string;
  readonly privateKeyPem: string;
}

/** Runs openssl in `cwd`; its output is dropped (it can contain nothing secret, but it is noise). */
export async function openssl(args: readonly string[], cwd: string): Promise<void> {
  await run('openssl', [...args], { cwd });
}

/** A CA (P-256, `days` valid) written as ca.key / ca.pem in `dir`. */
export async function makeCertificateAuthority(dir: string, commonName: string, days = 2): Promise<PemPair> {
  await openssl(
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      String(days),
      '-subj',
      `/CN=${commonName}`,
    ],
    dir,
  );
  return {
    certificatePem: await readFile(join(dir, 'ca.pem'), 'utf8'),
    privateKeyPem: await readFile(join(dir, 'ca.key'), 'utf8'),
  };
}

/** A server certificate signed by the CA in `dir` for DNS names and IPs, written as `<name>.pem` / `<name>.key`. */
export async function issueFromAuthority(
  dir: string,
  name: string,
  sans: { dns?: readonly string[]; ips?: readonly string[] },
  days = 2,
): Promise<PemPair> {
  const alt = [...(sans.dns ?? []).map((d) => `DNS:${d}`), ...(sans.ips ?? []).map((i) => `IP:${i}`)].join(',');
  await writeFile(
    join(dir, `${name}.ext`),
    `subjectAltName=${alt}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`,
  );
  await openssl(
    [
      'req',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.csr`,
      '-subj',
      `/CN=${name}`,
    ],
    dir,
  );
  await openssl(
    [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      `${name}.pem`,
      '-days',
      String(days),
      '-extfile',
      `${name}.ext`,
    ],
    dir,
  );
  return {
    certificatePem: await readFile(join(dir, `${name}.pem`), 'utf8'),
    privateKeyPem: await readFile(join(dir, `${name}.key`), 'utf8'),
  };
}

/** A self-signed certificate for `hosts` valid for `days` (e.g. 5, to be renewed; 30, to be left alone). */
export async function selfSignedCertificate(hosts: readonly string[], days: number): Promise<PemPair> {
  const dir = await mkdtemp(join(tmpdir(), 'portolan-acme-cert-'));
  try {
    await openssl(
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        'tls.key',
        '-out',
        'tls.crt',
        '-days',
        String(days),
        '-subj',
        `/CN=${hosts[0] ?? 'localhost'}`,
        '-addext',
        `subjectAltName=${hosts.map((h) => `DNS:${h}`).join(',')}`,
      ],
      dir,
    );
    return {
      certificatePem: await readFile(join(dir, 'tls.crt'), 'utf8'),
      privateKeyPem: await readFile(join(dir, 'tls.key'), 'utf8'),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
