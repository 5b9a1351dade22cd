// Static token authentication and TokenReview, as an external service meets them: over HTTP, with the real kubectl
// (`create -f - -o json`) and with client-node's AuthenticationV1Api.createTokenReview.
import * as k8s from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startKubeSim, TokenFileError, type KubeSim } from './index.ts';
import { call } from './testing/index.ts';
import { runKubectl, skipWithoutKubectl } from './testing/kubectl-runner.ts';

const tokenFile = `alice-token,alice,1001,"portolan:viewers,portolan:auditors"
root-token,root,0,system:masters
bob-token,bob,1002
`;
const reviews = '/apis/authentication.k8s.io/v1/tokenreviews';
const review = (spec: Record<string, unknown>) => ({
  apiVersion: 'authentication.k8s.io/v1',
  kind: 'TokenReview',
  spec,
});

let sim: KubeSim;
let dir: string;

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'kube-sim-tokenreview-'));
  await writeFile(path.join(dir, 'tokens.csv'), tokenFile);
  sim = await startKubeSim({ tokenAuthFile: path.join(dir, 'tokens.csv') });
  await sim.writeKubeconfig(path.join(dir, 'kubeconfig'));
});
after(async () => {
  await sim?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('TokenReview over HTTP', () => {
  it('reviews a token of the file as its user, uid and groups plus system:authenticated', async () => {
    const res = await call(sim, 'POST', reviews, { body: review({ token: 'alice-token' }) });
    assert.equal(res.status, 201);
    assert.deepEqual(res.body, {
      kind: 'TokenReview',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { creationTimestamp: null },
      spec: { token: 'alice-token' },
      status: {
        authenticated: true,
        user: {
          username: 'alice',
          uid: '1001',
          groups: ['portolan:viewers', 'portolan:auditors', 'system:authenticated'],
        },
        audiences: ['https://kubernetes.default.svc'],
      },
    });
  });

  it('accepts requested audiences that include the API server, and answers the ones it accepted', async () => {
    const spec = { token: 'bob-token', audiences: ['https://kubernetes.default.svc', 'console'] };
    const res = await call(sim, 'POST', reviews, { body: review(spec) });
    assert.equal(res.status, 201);
    assert.equal(res.body.status.authenticated, true);
    assert.deepEqual(res.body.status.user, { username: 'bob', uid: '1002', groups: ['system:authenticated'] });
    assert.deepEqual(res.body.status.audiences, ['https://kubernetes.default.svc']);
  });

  it('refuses a token for an audience the API server is not, like an unknown token', async () => {
    for (const spec of [{ token: 'alice-token', audiences: ['console'] }, { token: 'nobody-knows-this' }]) {
      const res = await call(sim, 'POST', reviews, { body: review(spec) });
      assert.equal(res.status, 201, JSON.stringify(spec));
      // The API server leaves the false `authenticated` out (omitempty); clients read it as false.
      assert.deepEqual(res.body.status, { user: {}, error: 'invalid bearer token' }, JSON.stringify(spec));
    }
  });

  it('reviews issued ServiceAccount tokens and the admin token too, as every token a request may use', async () => {
    const sa = await call(sim, 'POST', reviews, {
      body: review({ token: sim.issueServiceAccountToken('web', 'app') }),
    });
    assert.equal(sa.body.status.user.username, 'system:serviceaccount:web:app');
    const admin = await call(sim, 'POST', reviews, { body: review({ token: sim.token }) });
    assert.deepEqual(admin.body.status.user.groups, ['system:masters', 'system:authenticated']);
  });

  it('answers a malformed body with a 400 Status', async () => {
    const cases: [unknown, RegExp][] = [
      ['{"spec": ', /the body of the request was in an unknown format/],
      [
        review({ token: 42 }),
        /cannot unmarshal number into Go struct field TokenReviewSpec\.spec\.token of type string/,
      ],
      [
        review({ audiences: 'x', token: 't' }),
        /cannot unmarshal string into Go struct field .*audiences of type \[\]string/,
      ],
      [review({}), /^token is required for TokenReview in authentication$/],
      [{ ...review({ token: 't' }), kind: 'Pod' }, /the kind in the data \(Pod\) does not match/],
    ];
    for (const [body, message] of cases) {
      const res = await call(sim, 'POST', reviews, { body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.kind, 'Status');
      assert.equal(res.body.reason, 'BadRequest');
      assert.match(res.body.message, message);
    }
  });

  it('refuses unknown fields under fieldValidation=Strict and warns about them by default', async () => {
    const body = review({ token: 'alice-token', tokne: 'x' });
    const strict = await call(sim, 'POST', `${reviews}?fieldValidation=Strict`, { body });
    assert.equal(strict.status, 400);
    assert.match(strict.body.message, /strict decoding error: unknown field "spec.tokne"/);
    const warned = await call(sim, 'POST', reviews, { body });
    assert.equal(warned.status, 201);
    assert.equal(warned.headers['warning'], '299 - "unknown field \\"spec.tokne\\""');
  });

  it('is never stored: list is 405, an object path or a namespace is 404, and no change is logged', async () => {
    const changes = sim.changeLog.length;
    await call(sim, 'POST', reviews, { body: review({ token: 'alice-token' }) });
    assert.equal(sim.changeLog.length, changes);
    assert.equal((await call(sim, 'GET', reviews)).status, 405);
    assert.equal((await call(sim, 'GET', `${reviews}/some-review`)).status, 404);
    assert.equal(
      (await call(sim, 'POST', '/apis/authentication.k8s.io/v1/namespaces/default/tokenreviews')).status,
      404,
    );
  });

  it('is discoverable: /apis lists the group, its version lists tokenreviews with the create verb only', async () => {
    const groups = await call(sim, 'GET', '/apis');
    const group = groups.body.groups.find((g: { name: string }) => g.name === 'authentication.k8s.io');
    assert.deepEqual(group?.preferredVersion, { groupVersion: 'authentication.k8s.io/v1', version: 'v1' });
    const resources = await call(sim, 'GET', '/apis/authentication.k8s.io/v1');
    assert.deepEqual(resources.body.resources, [
      { name: 'tokenreviews', singularName: 'tokenreview', namespaced: false, kind: 'TokenReview', verbs: ['create'] },
    ]);
  });
});

describe('token file users on requests', () => {
  it('authenticates them and authorizes them with RBAC; system:masters is never restricted', async () => {
    const bob = await call(sim, 'GET', '/api/v1/namespaces', { token: 'bob-token' });
    assert.equal(bob.status, 403);
    assert.match(bob.body.message, /User "bob" cannot list resource "namespaces" in API group "" at the cluster scope/);
    const review403 = await call(sim, 'POST', reviews, { token: 'bob-token', body: review({ token: 'alice-token' }) });
    assert.equal(review403.status, 403);
    assert.match(
      review403.body.message,
      /User "bob" cannot create resource "tokenreviews" in API group "authentication/,
    );
    assert.equal((await call(sim, 'GET', '/api/v1/namespaces', { token: 'root-token' })).status, 200);
    assert.equal((await call(sim, 'GET', '/_sim/faults', { token: 'root-token' })).status, 403);
  });

  it('still refuses every other token and a request without one', async () => {
    assert.equal((await call(sim, 'GET', '/api/v1/namespaces', { token: 'made-up' })).status, 401);
    assert.equal((await call(sim, 'GET', '/api/v1/namespaces', { token: null })).status, 401);
  });

  it('refuses to start with a malformed token file, as kube-apiserver would', async () => {
    await writeFile(path.join(dir, 'bad.csv'), 'only-a-token,user\n');
    await assert.rejects(startKubeSim({ tokenAuthFile: path.join(dir, 'bad.csv') }), (e: unknown) => {
      assert.ok(e instanceof TokenFileError);
      assert.match(e.message, /must have at least 3 columns \(token, user name, user uid\), found 2/);
      return true;
    });
  });
});

describe('TokenReview from clients', () => {
  it('kubectl create -f - -o json prints the reviewed status', { skip: skipWithoutKubectl }, async () => {
    const manifest = 'apiVersion: authentication.k8s.io/v1\nkind: TokenReview\nspec:\n  token: alice-token\n';
    const created = await runKubectl(dir, ['create', '-f', '-', '-o', 'json'], 30_000, manifest);
    assert.equal(created.code, 0, created.stderr);
    const printed = JSON.parse(created.stdout) as { status: { authenticated: boolean; user: { username: string } } };
    assert.equal(printed.status.authenticated, true);
    assert.equal(printed.status.user.username, 'alice');
  });

  it("client-node's AuthenticationV1Api.createTokenReview reads the status", async () => {
    const kc = new k8s.KubeConfig();
    kc.loadFromString(sim.kubeconfigYaml());
    const api = kc.makeApiClient(k8s.AuthenticationV1Api);
    const known = await api.createTokenReview({ body: { spec: { token: 'alice-token', audiences: [] } } });
    assert.equal(known.status?.authenticated, true);
    assert.equal(known.status?.user?.username, 'alice');
    assert.equal(known.status?.user?.uid, '1001');
    assert.deepEqual(known.status?.user?.groups, ['portolan:viewers', 'portolan:auditors', 'system:authenticated']);
    const unknown = await api.createTokenReview({ body: { spec: { token: 'nobody-knows-this' } } });
    assert.notEqual(unknown.status?.authenticated, true);
    assert.equal(unknown.status?.error, 'invalid bearer token');
  });
});
