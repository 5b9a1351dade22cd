import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { UserInfo } from './rbac-authorizer.ts';
import { answerTokenReview } from './token-review.ts';

const users = new Map<string, UserInfo>([['t1', { name: 'alice', uid: '7', groups: ['g', 'system:authenticated'] }]]);
const authenticate = (token: string) => users.get(token);
const alice = { username: 'alice', uid: '7', groups: ['g', 'system:authenticated'] };
const refused = { user: {}, error: 'invalid bearer token' };
const apiServer = 'https://kubernetes.default.svc';

const cases: { name: string; body: Record<string, unknown>; want: Record<string, unknown> }[] = [
  {
    name: 'a known token, no audiences: the API server is the audience',
    body: { spec: { token: 't1' } },
    want: { authenticated: true, user: alice, audiences: [apiServer] },
  },
  {
    name: 'requested audiences: only those the API server serves come back',
    body: { spec: { token: 't1', audiences: ['other', apiServer] } },
    want: { authenticated: true, user: alice, audiences: [apiServer] },
  },
  { name: 'only foreign audiences: refused', body: { spec: { token: 't1', audiences: ['other'] } }, want: refused },
  { name: 'an unknown token: refused', body: { spec: { token: 'nope' } }, want: refused },
];

describe('answerTokenReview', () => {
  for (const c of cases)
    it(c.name, () => {
      const answer = answerTokenReview(c.body, authenticate);
      assert.ok(answer.ok);
      assert.deepEqual(answer.value.review['status'], c.want);
    });

  it('echoes the review with type meta, drops its namespace and stores nothing of its own', () => {
    const body = { metadata: { name: 'r', namespace: 'x' }, spec: { token: 't1', audiences: [] } };
    const answer = answerTokenReview(body, authenticate);
    assert.ok(answer.ok);
    const { status: _status, ...rest } = answer.value.review;
    assert.deepEqual(rest, {
      kind: 'TokenReview',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { name: 'r', creationTimestamp: null },
      spec: { token: 't1' },
    });
  });

  it('treats JSON nulls as absent, so a null token is a missing one', () => {
    const answer = answerTokenReview({ spec: { token: null, audiences: null } }, authenticate);
    assert.deepEqual(answer, {
      ok: false,
      error: { code: 400, reason: 'BadRequest', message: 'token is required for TokenReview in authentication' },
    });
  });

  it('reports unknown fields as warnings by default, not at all under Ignore', () => {
    const body = { extra: 1, spec: { token: 't1', more: 2 } };
    const warn = answerTokenReview(body, authenticate);
    assert.deepEqual(warn.ok && warn.value.warnings, ['unknown field "extra"', 'unknown field "spec.more"']);
    const ignore = answerTokenReview(body, authenticate, 'Ignore');
    assert.deepEqual(ignore.ok && ignore.value.warnings, []);
  });
});
