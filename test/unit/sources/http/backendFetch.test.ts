import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { BackendError } from '../../../../src/domain/errors.ts';
import { createBackendFetch } from '../../../../src/sources/http/backendFetch.ts';
import type { Logger } from '../../../../src/util/logger.ts';

const seenAuth: (string | undefined)[] = [];
const logLines: string[] = [];
const log: Logger = {
  trace: (m) => logLines.push(m),
  info: (m) => logLines.push(m),
  warn: (m) => logLines.push(m),
  error: (m) => logLines.push(m),
};
let server: http.Server;
let origin: string;

before(async () => {
  server = http.createServer((req, res) => {
    seenAuth.push(req.headers.authorization);
    const status = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('status') ?? 200);
    if (req.url?.startsWith('/slow')) {
      setTimeout(() => res.end('late'), 2000);
      return;
    }
    if (status === 429) res.setHeader('retry-after', '7');
    res.statusCode = status;
    res.end(`body with token secret-token-123 and status ${status}`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => server.close());

const fetchWith = (timeoutMs = 1000) =>
  createBackendFetch({
    origin,
    timeoutMs,
    log,
    authHeader: async () => ['Authorization', 'Bearer secret-token-123'],
  });

async function expectKind(promise: Promise<unknown>, kind: string): Promise<BackendError> {
  const error = await promise.then(
    () => assert.fail('expected a failure'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof BackendError, String(error));
  assert.equal(error.kind, kind);
  assert.equal(error.message.includes('secret-token-123'), false, 'no token in the message');
  return error;
}

test('the token goes to its own origin only', async () => {
  const f = fetchWith();
  assert.equal((await f(`${origin}/ok`)).status, 200);
  assert.equal(seenAuth.at(-1), 'Bearer secret-token-123');
  const other = origin.replace('127.0.0.1', 'localhost');
  await f(`${other}/ok`);
  assert.equal(seenAuth.at(-1), undefined, 'another origin gets no credentials');
});

test('HTTP failures become typed errors without secrets', async () => {
  const f = fetchWith();
  await expectKind(f(`${origin}/?status=401`), 'unauthorized');
  await expectKind(f(`${origin}/?status=403`), 'forbidden');
  const limited = await expectKind(f(`${origin}/?status=429`), 'rateLimited');
  assert.equal(limited.retryAfterSeconds, 7);
  await expectKind(f(`${origin}/?status=503`), 'server');
});

test('a 404 is "not found", naming the path, not an unreadable answer', async () => {
  const error = await expectKind(fetchWith()(`${origin}/v2/agents/nope?status=404`), 'notFound');
  assert.equal(error.status, 404);
  assert.match(error.message, /\/v2\/agents\/nope/);
  assert.match(error.message, /not found/);
  assert.doesNotMatch(error.message, /secret-token/);
});

test('a slow server times out with a clear message', async () => {
  const error = await expectKind(fetchWith(200)(`${origin}/slow`), 'timeout');
  assert.match(error.message, /did not answer within/);
});

test('a refused connection is a network error', async () => {
  await expectKind(fetchWith()('http://127.0.0.1:9/'), 'network');
});

test('logs never contain the token', () => {
  assert.ok(logLines.length > 0);
  assert.equal(
    logLines.some((l) => l.includes('secret-token-123')),
    false,
  );
});
