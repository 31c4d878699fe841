import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redact } from '../../../src/domain/redact.ts';

test('known secrets are replaced wherever they appear', () => {
  assert.equal(
    redact('token abc123xyz in text abc123xyz', ['abc123xyz']),
    'token **** in text ****',
  );
});

test('bearer headers, api keys, sk_ keys and signed-URL parameters are masked', () => {
  const text = [
    'Authorization: Bearer eyJhbGciOi.J9.sig',
    'x-api-key: zqt_1234567890',
    'key sk_live_ABCDEF123456',
    'https://bucket/file?X-Amz-Signature=deadbeef&x=1',
  ].join('\n');
  const out = redact(text);
  for (const secret of ['eyJhbGciOi', 'zqt_1234567890', 'ABCDEF123456', 'deadbeef']) {
    assert.equal(out.includes(secret), false, `${secret} is gone`);
  }
  assert.match(out, /x=1/, 'the rest of the text stays');
});
