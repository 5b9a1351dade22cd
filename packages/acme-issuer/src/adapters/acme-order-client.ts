import { Agent } from 'node:https';
import { axios as acmeAxios, Client, crypto as acmeCrypto, type Authorization, type Order } from 'acme-client';
import type { PendingChallenge } from '../core/challenge-set.ts';
import type { IssuedCertificate } from '../core/managed-secret.ts';
import { readCertificate } from './read-certificate.ts';
import { PortolanError } from '@portolan/errors';

/** How to reach one ACME server (fleet config `vtm.acme`). */
export interface AcmeOrderClientOptions {
  readonly directoryUrl: string;
  /** Account contact; '' for none. */
  readonly email: string;
  /** PEM of the CA that signed the ACME server's own TLS certificate (a local Pebble); absent: system trust. */
  readonly caPem?: string;
  /** The ACME account key (PEM). Absent: a new P-256 key, so a new account, per client instance. */
  readonly accountKeyPem?: string;
  /** Polling of pending authorizations and orders: first delay, longest delay, attempts (acme-client backoff). */
  readonly poll?: { readonly minMs: number; readonly maxMs: number; readonly attempts: number };
}

/** Where an order puts its HTTP-01 answers while the ACME server validates them. */
export interface ChallengePresenter {
  /** Makes the traffic manager answer these challenges; resolves once it does. */
  present(challenges: readonly PendingChallenge[]): Promise<void>;
  /** Stops answering this order's challenges (called on success and on failure). */
  withdraw(): Promise<void>;
}

/** Obtaining a certificate failed: the ACME server refused, validation failed, or it could not be reached. */
export class AcmeOrderError extends PortolanError {
  readonly code = 'ACME_ORDER_FAILED';
}

/** The one certificate authority operation the issuer needs. */
export interface CertificateAuthority {
  obtain(hosts: readonly string[], presenter: ChallengePresenter): Promise<IssuedCertificate>;
}

/**
 * An ACME (RFC 8555) client over `acme-client`: one account, and per certificate an order whose authorizations
 * are all answered by HTTP-01 through the presenter at once, then finalized with a fresh P-256 key and CSR.
 */
export class AcmeOrderClient implements CertificateAuthority {
  readonly #options: AcmeOrderClientOptions;
  readonly #interceptor: number | null;
  #client: Promise<Client> | null = null;

  constructor(options: AcmeOrderClientOptions) {
    this.#options = options;
    // acme-client has one axios instance for the process: trust the extra CA only for this server's origin.
    const caPem = options.caPem;
    if (caPem === undefined) {
      this.#interceptor = null;
    } else {
      const origin = new URL(options.directoryUrl).origin;
      const agent = new Agent({ ca: caPem, keepAlive: false });
      this.#interceptor = acmeAxios.interceptors.request.use((config) => {
        if (typeof config.url === 'string' && new URL(config.url, origin).origin === origin) config.httpsAgent = agent;
        return config;
      });
    }
  }

  /** Obtains a certificate for `hosts` (every one validated by HTTP-01). */
  async obtain(hosts: readonly string[], presenter: ChallengePresenter): Promise<IssuedCertificate> {
    const client = await this.#account();
    const step = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
      try {
        return await fn();
      } catch (cause) {
        throw new AcmeOrderError(`ACME ${what} failed: ${cause instanceof Error ? cause.message : String(cause)}`, {
          cause,
        });
      }
    };
    const order = await step(`order for ${hosts.join(', ')}`, () =>
      client.createOrder({ identifiers: hosts.map((value) => ({ type: 'dns', value })) }),
    );
    const authorizations = await step('authorization lookup', () => client.getAuthorizations(order));
    const pending = await step('challenge selection', () => selectHttpChallenges(client, authorizations));
    if (pending.length > 0) {
      try {
        await presenter.present(pending.map((p) => p.answer));
        for (const p of pending)
          await step(`challenge for ${p.answer.host}`, () => client.completeChallenge(p.challenge));
        for (const p of pending)
          await step(`validation of ${p.answer.host}`, () => client.waitForValidStatus(p.authorization));
      } finally {
        await presenter.withdraw();
      }
    }
    return step(`finalization for ${hosts.join(', ')}`, () => this.#finalize(client, order, hosts));
  }

  /** Forgets the extra CA (the axios instance outlives this client). */
  close(): void {
    if (this.#interceptor !== null) acmeAxios.interceptors.request.eject(this.#interceptor);
  }

  async #finalize(client: Client, order: Order, hosts: readonly string[]): Promise<IssuedCertificate> {
    const key = await acmeCrypto.createPrivateEcdsaKey('P-256');
    const [, csr] = await acmeCrypto.createCsr({ commonName: hosts[0] as string, altNames: [...hosts] }, key);
    const finalized = await client.finalizeOrder(order, csr);
    const certificatePem = await client.getCertificate(finalized);
    const summary = readCertificate(certificatePem);
    if (summary === null) throw new AcmeOrderError('the ACME server returned something that is not a certificate');
    return { certificatePem, privateKeyPem: key.toString('utf8'), notAfterMs: summary.notAfterMs };
  }

  #account(): Promise<Client> {
    this.#client ??= (async () => {
      const accountKey = this.#options.accountKeyPem ?? (await acmeCrypto.createPrivateEcdsaKey('P-256'));
      const poll = this.#options.poll;
      const client = new Client({
        directoryUrl: this.#options.directoryUrl,
        accountKey,
        ...(poll === undefined
          ? {}
          : { backoffMin: poll.minMs, backoffMax: poll.maxMs, backoffAttempts: poll.attempts }),
      });
      try {
        await client.createAccount({
          termsOfServiceAgreed: true,
          ...(this.#options.email === '' ? {} : { contact: [`mailto:${this.#options.email}`] }),
        });
      } catch (cause) {
        this.#client = null; // the next pass tries again
        throw new AcmeOrderError(
          `ACME account registration at ${this.#options.directoryUrl} failed: ${cause instanceof Error ? cause.message : String(cause)}`,
          { cause },
        );
      }
      return client;
    })();
    return this.#client;
  }
}

interface SelectedChallenge {
  readonly authorization: Authorization;
  readonly challenge: Authorization['challenges'][number];
  readonly answer: PendingChallenge;
}

/** The HTTP-01 challenge of every authorization still pending (valid ones, reused by the server, need none). */
async function selectHttpChallenges(
  client: Client,
  authorizations: readonly Authorization[],
): Promise<SelectedChallenge[]> {
  const selected: SelectedChallenge[] = [];
  for (const authorization of authorizations) {
    if (authorization.status === 'valid') continue;
    const challenge = authorization.challenges.find((c) => c.type === 'http-01');
    if (challenge === undefined)
      throw new AcmeOrderError(`the ACME server offers no http-01 challenge for ${authorization.identifier.value}`);
    const keyAuthorization = await client.getChallengeKeyAuthorization(challenge);
    selected.push({
      authorization,
      challenge,
      answer: { token: challenge.token, keyAuthorization, host: authorization.identifier.value },
    });
  }
  return selected;
}
