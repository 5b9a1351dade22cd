import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Operation } from '@portolan/appliance-driver';
import { describeDrift, driftAction } from './drift-report.ts';

const op = (action: Operation['action'], name: string, payload: Operation['payload']): Operation => ({
  objectType: 'pool',
  objectName: name,
  action,
  payload,
  summary: `${action} ${name}`,
});

test('drift report: a changed object shows observed before and applied after; a deleted one shows null before', () => {
  const restore = [
    op('update', 'web', { members: ['10.0.0.1:80'] }),
    op('create', 'api', { members: ['10.0.0.2:80'] }),
  ];
  const reproduce = [op('update', 'web', { members: ['10.9.9.9:80'] }), op('delete', 'api', null)];
  assert.deepEqual(describeDrift(restore, reproduce), {
    objects: ['pool/api', 'pool/web'],
    before: { 'pool/web': { members: ['10.9.9.9:80'] }, 'pool/api': null },
    after: { 'pool/web': { members: ['10.0.0.1:80'] }, 'pool/api': { members: ['10.0.0.2:80'] } },
  });
  assert.equal(describeDrift([], []), null);
  assert.equal(driftAction('correct'), 'corrected');
  assert.equal(driftAction('report'), 'reported');
});
