import assert from 'node:assert/strict';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { CoreV1Api, KubeConfig, type V1Secret } from '@kubernetes/client-node';
import type { SecretResolver, TlsMaterial } from '@portolan/appliance-driver';
import type { CertificateRequest, DesiredState, ObjectRef, VirtualService } from '@portolan/desired-state';
import { startKubeSim, type KubeSim } from '@portolan/kube-sim';
import { VtmDriver, vtmName } from '@portolan/vtm-driver';
import { startVtmEmulator, type DataPlane, type VtmEmulator } from '@portolan/vtm-emulator';
import {
  AcmeIssuer,
  AcmeOrderClient,
  AcmeScheduler,
  ChallengeStore,
  HOSTS_ANNOTATION,
  KubeTlsSecretStore,
  MANAGED_BY_LABEL,
  splitPemChain,
  VtmChallengePublisher,
  type ReconcileReport,
} from './index.ts';
import { freeTcpPort } from './testing/free-port.ts';
import { selfSignedCertificate } from './testing/openssl.ts';
import { startPebble, type Pebble } from './testing/pebble.ts';

const DAY = 86_400_000;
const ACME_RULE = vtmName('acme', 'http-01');
const secretRef = (name: string): ObjectRef => ({ cluster: 'c1', kind: 'Secret', namespace: 'shop', name });
const ingressRef = (name: string): ObjectRef => ({ cluster: 'c1', kind: 'Ingress', namespace: 'shop', name });

function vs(over: Partial<VirtualService>): VirtualService {
  return {
    name: 'shop.web',
    address: { kind: 'default' },
    port: 80,
    protocol: 'http',
    owners: [ingressRef('web')],
    certificates: [],
    routes: [],
    defaultPool: null,
    redirectToHttpsPort: null,
    requestScript: null,
    responseScript: null,
    customization: null,
    ...over,
  };
}
function desired(virtualServices: VirtualService[], certificates: DesiredState['certificates'] = []): DesiredState {
  return { appliance: 'vtm', driver: 'vtm', virtualServices, pools: [], certificates, bindings: [], conditions: [] };
}
function decode(secret: V1Secret, key: 'tls.crt' | 'tls.key'): string {
  return Buffer.from(secret.data?.[key] ?? '', 'base64').toString('utf8');
}

/** The applier's SecretResolver, reading the simulator's Secrets in clear (no envelope in this test). */
class KubeSecretResolver implements SecretResolver {
  readonly #api: CoreV1Api;
  constructor(api: CoreV1Api) {
    this.#api = api;
  }
  async resolve(secret: ObjectRef): Promise<TlsMaterial> {
    const s = await this.#api.readNamespacedSecret({ name: secret.name, namespace: secret.namespace });
    return { certificatePem: decode(s, 'tls.crt'), privateKeyPem: decode(s, 'tls.key') };
  }
}

describe(
  'AcmeIssuer against Pebble, with HTTP-01 answered by the vTM emulator data plane',
  { timeout: 120_000 },
  () => {
    let sim: KubeSim;
    let emu: VtmEmulator;
    let plane: DataPlane;
    let pebble: Pebble;
    let api: CoreV1Api;
    let acme: AcmeOrderClient;
    let issuer: AcmeIssuer;
    let current: DesiredState = desired([]);
    let publisher: VtmChallengePublisher;
    let driver: VtmDriver;
    let resolver: KubeSecretResolver;
    /** What the applier does with a new snapshot: the whole desired state onto the appliance. */
    const applyAll = async (state: DesiredState): Promise<void> => {
      current = state;
      const context = { epoch: 1, secrets: resolver, signal: AbortSignal.timeout(30_000) };
      for (const op of driver.diff(driver.render(current), await driver.readBack(context.signal))) {
        const result = await driver.execute(op, context);
        assert.ok(result.ok, `${op.summary}: ${JSON.stringify(result)}`);
      }
    };

    before(async () => {
      sim = await startKubeSim();
      sim.objects.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
      const kc = new KubeConfig();
      kc.loadFromString(sim.kubeconfigYaml());
      api = kc.makeApiClient(CoreV1Api);
      // Pebble must know the data plane's port-80 listener before any virtual server exists: fix the mapping.
      const httpPort = await freeTcpPort();
      emu = await startVtmEmulator({
        users: { admin: 'pw' },
        strict: true,
        dataPlane: { address: '127.0.0.1', ports: { 80: httpPort } },
      });
      assert.ok(emu.dataPlane !== null);
      plane = emu.dataPlane;
      emu.state.put('traffic_ip_groups', 'Web-TIG', { properties: { basic: { ipaddresses: ['192.0.2.99'] } } });
      pebble = await startPebble({ httpPort });
      const challenges = new ChallengeStore();
      driver = new VtmDriver({
        appliance: 'vtm',
        url: emu.url,
        username: 'admin',
        password: 'pw',
        defaultTrafficIpGroup: 'Web-TIG',
        acmeChallenges: () => challenges.list(),
      });
      resolver = new KubeSecretResolver(api);
      publisher = new VtmChallengePublisher({ driver, desired: () => current, secrets: resolver });
      acme = new AcmeOrderClient({
        directoryUrl: pebble.directoryUrl,
        email: 'ops@example.test',
        caPem: pebble.caPem,
        poll: { minMs: 100, maxMs: 1_000, attempts: 20 },
      });
      issuer = new AcmeIssuer({
        authority: acme,
        secretStores: { c1: new KubeTlsSecretStore('c1', kc) },
        challenges,
        publisher,
        renewBeforeDays: 8,
      });
    });
    after(async () => {
      acme?.close();
      await pebble?.close();
      await emu?.close();
      await sim?.close();
    });

    test('issuance: an Ingress request → HTTP-01 through the data plane → a kubernetes.io/tls Secret signed by Pebble', async () => {
      // A use-lets-encrypt Ingress with ssl-redirect: port 80 redirects everything to https.
      await applyAll(
        desired([vs({ name: 'shop.web-redirect', redirectToHttpsPort: 443 }), vs({ port: 443, protocol: 'https' })]),
      );
      const before80 = await fetch(`${await plane.urlFor(80)}/anything`, { redirect: 'manual' });
      assert.equal(before80.status, 308, 'port 80 redirects before any challenge is pending');
      await before80.text();

      const hosts = ['shop.example.test', 'www.shop.example.test'];
      const request: CertificateRequest = { secret: secretRef('shop-tls'), hosts, ingress: ingressRef('web') };
      const report = await issuer.reconcile([request], new Date());
      assert.deepEqual(
        report.outcomes.map((o) => [o.kind, o.secret.name, o.kind === 'issued' ? o.reason : o.message]),
        [['issued', 'shop-tls', 'SecretMissing']],
      );

      // Pebble fetched one challenge per host from the data plane and got the key authorization (not the redirect).
      const validations = plane.requestLog.filter((e) => e.url.startsWith('/.well-known/acme-challenge/'));
      assert.deepEqual([...new Set(validations.map((e) => e.host.replace(/:\d+$/, '')))].sort(), hosts);
      assert.ok(
        validations.every((e) => e.status === 200 && e.virtualServerPort === 80),
        JSON.stringify(validations),
      );
      // While pending, the challenge rule came first on the redirect service; afterwards it is gone again.
      const redirectWrites = emu.writeLog.filter(
        (w) => w.type === 'virtual_servers' && w.name === vtmName('vs', 'shop.web-redirect'),
      );
      const rulesWritten = redirectWrites.map(
        (w) => (w.body as { properties: { basic: { request_rules: string[] } } }).properties.basic.request_rules,
      );
      assert.deepEqual(rulesWritten.at(-2), [ACME_RULE, vtmName('route', 'shop.web-redirect')]);
      assert.deepEqual(rulesWritten.at(-1), [vtmName('route', 'shop.web-redirect')]);
      assert.equal(emu.state.get('rules', ACME_RULE), undefined);

      // The Secret, read back through the Kubernetes API.
      const secret = await api.readNamespacedSecret({ name: 'shop-tls', namespace: 'shop' });
      assert.equal(secret.type, 'kubernetes.io/tls');
      assert.equal(secret.metadata?.labels?.[MANAGED_BY_LABEL], 'acme');
      assert.equal(secret.metadata?.annotations?.[HOSTS_ANNOTATION], hosts.join(','));
      const chain = splitPemChain(decode(secret, 'tls.crt')).map((pem) => new X509Certificate(pem));
      const [leaf, intermediate] = chain;
      assert.ok(leaf !== undefined && intermediate !== undefined, 'leaf and intermediate are stored');
      assert.deepEqual(
        leaf.subjectAltName?.split(', ').sort(),
        hosts.map((h) => `DNS:${h}`),
      );
      assert.match(leaf.issuer, /Pebble Intermediate CA/);
      assert.ok(leaf.verify(intermediate.publicKey), 'leaf signed by the intermediate');
      const root = new X509Certificate(await pebble.rootCertificatePem());
      assert.ok(intermediate.verify(root.publicKey), "intermediate signed by this Pebble's root");
      assert.ok(
        leaf.checkPrivateKey(createPrivateKey(decode(secret, 'tls.key'))),
        'tls.key belongs to the certificate',
      );

      // Nothing is due any more: a second pass orders nothing and touches nothing.
      const rv = secret.metadata?.resourceVersion;
      const again = await issuer.reconcile([request], new Date());
      assert.deepEqual(again.outcomes, []);
      assert.deepEqual(
        again.plan.actions.map((a) => a.kind),
        ['keep'],
      );
      assert.equal(
        (await api.readNamespacedSecret({ name: 'shop-tls', namespace: 'shop' })).metadata?.resourceVersion,
        rv,
      );

      // The issued Secret is usable by the driver: the https service now gets it as its SSL server key.
      await applyAll(
        desired(
          [
            vs({ name: 'shop.web-redirect', redirectToHttpsPort: 443 }),
            vs({ port: 443, protocol: 'https', certificates: ['shop.shop-tls'] }),
          ],
          [{ name: 'shop.shop-tls', secret: secretRef('shop-tls'), fingerprint: 'f'.repeat(64), hosts, acme: true }],
        ),
      );
      const key = emu.state.get('ssl/server_keys', vtmName('key', 'shop.shop-tls'));
      assert.ok(key?.kind === 'json');
      assert.equal((key.properties['basic'] as { public: string }).public, decode(secret, 'tls.crt'));
    });

    test('renewal (scheduler pass): a Secret expiring in 5 days is renewed, one expiring in 30 days is left alone', async () => {
      for (const [name, host, days] of [
        ['old-tls', 'old.example.test', 5],
        ['fresh-tls', 'fresh.example.test', 30],
      ] as const) {
        const pair = await selfSignedCertificate([host], days);
        await api.createNamespacedSecret({
          namespace: 'shop',
          body: {
            metadata: { name, labels: { [MANAGED_BY_LABEL]: 'acme' }, annotations: { [HOSTS_ANNOTATION]: host } },
            type: 'kubernetes.io/tls',
            data: {
              'tls.crt': Buffer.from(pair.certificatePem).toString('base64'),
              'tls.key': Buffer.from(pair.privateKeyPem).toString('base64'),
            },
          },
        });
      }
      const freshBefore = await api.readNamespacedSecret({ name: 'fresh-tls', namespace: 'shop' });
      // Only an https service on the address: port 80 exists just while the challenge is pending (the vTM integration reserves it).
      await applyAll(
        desired(
          [vs({ port: 443, protocol: 'https', certificates: ['shop.old-tls'] })],
          [
            {
              name: 'shop.old-tls',
              secret: secretRef('old-tls'),
              fingerprint: 'e'.repeat(64),
              hosts: ['old.example.test'],
              acme: true,
            },
          ],
        ),
      );
      const writesBefore = emu.writeLog.length;
      assert.deepEqual(await plane.listeners(), [], 'no port-80 listener while nothing is pending');
      const seen = plane.requestLog.length;

      const passes: ReconcileReport[] = [];
      let firstPass: () => void = () => undefined;
      const passed = new Promise<void>((resolve) => (firstPass = resolve));
      const scheduler = new AcmeScheduler({
        issuer,
        requests: () => [],
        bounds: { minMs: 60_000, maxMs: 60_000 },
        onPass: (report) => {
          passes.push(report);
          firstPass();
        },
        onError: (error) => assert.fail(String(error)),
      });
      scheduler.start();
      await passed;
      await scheduler.stop();

      const [report] = passes;
      assert.ok(report !== undefined);
      assert.deepEqual(
        report.outcomes.map((o) => [o.kind, o.secret.name, o.kind === 'issued' ? o.reason : o.message]),
        [['issued', 'old-tls', 'Expiring']],
      );
      assert.equal(report.plan.actions.find((a) => a.kind === 'keep' && a.secret.name === 'fresh-tls')?.kind, 'keep');
      const validations = plane.requestLog.slice(seen).filter((e) => e.url.startsWith('/.well-known/acme-challenge/'));
      // Pebble may validate from several perspectives: every fetch was for this host and answered.
      assert.ok(validations.length >= 1);
      assert.deepEqual(
        [...new Set(validations.map((e) => `${e.host.replace(/:\d+$/, '')} ${e.status}`))],
        ['old.example.test 200'],
      );
      assert.deepEqual(await plane.listeners(), [], 'the challenge-only listener is gone after the order');
      // The issuer pushed only what answering the challenge needed, and took it all away again.
      const listener = 'acme-challenges.Web-TIG';
      const written = [
        ...new Set(emu.writeLog.slice(writesBefore).map((w) => `${w.method} ${w.type}/${w.name}`)),
      ].sort();
      assert.deepEqual(written, [
        `DELETE rules/${ACME_RULE}`,
        `DELETE rules/${vtmName('route', listener)}`,
        `DELETE virtual_servers/${vtmName('vs', listener)}`,
        `PUT rules/${ACME_RULE}`,
        `PUT rules/${vtmName('route', listener)}`,
        `PUT virtual_servers/${vtmName('vs', listener)}`,
      ]);

      const renewed = await api.readNamespacedSecret({ name: 'old-tls', namespace: 'shop' });
      const leaf = new X509Certificate(decode(renewed, 'tls.crt'));
      assert.match(leaf.issuer, /Pebble Intermediate CA/);
      assert.equal(leaf.subjectAltName, 'DNS:old.example.test');
      assert.ok(leaf.validToDate.getTime() > Date.now() + 8 * DAY, 'the renewed certificate is not due again');
      const freshAfter = await api.readNamespacedSecret({ name: 'fresh-tls', namespace: 'shop' });
      assert.equal(freshAfter.metadata?.resourceVersion, freshBefore.metadata?.resourceVersion);
      assert.equal(decode(freshAfter, 'tls.crt'), decode(freshBefore, 'tls.crt'));
    });

    test('a challenge nobody can reach fails as data, and the next pass backs off instead of ordering again', async () => {
      await applyAll(desired([]));
      const request: CertificateRequest = {
        secret: secretRef('lost-tls'),
        hosts: ['lost.example.test'],
        ingress: ingressRef('lost'),
      };
      const now = new Date();
      const first = await issuer.reconcile([request], now);
      assert.deepEqual(
        first.outcomes.map((o) => [o.kind, o.kind === 'failed' ? o.code : '', o.kind === 'failed' ? o.attempts : 0]),
        [['failed', 'ACME_ORDER_FAILED', 1]],
      );
      const [failed] = first.outcomes;
      assert.ok(failed?.kind === 'failed');
      assert.match(
        failed.message,
        /validation of lost\.example\.test failed: .*connection refused/,
        'the reason names the host and what went wrong',
      );
      const second = await issuer.reconcile([request], new Date(now.getTime() + 1_000));
      assert.deepEqual(second.outcomes, []);
      assert.deepEqual(
        second.plan.actions.filter((a) => a.kind !== 'issue' && a.secret.name === 'lost-tls').map((a) => a.kind),
        ['wait'],
      );
      await assert.rejects(api.readNamespacedSecret({ name: 'lost-tls', namespace: 'shop' }), 'no Secret was written');
    });
  },
);
