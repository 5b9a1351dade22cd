import type { CommandContext } from '../command-context.ts';
import type { LmParams } from '../lm-params.ts';
import { parseLmBool } from '../lm-params.ts';
import type { LmOutObject, LmResult } from '../lm-result.ts';
import { fail, missing, okData, okDone } from '../lm-result.ts';

/** Certificate commands: addcert (PEM with cert and key), listcert, readcert, delcert (refused while in use). */

const CERT_NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]*$/;

/** `addcert`: installs the uploaded PEM (certificate and private key) under `cert`; `replace=1` rotates in place. */
export function addCert(ctx: CommandContext, params: LmParams): LmResult {
  const name = params.get('cert');
  if (name === undefined || name === '') return missing('cert');
  if (!CERT_NAME.test(name)) return fail(422, 'Invalid certificate name');
  if (ctx.data === null || ctx.data.length === 0) return missing('data');
  const replace = parseLmBool(params.get('replace') ?? '0') ?? false;
  const existing = ctx.store.certificate(name);
  if (existing !== undefined && !replace) return fail(422, 'Certificate already exists');
  const pem = new TextDecoder('latin1').decode(ctx.data);
  const inspected = ctx.inspectCertificate(pem);
  if (!inspected.ok) return fail(422, 'Invalid certificate');
  const record = { name, pem, type: inspected.type, publicValue: inspected.publicValue };
  if (existing !== undefined) Object.assign(existing, record);
  else ctx.store.state.certificates.push(record);
  return okDone();
}

/** `listcert`: names, key type and modulus (RSA) or public key (ECC) of every certificate. */
export function listCert(ctx: CommandContext): LmResult {
  return okData({
    cert: ctx.store.state.certificates.map((c): LmOutObject =>
      c.type === 'RSA'
        ? { name: c.name, type: c.type, modulus: c.publicValue }
        : { name: c.name, type: c.type, publickey: c.publicValue },
    ),
  });
}

/** `readcert`: the certificate (never the private key) as PEM. */
export function readCert(ctx: CommandContext, params: LmParams): LmResult {
  const name = params.get('cert');
  if (name === undefined || name === '') return missing('cert');
  const cert = ctx.store.certificate(name);
  if (cert === undefined) return fail(422, 'Certificate not found');
  const inspected = ctx.inspectCertificate(cert.pem);
  return okData({ certificate: inspected.ok ? inspected.certificatePem : '' });
}

/** `delcert`: deletes a certificate unless a VS serves it. */
export function delCert(ctx: CommandContext, params: LmParams): LmResult {
  const name = params.get('cert');
  if (name === undefined || name === '') return missing('cert');
  if (ctx.store.certificate(name) === undefined) return fail(422, 'Certificate not found');
  if (ctx.store.isCertificateInUse(name)) return fail(422, `Certificate ${name} is in use by a Virtual Service`);
  ctx.store.state.certificates = ctx.store.state.certificates.filter((c) => c.name !== name);
  return okDone();
}
