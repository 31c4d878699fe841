import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  BackendError,
  errorKindForStatus,
  findBackendError,
  isBackendError,
} from '../../../src/domain/errors.ts';

test('a BackendError from another bundle (another copy of the class) is still recognised', () => {
  class OtherCopy extends Error {
    override readonly name = 'BackendError';
    readonly kind = 'unauthorized';
  }
  const foreign = new OtherCopy('401');
  assert.equal(foreign instanceof BackendError, false, 'instanceof cannot see it');
  assert.equal(isBackendError(foreign), true);
  assert.equal(findBackendError(new Error('wrapped', { cause: foreign })), foreign);
  assert.equal(isBackendError(new Error('plain')), false);
  assert.equal(isBackendError({ name: 'BackendError', kind: 'server' }), false, 'not an Error');
});

test('HTTP statuses map to kinds', () => {
  assert.equal(errorKindForStatus(401), 'unauthorized');
  assert.equal(errorKindForStatus(403), 'forbidden');
  assert.equal(errorKindForStatus(429), 'rateLimited');
  assert.equal(errorKindForStatus(504), 'timeout');
  assert.equal(errorKindForStatus(502), 'server');
  assert.equal(errorKindForStatus(404), 'notFound', 'not "could not be read"');
  assert.equal(errorKindForStatus(410), 'notFound');
  assert.equal(errorKindForStatus(400), undefined);
});
