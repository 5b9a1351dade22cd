import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorCode, errorMessage, InternalError, isSystemError, PortolanError } from './index.ts';

class WidgetMissingError extends PortolanError {
  readonly code = 'WIDGET_MISSING';
}

test('a PortolanError keeps its subclass name, code and cause', () => {
  const cause = new Error('disk gone');
  const err = new WidgetMissingError('widget w1 is missing', { cause });
  assert.equal(err.name, 'WidgetMissingError');
  assert.equal(err.code, 'WIDGET_MISSING');
  assert.equal(err.cause, cause);
  assert.ok(err instanceof PortolanError);
  assert.equal(errorCode(err), 'WIDGET_MISSING');
});

test('InternalError takes its code at construction', () => {
  const err = new InternalError('STORE_CLOSED', 'the store is closed');
  assert.equal(err.code, 'STORE_CLOSED');
  assert.equal(err.name, 'InternalError');
});

test('system errors are recognised by code, other values are not', () => {
  const enoent = Object.assign(new Error('no such file'), { code: 'ENOENT' });
  assert.equal(isSystemError(enoent, 'ENOENT', 'ENOTDIR'), true);
  assert.equal(isSystemError(enoent, 'EACCES'), false);
  assert.equal(isSystemError({ code: 'ENOENT' }, 'ENOENT'), false, 'a plain object is not an Error');
  assert.equal(errorCode('ENOENT'), undefined);
  assert.equal(errorMessage(42), '42');
  assert.equal(errorMessage(enoent), 'no such file');
});
