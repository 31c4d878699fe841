/**
 * Shared material for the transcript generators: two small but realistic repositories
 * (a TypeScript HTTP service and a Python billing service), a catalogue of bugs an agent
 * fixes in them, tool outputs (test runners, linters, git) and prose templates.
 *
 * Everything here is either static or a pure function of its arguments and the
 * SeededRandom passed in, so the generators stay deterministic. Strings are built once
 * at module load where possible so that the large generator only slices and joins.
 */
import { SeededRandom } from '../random.ts';

export type Lang = 'ts' | 'py';

export interface Scenario {
  readonly key: string;
  /** Repo-relative path of the file with the bug. */
  readonly file: string;
  readonly testFile: string;
  readonly symbol: string;
  readonly title: string;
  readonly commitMessage: string;
  readonly prompts: readonly string[];
  /** What the user sees, as a clause: "`parseDuration` returns NaN for …". */
  readonly problem: string;
  readonly cause: string;
  /** A verb phrase: "parse the input as …". */
  readonly fixDescription: string;
  /** "… if parseDuration <changeSummary>". */
  readonly changeSummary: string;
  readonly compat: string;
  readonly fix: { readonly old: string; readonly new: string };
  /** A unique snippet of the test file after which the regression test is inserted. */
  readonly testAnchor: string;
  readonly regressionTest: string;
  readonly regressionCount: number;
  /** Test-runner name of the failing regression test. */
  readonly testName: string;
  readonly assertion: string;
  readonly error: string;
  readonly docsUrl: string;
  readonly docsPrompt: string;
  readonly docsNote: string;
}

export interface Project {
  readonly name: string;
  readonly lang: Lang;
  readonly repoUrl: string;
  readonly files: ReadonlyMap<string, string>;
  readonly testFiles: readonly string[];
  readonly testGlob: string;
  readonly scenarios: readonly Scenario[];
  readonly instructions: string;
  testCommand(file: string): string;
  readonly fullTestCommand: string;
  readonly typecheckCommand: string;
  readonly lintCommand: string;
  readonly lintFixCommand: string;
}

// ---------------------------------------------------------------------------------------
// TypeScript project: orbit-api
// ---------------------------------------------------------------------------------------

const TS_FILES: Record<string, string> = {
  'package.json': `{
  "name": "orbit-api",
  "version": "3.14.2",
  "private": true,
  "type": "module",
  "scripts": {
    "dev": "tsx watch src/server/index.ts",
    "build": "tsc -p tsconfig.build.json",
    "test": "vitest run",
    "typecheck": "tsc --noEmit",
    "lint": "eslint src test"
  },
  "dependencies": {
    "express": "^5.1.0",
    "jose": "^6.0.11",
    "pg": "^8.16.0",
    "pino": "^9.7.0",
    "zod": "^3.25.67"
  },
  "devDependencies": {
    "@types/express": "^5.0.3",
    "@types/node": "^22.15.30",
    "@types/supertest": "^6.0.3",
    "eslint": "^9.29.0",
    "supertest": "^7.1.1",
    "tsx": "^4.20.3",
    "typescript": "^5.8.3",
    "typescript-eslint": "^8.34.1",
    "vitest": "^3.2.4"
  }
}
`,
  'tsconfig.json': `{
  "compilerOptions": {
    "target": "es2022",
    "module": "nodenext",
    "moduleResolution": "nodenext",
    "strict": true,
    "noUncheckedIndexedAccess": true,
    "allowImportingTsExtensions": true,
    "noEmit": true,
    "skipLibCheck": true
  },
  "include": ["src", "test"]
}
`,
  'src/config.ts': `import { parseDuration } from './lib/duration.ts';

function env(name: string, fallback?: string): string {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new Error(\`Missing environment variable \${name}\`);
  return value;
}

export const config = {
  port: Number(env('PORT', '8080')),
  databaseUrl: env('DATABASE_URL'),
  sessionTtlMs: parseDuration(env('SESSION_TTL', '12h')),
  requestTimeoutMs: parseDuration(env('REQUEST_TIMEOUT', '30s')),
  cacheTtlMs: parseDuration(env('CACHE_TTL', '5m')),
  jwtIssuer: env('JWT_ISSUER', 'https://auth.orbit.local/'),
} as const;
`,
  'src/lib/duration.ts': `const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/**
 * Parses a human duration such as "250ms", "30s", "5m" or "1h30m" into milliseconds.
 * Returns NaN when the input cannot be parsed.
 */
export function parseDuration(input: string): number {
  const match = /^(\\d+)(ms|s|m|h|d)$/.exec(input.trim());
  if (!match) return Number.NaN;
  const [, amount, unit] = match;
  return Number(amount) * UNIT_MS[unit!]!;
}

export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '-';
  if (ms < 1_000) return \`\${Math.round(ms)}ms\`;
  const parts: string[] = [];
  let rest = Math.floor(ms / 1_000);
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
  ] as const) {
    if (rest >= size) {
      parts.push(\`\${Math.floor(rest / size)}\${unit}\`);
      rest %= size;
    }
  }
  if (rest > 0 || parts.length === 0) parts.push(\`\${rest}s\`);
  return parts.join('');
}
`,
  'src/lib/lruCache.ts': `/** A small least-recently-used cache with an optional per-entry time to live. */
export interface LruCacheOptions {
  maxEntries: number;
  ttlMs?: number;
  now?: () => number;
}

interface Entry<V> {
  value: V;
  expiresAt: number;
}

export class LruCache<K, V> {
  private readonly entries = new Map<K, Entry<V>>();
  private readonly maxEntries: number;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(options: LruCacheOptions) {
    if (options.maxEntries < 1) throw new RangeError('maxEntries must be at least 1');
    this.maxEntries = options.maxEntries;
    this.ttlMs = options.ttlMs ?? Number.POSITIVE_INFINITY;
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    // Move to the most recently used position.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: K, value: V): void {
    this.entries.set(key, { value, expiresAt: this.now() + this.ttlMs });
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as K;
      this.entries.delete(oldest);
    }
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
`,
  'src/lib/retry.ts': `import { setTimeout as sleep } from 'node:timers/promises';

export interface RetryOptions {
  maxAttempts: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  isRetryable?: (error: unknown) => boolean;
  signal?: AbortSignal;
}

export class RetryError extends Error {
  readonly attempts: number;

  constructor(message: string, attempts: number, cause: unknown) {
    super(message, { cause });
    this.name = 'RetryError';
    this.attempts = attempts;
  }
}

/** Calls \`fn\` until it succeeds, with exponential backoff and full jitter. */
export async function retry<T>(
  fn: (attempt: number) => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  const base = options.baseDelayMs ?? 100;
  const cap = options.maxDelayMs ?? 5_000;
  let lastError: unknown;
  for (let attempt = 0; attempt <= options.maxAttempts; attempt++) {
    try {
      return await fn(attempt);
    } catch (error) {
      lastError = error;
      if (options.isRetryable && !options.isRetryable(error)) break;
      const delay = Math.random() * Math.min(cap, base * 2 ** attempt);
      await sleep(delay, undefined, { signal: options.signal });
    }
  }
  throw new RetryError(\`gave up after \${options.maxAttempts} attempts\`, options.maxAttempts, lastError);
}
`,
  'src/server/middleware/auth.ts': `import type { NextFunction, Request, Response } from 'express';
import { verifyJwt, type JwtPayload } from '../../lib/jwt.ts';
import { logger } from '../../lib/logger.ts';

declare module 'express-serve-static-core' {
  interface Request {
    user?: { id: string; scopes: string[] };
  }
}

const BEARER = /^Bearer\\s+(.+)$/i;

export function requireAuth(requiredScope?: string) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const header = req.headers.authorization ?? '';
    const match = BEARER.exec(header);
    if (!match) {
      res.status(401).json({ error: 'missing_token' });
      return;
    }
    let payload: JwtPayload;
    try {
      payload = await verifyJwt(match[1]!);
    } catch (error) {
      logger.warn({ err: error }, 'rejected token');
      res.status(401).json({ error: 'invalid_token' });
      return;
    }
    if (payload.exp < Date.now()) {
      res.status(401).json({ error: 'token_expired' });
      return;
    }
    const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ') : [];
    if (requiredScope && !scopes.includes(requiredScope)) {
      res.status(403).json({ error: 'insufficient_scope', required: requiredScope });
      return;
    }
    req.user = { id: payload.sub, scopes };
    next();
  };
}
`,
  'src/db/pagination.ts': `export interface PageQuery {
  page?: string | number;
  pageSize?: string | number;
}

export interface Page {
  limit: number;
  offset: number;
  page: number;
}

export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 200;

function toInt(value: string | number | undefined, fallback: number): number {
  const n = typeof value === 'number' ? value : Number.parseInt(value ?? '', 10);
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : fallback;
}

/** Turns \`?page=&pageSize=\` (1-based pages) into LIMIT/OFFSET. */
export function toPage(query: PageQuery): Page {
  const page = toInt(query.page, 1);
  const limit = Math.min(toInt(query.pageSize, DEFAULT_PAGE_SIZE), MAX_PAGE_SIZE);
  return { limit, offset: page * limit, page };
}

export function pageLinks(base: URL, page: Page, total: number): Record<string, string> {
  const last = Math.max(1, Math.ceil(total / page.limit));
  const link = (p: number) => {
    const url = new URL(base);
    url.searchParams.set('page', String(p));
    url.searchParams.set('pageSize', String(page.limit));
    return url.toString();
  };
  const links: Record<string, string> = { first: link(1), last: link(last) };
  if (page.page > 1) links.prev = link(page.page - 1);
  if (page.page < last) links.next = link(page.page + 1);
  return links;
}
`,
  'src/server/routes/invoices.ts': `import { Router } from 'express';
import { z } from 'zod';
import { db } from '../../db/client.ts';
import { pageLinks, toPage } from '../../db/pagination.ts';
import { parseDuration } from '../../lib/duration.ts';
import { LruCache } from '../../lib/lruCache.ts';
import { retry } from '../../lib/retry.ts';
import { requireAuth } from '../middleware/auth.ts';

const summaryCache = new LruCache<string, unknown>({ maxEntries: 500, ttlMs: parseDuration('5m') });

export const invoices = Router();

const ListQuery = z.object({
  status: z.enum(['draft', 'open', 'paid', 'void']).optional(),
  page: z.coerce.number().int().positive().optional(),
  pageSize: z.coerce.number().int().positive().optional(),
});

invoices.get('/invoices', requireAuth('invoices:read'), async (req, res) => {
  const query = ListQuery.parse(req.query);
  const page = toPage(query);
  const [rows, total] = await retry(
    () => Promise.all([db.invoices.list({ status: query.status, ...page }), db.invoices.count(query.status)]),
    { maxAttempts: 3, baseDelayMs: 50 },
  );
  const links = pageLinks(new URL(req.originalUrl, 'http://localhost'), page, total);
  res.setHeader(
    'Link',
    Object.entries(links)
      .map(([rel, url]) => \`<\${url}>; rel="\${rel}"\`)
      .join(', '),
  );
  res.json({ data: rows, total });
});

invoices.get('/invoices/:id/summary', requireAuth('invoices:read'), async (req, res) => {
  const cached = summaryCache.get(req.params.id);
  if (cached) {
    res.json(cached);
    return;
  }
  const summary = await retry(() => db.invoices.summary(req.params.id), { maxAttempts: 2 });
  if (!summary) {
    res.status(404).json({ error: 'not_found' });
    return;
  }
  summaryCache.set(req.params.id, summary);
  res.json(summary);
});
`,
  'test/lib/duration.test.ts': `import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../src/lib/duration.ts';

describe('parseDuration', () => {
  it('parses milliseconds', () => {
    expect(parseDuration('250ms')).toBe(250);
  });

  it('parses seconds and minutes', () => {
    expect(parseDuration('30s')).toBe(30_000);
    expect(parseDuration('5m')).toBe(300_000);
  });

  it('ignores surrounding whitespace', () => {
    expect(parseDuration(' 2h ')).toBe(7_200_000);
  });

  it('returns NaN for garbage', () => {
    expect(parseDuration('soon')).toBeNaN();
  });
});

describe('formatDuration', () => {
  it('formats compound durations', () => {
    expect(formatDuration(5_400_000)).toBe('1h30m');
  });
});
`,
  'test/lib/lruCache.test.ts': `import { describe, expect, it } from 'vitest';
import { LruCache } from '../../src/lib/lruCache.ts';

describe('LruCache', () => {
  it('returns stored values', () => {
    const cache = new LruCache<string, number>({ maxEntries: 3 });
    cache.set('a', 1);
    expect(cache.get('a')).toBe(1);
  });

  it('evicts the least recently used entry', () => {
    const cache = new LruCache<string, number>({ maxEntries: 2 });
    cache.set('a', 1);
    cache.set('b', 2);
    cache.get('a');
    cache.set('c', 3);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
  });

  it('expires entries after the ttl', () => {
    let now = 1_000;
    const cache = new LruCache<string, number>({ maxEntries: 2, ttlMs: 100, now: () => now });
    cache.set('a', 1);
    now += 101;
    expect(cache.get('a')).toBeUndefined();
  });
});
`,
  'test/lib/retry.test.ts': `import { describe, expect, it, vi } from 'vitest';
import { retry, RetryError } from '../../src/lib/retry.ts';

describe('retry', () => {
  it('returns the first successful result', async () => {
    const fn = vi.fn().mockRejectedValueOnce(new Error('boom')).mockResolvedValue('ok');
    await expect(retry(fn, { maxAttempts: 3, baseDelayMs: 1 })).resolves.toBe('ok');
    expect(fn).toHaveBeenCalledTimes(2);
  });

  it('stops on non-retryable errors', async () => {
    const fn = vi.fn().mockRejectedValue(new TypeError('bad input'));
    await expect(
      retry(fn, { maxAttempts: 5, baseDelayMs: 1, isRetryable: (e) => !(e instanceof TypeError) }),
    ).rejects.toBeInstanceOf(RetryError);
    expect(fn).toHaveBeenCalledTimes(1);
  });
});
`,
  'test/server/auth.test.ts': `import express from 'express';
import request from 'supertest';
import { describe, expect, it, vi } from 'vitest';
import * as jwt from '../../src/lib/jwt.ts';
import { requireAuth } from '../../src/server/middleware/auth.ts';

function app(scope?: string) {
  const server = express();
  server.get('/private', requireAuth(scope), (req, res) => res.json({ user: req.user }));
  return server;
}

const inOneHour = () => Math.floor(Date.now() / 1000) + 3600;

describe('requireAuth', () => {
  it('rejects requests without a bearer token', async () => {
    const res = await request(app()).get('/private');
    expect(res.status).toBe(401);
  });

  it('rejects tokens without the required scope', async () => {
    vi.spyOn(jwt, 'verifyJwt').mockResolvedValue({ sub: 'u1', scope: 'invoices:read', exp: inOneHour() });
    const res = await request(app('invoices:write')).get('/private').set('Authorization', 'Bearer t');
    expect(res.status).toBe(403);
  });
});
`,
  'test/db/pagination.test.ts': `import { describe, expect, it } from 'vitest';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, pageLinks, toPage } from '../../src/db/pagination.ts';

describe('toPage', () => {
  it('uses defaults for missing values', () => {
    expect(toPage({}).limit).toBe(DEFAULT_PAGE_SIZE);
  });

  it('caps the page size', () => {
    expect(toPage({ pageSize: '10000' }).limit).toBe(MAX_PAGE_SIZE);
  });
});

describe('pageLinks', () => {
  it('omits prev on the first page', () => {
    const links = pageLinks(new URL('http://x/invoices'), { page: 1, limit: 10, offset: 0 }, 35);
    expect(links.prev).toBeUndefined();
    expect(links.last).toContain('page=4');
  });
});
`,
};

const TS_SCENARIOS: Scenario[] = [
  {
    key: 'duration',
    file: 'src/lib/duration.ts',
    testFile: 'test/lib/duration.test.ts',
    symbol: 'parseDuration',
    title: 'Fix compound duration parsing in parseDuration',
    commitMessage: 'fix(duration): parse compound durations such as 1h30m',
    prompts: [
      '`SESSION_TTL=1h30m` makes the server start with a NaN session TTL. I think `parseDuration` does not handle compound values - can you fix it and add a test?',
      "parseDuration('1h30m') returns NaN. formatDuration produces strings like that, so the two should round-trip. Please fix.",
      'Users report that config values like `2h15m` are silently ignored. Can you look into parseDuration in src/lib/duration.ts?',
    ],
    problem: '`parseDuration` returns `NaN` for compound values such as `1h30m`',
    cause:
      'the regular expression is anchored to a single `<number><unit>` pair, so any value with two units fails to match and the function falls through to `NaN`.',
    fixDescription:
      'parse the input as a sequence of `<number><unit>` pairs with a sticky global regex, sum them, and only accept the result when the pairs cover the whole string',
    changeSummary: 'accepted compound values like `1h30m`',
    compat:
      'Every single-unit input still parses to the same value, and inputs that were rejected before (`soon`, `1h30x`) are still rejected, so the change only turns some `NaN` results into numbers.',
    fix: {
      old: `  const match = /^(\\d+)(ms|s|m|h|d)$/.exec(input.trim());
  if (!match) return Number.NaN;
  const [, amount, unit] = match;
  return Number(amount) * UNIT_MS[unit!]!;`,
      new: `  const text = input.trim();
  let total = 0;
  let consumed = 0;
  for (const [part, amount, unit] of text.matchAll(/(\\d+)(ms|s|m|h|d)/gy)) {
    total += Number(amount) * UNIT_MS[unit!]!;
    consumed += part.length;
  }
  return consumed > 0 && consumed === text.length ? total : Number.NaN;`,
    },
    testAnchor: `  it('returns NaN for garbage', () => {
    expect(parseDuration('soon')).toBeNaN();
  });`,
    regressionTest: `

  it('parses compound durations', () => {
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('1d2h')).toBe(93_600_000);
  });

  it('rejects compound input with trailing garbage', () => {
    expect(parseDuration('1h30x')).toBeNaN();
  });`,
    regressionCount: 2,
    testName: 'parseDuration > parses compound durations',
    assertion: "expect(parseDuration('1h30m')).toBe(5_400_000);",
    error: 'AssertionError: expected NaN to be 5400000 // Object.is equality',
    docsUrl:
      'https://developer.mozilla.org/en-US/docs/Web/JavaScript/Reference/Global_Objects/RegExp/sticky',
    docsPrompt: 'How does the sticky flag interact with matchAll() and lastIndex?',
    docsNote:
      'The sticky flag (`y`) makes a regular expression match only at its `lastIndex`. `matchAll()` requires the global flag; combined with `y`, every match has to start exactly where the previous one ended, so iteration stops at the first character that does not match instead of skipping ahead. `lastIndex` is reset on the internal copy of the regex, so the original object is not modified.',
  },
  {
    key: 'lru',
    file: 'src/lib/lruCache.ts',
    testFile: 'test/lib/lruCache.test.ts',
    symbol: 'LruCache',
    title: 'Refresh recency when LruCache overwrites a key',
    commitMessage: 'fix(cache): treat overwriting a key as a use in LruCache',
    prompts: [
      'The invoice summary cache keeps missing for our busiest customers. I suspect `LruCache.set`: updating an existing key does not seem to move it to the front. Can you check and fix?',
      'LruCache evicts the wrong entry when a key is overwritten. Repro: maxEntries 2, set a, set b, set a again, set c -> a is gone. Please fix it and add a test.',
    ],
    problem:
      'overwriting an existing key in `LruCache` does not refresh its recency, so it can be evicted right after it was written',
    cause:
      '`Map.prototype.set` on an existing key keeps the key at its original insertion position, and the cache uses insertion order as its recency order, so `set()` on an existing key leaves it at the least-recently-used end.',
    fixDescription: 'delete the key before re-inserting it in `set()`',
    changeSummary: 'moved overwritten keys to the most recently used position',
    compat:
      'Only eviction order changes: values, sizes and TTL handling are identical, and `get()` already moved keys the same way.',
    fix: {
      old: `  set(key: K, value: V): void {
    this.entries.set(key, { value, expiresAt: this.now() + this.ttlMs });`,
      new: `  set(key: K, value: V): void {
    // Re-inserting moves an existing key to the most recently used position.
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: this.now() + this.ttlMs });`,
    },
    testAnchor: `  it('evicts the least recently used entry', () => {
    const cache = new LruCache<string, number>({ maxEntries: 2 });
    cache.set('a', 1);
    cache.set('b', 2);
    cache.get('a');
    cache.set('c', 3);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
  });`,
    regressionTest: `

  it('treats overwriting a key as a use', () => {
    const cache = new LruCache<string, number>({ maxEntries: 2 });
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('a', 3);
    cache.set('c', 4);
    expect(cache.get('a')).toBe(3);
    expect(cache.get('b')).toBeUndefined();
  });`,
    regressionCount: 1,
    testName: 'LruCache > treats overwriting a key as a use',
    assertion: "expect(cache.get('a')).toBe(3);",
    error: 'AssertionError: expected undefined to be 3 // Object.is equality',
    docsUrl:
      'https://developer.mozilla.org/en-US/docs/Web/JavaScript/Reference/Global_Objects/Map/set',
    docsPrompt: 'Does Map.prototype.set move an existing key to the end of the iteration order?',
    docsNote:
      'No. `Map` iterates in insertion order, and setting the value of a key that already exists updates the value in place without changing its position. To move a key to the end you have to `delete()` it first and then `set()` it again.',
  },
  {
    key: 'retry',
    file: 'src/lib/retry.ts',
    testFile: 'test/lib/retry.test.ts',
    symbol: 'retry',
    title: 'Stop retry() from making one attempt too many',
    commitMessage: 'fix(retry): respect maxAttempts exactly',
    prompts: [
      'Our payments provider rate-limited us, and the logs show 4 requests per retry cycle even though we configure `maxAttempts: 3`. Can you look at `retry()`?',
      'retry() seems to call the function maxAttempts + 1 times. Please confirm with a test and fix.',
    ],
    problem:
      '`retry()` calls the function one extra time: with `maxAttempts: 3` the upstream gets 4 requests',
    cause:
      'the loop condition is `attempt <= options.maxAttempts` with `attempt` starting at 0, so it runs `maxAttempts + 1` iterations.',
    fixDescription: 'change the loop condition to `attempt < options.maxAttempts`',
    changeSummary: 'made exactly `maxAttempts` calls',
    compat:
      'Callers get one attempt fewer than before, which is what the option name always promised; the error type and message are unchanged.',
    fix: {
      old: '  for (let attempt = 0; attempt <= options.maxAttempts; attempt++) {',
      new: '  for (let attempt = 0; attempt < options.maxAttempts; attempt++) {',
    },
    testAnchor: `    expect(fn).toHaveBeenCalledTimes(1);
  });`,
    regressionTest: `

  it('calls the function at most maxAttempts times', async () => {
    const fn = vi.fn().mockRejectedValue(new Error('unavailable'));
    await expect(retry(fn, { maxAttempts: 3, baseDelayMs: 1 })).rejects.toThrow(RetryError);
    expect(fn).toHaveBeenCalledTimes(3);
  });`,
    regressionCount: 1,
    testName: 'retry > calls the function at most maxAttempts times',
    assertion: 'expect(fn).toHaveBeenCalledTimes(3);',
    error: 'AssertionError: expected "spy" to be called 3 times, but got 4 times',
    docsUrl: 'https://vitest.dev/api/expect.html#tohavebeencalledtimes',
    docsPrompt: 'What does toHaveBeenCalledTimes print when the count is wrong?',
    docsNote:
      '`toHaveBeenCalledTimes(n)` asserts that a mock function was called exactly `n` times. On failure Vitest prints the expected and the actual number of calls, followed by the list of recorded calls with their arguments.',
  },
  {
    key: 'auth',
    file: 'src/server/middleware/auth.ts',
    testFile: 'test/server/auth.test.ts',
    symbol: 'requireAuth',
    title: 'Compare JWT exp in seconds in requireAuth',
    commitMessage: 'fix(auth): compare JWT exp (seconds) with the current time correctly',
    prompts: [
      'After the jwt library upgrade every authenticated request returns 401 `token_expired`, even with a freshly issued token. Can you find out why?',
      'All requests to /invoices fail with token_expired in staging. The tokens are valid for an hour. Please investigate the auth middleware.',
    ],
    problem:
      'every authenticated request is rejected with `401 token_expired`, even with fresh tokens',
    cause:
      'a JWT `exp` claim is in seconds since the epoch (RFC 7519), but the middleware compares it with `Date.now()`, which is in milliseconds, so every token looks as if it expired in 1970.',
    fixDescription: 'convert `exp` to milliseconds before comparing it with `Date.now()`',
    changeSummary: 'compared `exp` in milliseconds',
    compat:
      'Tokens that really are expired are still rejected with the same error body, so clients see no difference apart from valid tokens working again.',
    fix: {
      old: '    if (payload.exp < Date.now()) {',
      new: '    if (payload.exp * 1000 <= Date.now()) {',
    },
    testAnchor: `    expect(res.status).toBe(403);
  });`,
    regressionTest: `

  it('accepts a valid token that expires in the future', async () => {
    vi.spyOn(jwt, 'verifyJwt').mockResolvedValue({ sub: 'u1', scope: 'invoices:read', exp: inOneHour() });
    const res = await request(app('invoices:read')).get('/private').set('Authorization', 'Bearer t');
    expect(res.status).toBe(200);
  });`,
    regressionCount: 1,
    testName: 'requireAuth > accepts a valid token that expires in the future',
    assertion: 'expect(res.status).toBe(200);',
    error: 'AssertionError: expected 401 to be 200 // Object.is equality',
    docsUrl: 'https://www.rfc-editor.org/rfc/rfc7519#section-4.1.4',
    docsPrompt: 'What unit is the exp claim in?',
    docsNote:
      'The "exp" (expiration time) claim identifies the expiration time on or after which the JWT MUST NOT be accepted. Its value MUST be a number containing a NumericDate value: the number of seconds from 1970-01-01T00:00:00Z UTC, ignoring leap seconds.',
  },
  {
    key: 'pagination',
    file: 'src/db/pagination.ts',
    testFile: 'test/db/pagination.test.ts',
    symbol: 'toPage',
    title: 'Make the first page start at offset 0 in toPage',
    commitMessage: 'fix(pagination): 1-based pages start at offset 0',
    prompts: [
      'GET /invoices?page=1 never shows the newest 25 invoices; they only appear when I request page=0. Pages are supposed to be 1-based. Please fix `toPage`.',
      'The invoice list skips the first page of results. Can you check the pagination helper and add a test for page 1?',
    ],
    problem: 'the first page of `/invoices` skips the first `pageSize` rows',
    cause:
      'pages are 1-based, but `toPage` computes `offset: page * limit`, so page 1 starts at `limit` instead of 0.',
    fixDescription: 'compute the offset as `(page - 1) * limit`',
    changeSummary: 'started page 1 at offset 0',
    compat:
      'Every page moves back by one page size, which matches what `pageLinks` already assumed (it links `first` to page 1).',
    fix: {
      old: '  return { limit, offset: page * limit, page };',
      new: '  return { limit, offset: (page - 1) * limit, page };',
    },
    testAnchor: `  it('caps the page size', () => {
    expect(toPage({ pageSize: '10000' }).limit).toBe(MAX_PAGE_SIZE);
  });`,
    regressionTest: `

  it('starts the first page at offset 0', () => {
    expect(toPage({ page: '1', pageSize: '25' }).offset).toBe(0);
    expect(toPage({ page: '3', pageSize: '25' }).offset).toBe(50);
  });`,
    regressionCount: 1,
    testName: 'toPage > starts the first page at offset 0',
    assertion: "expect(toPage({ page: '1', pageSize: '25' }).offset).toBe(0);",
    error: 'AssertionError: expected 25 to be +0 // Object.is equality',
    docsUrl: 'https://www.postgresql.org/docs/current/queries-limit.html',
    docsPrompt: 'Is OFFSET 0 the same as omitting OFFSET?',
    docsNote:
      'OFFSET says to skip that many rows before beginning to return rows. OFFSET 0 is the same as omitting the OFFSET clause. When using LIMIT, it is important to use an ORDER BY clause that constrains the result rows into a unique order; otherwise you will get an unpredictable subset of the rows.',
  },
];

// ---------------------------------------------------------------------------------------
// Python project: ledger-service
// ---------------------------------------------------------------------------------------

const PY_FILES: Record<string, string> = {
  'pyproject.toml': `[project]
name = "ledger-service"
version = "2.7.0"
requires-python = ">=3.12"
dependencies = [
    "fastapi>=0.115",
    "sqlalchemy>=2.0.36",
    "psycopg[binary]>=3.2",
    "pydantic>=2.10",
]

[project.optional-dependencies]
dev = ["pytest>=8.3", "pytest-cov>=6.0", "mypy>=1.14", "ruff>=0.8"]

[tool.pytest.ini_options]
testpaths = ["tests"]
addopts = "-ra"

[tool.ruff]
line-length = 100
target-version = "py312"

[tool.ruff.lint]
select = ["E", "F", "I", "B", "UP"]

[tool.mypy]
strict = true
packages = ["ledger"]
`,
  'ledger/billing/proration.py': `"""Proration of subscription charges when a plan changes mid-period."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")


@dataclass(frozen=True)
class Period:
    start: date
    end: date  # exclusive

    @property
    def days(self) -> int:
        return (self.end - self.start).days


def prorate(amount: Decimal, period: Period, used_until: date) -> Decimal:
    """Return the part of \`\`amount\`\` that covers \`\`period.start\`\` .. \`\`used_until\`\`."""
    if used_until <= period.start:
        return Decimal("0.00")
    if used_until >= period.end:
        return amount
    days_used = (used_until - period.start).days
    return round(amount * days_used / period.days, 2)


def credit_for_downgrade(
    old_amount: Decimal, new_amount: Decimal, period: Period, on: date
) -> Decimal:
    remaining = Period(on, period.end)
    unused_old = prorate(old_amount, period, period.end) - prorate(old_amount, period, on)
    credit = unused_old - prorate(new_amount, remaining, remaining.end)
    return max(Decimal("0.00"), credit.quantize(CENT, rounding=ROUND_HALF_UP))
`,
  'ledger/utils/dates.py': `from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

ISO_FORMAT = "%Y-%m-%dT%H:%M:%S"


def parse_iso(value: str) -> datetime:
    """Parse an ISO-8601 timestamp coming from the payment provider's webhooks."""
    return datetime.strptime(value[:19], ISO_FORMAT)


def to_utc(value: datetime) -> datetime:
    if value.tzinfo is None:
        return value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc)


def month_bounds(day: date) -> tuple[date, date]:
    start = day.replace(day=1)
    next_month = (start + timedelta(days=32)).replace(day=1)
    return start, next_month


def business_days_between(start: date, end: date) -> int:
    days = 0
    current = start
    while current < end:
        if current.weekday() < 5:
            days += 1
        current += timedelta(days=1)
    return days
`,
  'ledger/models/invoice.py': `from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from enum import Enum


class Status(str, Enum):
    DRAFT = "draft"
    OPEN = "open"
    PAID = "paid"
    VOID = "void"


@dataclass
class LineItem:
    description: str
    quantity: int
    unit_price: Decimal

    @property
    def amount(self) -> Decimal:
        return self.unit_price * self.quantity


@dataclass
class Invoice:
    id: str
    customer_id: str
    currency: str
    items: list[LineItem] = field(default_factory=list)
    discount: Decimal = Decimal("0")
    tax_rate: Decimal = Decimal("0")
    tax_exempt: bool = False
    status: Status = Status.DRAFT

    @property
    def subtotal(self) -> Decimal:
        return sum((item.amount for item in self.items), Decimal("0"))

    @property
    def total(self) -> Decimal:
        if self.tax_exempt:
            return self.subtotal
        taxable = self.subtotal - self.discount
        return (taxable * (1 + self.tax_rate)).quantize(Decimal("0.01"))
`,
  'ledger/api/pagination.py': `from __future__ import annotations

import base64
import json
from dataclasses import dataclass

from sqlalchemy import Select, tuple_

from ledger.models.tables import invoices


@dataclass(frozen=True)
class Cursor:
    created_at: str
    id: str

    def encode(self) -> str:
        raw = json.dumps({"c": self.created_at, "i": self.id}).encode()
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    @classmethod
    def decode(cls, token: str) -> Cursor:
        padded = token + "=" * (-len(token) % 4)
        data = json.loads(base64.urlsafe_b64decode(padded))
        return cls(created_at=data["c"], id=data["i"])


def paginate(query: Select, cursor: str | None, limit: int = 50) -> Select:
    if cursor:
        after = Cursor.decode(cursor)
        query = query.where(invoices.c.created_at > after.created_at)
    return query.order_by(invoices.c.created_at).limit(limit)
`,
  'ledger/importers/csv_import.py': `from __future__ import annotations

import csv
from decimal import Decimal, InvalidOperation
from pathlib import Path

from ledger.models.invoice import LineItem

REQUIRED_COLUMNS = ("description", "quantity", "unit_price")


class CsvImportError(ValueError):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line


def read_line_items(path: Path) -> list[LineItem]:
    with path.open(newline="") as handle:
        reader = csv.DictReader(handle)
        missing = [c for c in REQUIRED_COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise CsvImportError(1, f"missing columns: {', '.join(missing)}")
        items: list[LineItem] = []
        for row in reader:
            try:
                items.append(
                    LineItem(
                        description=row["description"].strip(),
                        quantity=int(row["quantity"]),
                        unit_price=Decimal(row["unit_price"]),
                    )
                )
            except (ValueError, InvalidOperation) as error:
                raise CsvImportError(reader.line_num, str(error)) from error
        return items
`,
  'ledger/api/routes.py': `from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Depends, HTTPException, Query
from sqlalchemy import select
from sqlalchemy.orm import Session

from ledger.api.deps import get_session
from ledger.api.pagination import Cursor, paginate
from ledger.models.tables import invoices
from ledger.utils.dates import parse_iso

router = APIRouter(prefix="/invoices", tags=["invoices"])


@dataclass
class InvoicePage:
    rows: list[Any]
    next_cursor: str | None


def list_invoices(session: Session, cursor: str | None = None, limit: int = 50) -> InvoicePage:
    rows = session.execute(paginate(select(invoices), cursor, limit)).all()
    next_cursor = None
    if len(rows) == limit:
        last = rows[-1]
        next_cursor = Cursor(created_at=last.created_at.isoformat(), id=last.id).encode()
    return InvoicePage(rows=list(rows), next_cursor=next_cursor)


@router.get("")
def get_invoices(
    cursor: str | None = None,
    limit: int = Query(50, le=200),
    session: Session = Depends(get_session),
) -> dict[str, Any]:
    page = list_invoices(session, cursor, limit)
    return {"data": [dict(row._mapping) for row in page.rows], "next_cursor": page.next_cursor}


@router.post("/webhooks/payment")
def payment_webhook(payload: dict[str, Any], session: Session = Depends(get_session)) -> dict[str, bool]:
    try:
        paid_at = parse_iso(payload["paid_at"])
    except (KeyError, ValueError) as error:
        raise HTTPException(status_code=400, detail=f"invalid paid_at: {error}") from error
    session.execute(
        invoices.update()
        .where(invoices.c.id == payload["invoice_id"])
        .values(status="paid", paid_at=paid_at)
    )
    session.commit()
    return {"ok": True}
`,
  'ledger/services/invoicing.py': `from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path

from ledger.billing.proration import Period, credit_for_downgrade, prorate
from ledger.importers.csv_import import read_line_items
from ledger.models.invoice import Invoice, LineItem
from ledger.utils.dates import month_bounds


def invoice_for_plan_change(
    invoice_id: str, customer_id: str, old_price: Decimal, new_price: Decimal, on: date
) -> Invoice:
    start, end = month_bounds(on)
    period = Period(start, end)
    invoice = Invoice(id=invoice_id, customer_id=customer_id, currency="EUR")
    used = prorate(old_price, period, on)
    invoice.items.append(LineItem(f"Old plan until {on.isoformat()}", 1, used))
    remaining = prorate(new_price, Period(on, end), end)
    invoice.items.append(LineItem(f"New plan from {on.isoformat()}", 1, remaining))
    credit = credit_for_downgrade(old_price, new_price, period, on)
    if credit:
        invoice.discount = credit
    return invoice


def invoice_from_csv(invoice_id: str, customer_id: str, path: Path) -> Invoice:
    invoice = Invoice(id=invoice_id, customer_id=customer_id, currency="EUR")
    invoice.items.extend(read_line_items(path))
    return invoice
`,
  'tests/billing/test_proration.py': `from datetime import date
from decimal import Decimal

from ledger.billing.proration import Period, prorate

MARCH = Period(date(2025, 3, 1), date(2025, 4, 1))


def test_full_period_returns_amount():
    assert prorate(Decimal("31.00"), MARCH, date(2025, 4, 1)) == Decimal("31.00")


def test_nothing_used():
    assert prorate(Decimal("31.00"), MARCH, date(2025, 3, 1)) == Decimal("0.00")


def test_half_month():
    assert prorate(Decimal("62.00"), MARCH, date(2025, 3, 16)) == Decimal("30.00")
`,
  'tests/utils/test_dates.py': `from datetime import date, datetime, timezone

from ledger.utils.dates import business_days_between, month_bounds, parse_iso, to_utc


def test_parse_iso_naive():
    assert parse_iso("2025-03-30T01:30:00") == datetime(2025, 3, 30, 1, 30)


def test_month_bounds_december():
    assert month_bounds(date(2024, 12, 15)) == (date(2024, 12, 1), date(2025, 1, 1))


def test_business_days_skip_weekend():
    assert business_days_between(date(2025, 3, 7), date(2025, 3, 11)) == 2
`,
  'tests/models/test_invoice.py': `from decimal import Decimal

from ledger.models.invoice import Invoice, LineItem


def make_invoice(**overrides):
    invoice = Invoice(id="inv_1", customer_id="cus_1", currency="EUR", **overrides)
    invoice.items.append(LineItem("Pro plan", 1, Decimal("100.00")))
    invoice.items.append(LineItem("Extra seat", 2, Decimal("12.50")))
    return invoice


def test_subtotal():
    assert make_invoice().subtotal == Decimal("125.00")


def test_total_with_tax_and_discount():
    invoice = make_invoice(discount=Decimal("25.00"), tax_rate=Decimal("0.19"))
    assert invoice.total == Decimal("119.00")
`,
  'tests/api/test_pagination.py': `from ledger.api.pagination import Cursor


def test_cursor_round_trip():
    cursor = Cursor(created_at="2025-05-01T10:00:00+00:00", id="inv_42")
    assert Cursor.decode(cursor.encode()) == cursor


def test_cursor_is_url_safe():
    token = Cursor(created_at="2025-05-01T10:00:00+00:00", id="inv_???").encode()
    assert "=" not in token and "+" not in token and "/" not in token
`,
  'tests/importers/test_csv_import.py': `from decimal import Decimal

import pytest

from ledger.importers.csv_import import CsvImportError, read_line_items


def test_reads_items(tmp_path):
    path = tmp_path / "items.csv"
    path.write_text("description,quantity,unit_price\\nPro plan,1,49.00\\n")
    [item] = read_line_items(path)
    assert item.unit_price == Decimal("49.00")


def test_missing_column(tmp_path):
    path = tmp_path / "items.csv"
    path.write_text("description,quantity\\nPro plan,1\\n")
    with pytest.raises(CsvImportError, match="missing columns: unit_price"):
        read_line_items(path)
`,
};

const PY_SCENARIOS: Scenario[] = [
  {
    key: 'proration',
    file: 'ledger/billing/proration.py',
    testFile: 'tests/billing/test_proration.py',
    symbol: 'prorate',
    title: 'Round prorated amounts half-up to the cent',
    commitMessage: 'fix(billing): round prorated amounts half-up like the rest of billing',
    prompts: [
      'Finance flagged that prorated credits are sometimes one cent lower than their spreadsheet (20.25 for half of April gives 10.12, they expect 10.13). Can you look at `prorate` in ledger/billing/proration.py?',
      'There is a rounding discrepancy in prorate(): amounts that end in exactly half a cent round down sometimes. Please fix and add a regression test.',
    ],
    problem: '`prorate` sometimes returns one cent less than expected (10.12 instead of 10.13)',
    cause:
      "`round()` on a `Decimal` uses the context rounding mode, which is `ROUND_HALF_EVEN` (banker's rounding), so exact halves round to the even cent, while the rest of the billing code quantizes with `ROUND_HALF_UP`.",
    fixDescription:
      'quantize the share with `CENT` and `ROUND_HALF_UP` instead of calling `round()`',
    changeSummary: 'rounded half-up',
    compat:
      'Only results that end in exactly half a cent change, and they now match `credit_for_downgrade` and the finance spreadsheet.',
    fix: {
      old: '    return round(amount * days_used / period.days, 2)',
      new: `    share = amount * Decimal(days_used) / Decimal(period.days)
    return share.quantize(CENT, rounding=ROUND_HALF_UP)`,
    },
    testAnchor: `def test_half_month():
    assert prorate(Decimal("62.00"), MARCH, date(2025, 3, 16)) == Decimal("30.00")`,
    regressionTest: `


def test_rounds_half_up_to_cents():
    # 20.25 * 15 / 30 = 10.125 -> 10.13, not banker's rounding (10.12)
    april = Period(date(2025, 4, 1), date(2025, 5, 1))
    assert prorate(Decimal("20.25"), april, date(2025, 4, 16)) == Decimal("10.13")`,
    regressionCount: 1,
    testName: 'test_rounds_half_up_to_cents',
    assertion: 'assert prorate(Decimal("20.25"), april, date(2025, 4, 16)) == Decimal("10.13")',
    error: "AssertionError: assert Decimal('10.12') == Decimal('10.13')",
    docsUrl: 'https://docs.python.org/3/library/decimal.html#decimal.Decimal.quantize',
    docsPrompt: 'Which rounding mode does round() use for Decimal, and how do I round half up?',
    docsNote:
      '`round(Decimal, n)` rounds using the rounding mode of the current context, which defaults to ROUND_HALF_EVEN. To round half up to two places use `value.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)`; `quantize` returns a value with the exponent of its first argument.',
  },
  {
    key: 'dates',
    file: 'ledger/utils/dates.py',
    testFile: 'tests/utils/test_dates.py',
    symbol: 'parse_iso',
    title: 'Keep the UTC offset when parsing webhook timestamps',
    commitMessage: 'fix(dates): keep the UTC offset in parse_iso',
    prompts: [
      'Payments that arrive around midnight are booked on the wrong day. The provider sends `paid_at` like `2025-03-30T01:30:00+02:00`. Could `parse_iso` be dropping the offset?',
      'parse_iso ignores timezone offsets. Please fix it so webhook timestamps end up correct in UTC, and add a test.',
    ],
    problem: '`parse_iso` drops the UTC offset, so webhook timestamps end up hours off',
    cause:
      '`parse_iso` cuts the string to its first 19 characters and parses it with `strptime`, which throws the offset away; `to_utc` then treats the naive value as if it were already UTC.',
    fixDescription:
      'parse with `datetime.fromisoformat`, mapping a trailing `Z` to `+00:00` for older Pythons and providers',
    changeSummary: 'kept the offset',
    compat:
      'Naive inputs still come back naive, so `test_parse_iso_naive` and the callers that pass dates without an offset behave exactly as before.',
    fix: {
      old: '    return datetime.strptime(value[:19], ISO_FORMAT)',
      new: '    return datetime.fromisoformat(value.replace("Z", "+00:00"))',
    },
    testAnchor: `def test_business_days_skip_weekend():
    assert business_days_between(date(2025, 3, 7), date(2025, 3, 11)) == 2`,
    regressionTest: `


def test_parse_iso_keeps_offset():
    parsed = parse_iso("2025-03-30T01:30:00+02:00")
    assert to_utc(parsed) == datetime(2025, 3, 29, 23, 30, tzinfo=timezone.utc)`,
    regressionCount: 1,
    testName: 'test_parse_iso_keeps_offset',
    assertion: 'assert to_utc(parsed) == datetime(2025, 3, 29, 23, 30, tzinfo=timezone.utc)',
    error:
      'AssertionError: assert datetime.datetime(2025, 3, 30, 1, 30, tzinfo=datetime.timezone.utc) == datetime.datetime(2025, 3, 29, 23, 30, tzinfo=datetime.timezone.utc)',
    docsUrl: 'https://docs.python.org/3/library/datetime.html#datetime.datetime.fromisoformat',
    docsPrompt: 'Does fromisoformat accept a Z suffix and UTC offsets?',
    docsNote:
      '`datetime.fromisoformat(date_string)` returns a datetime corresponding to a date_string in any valid ISO 8601 format. Changed in version 3.11: previously this method only supported formats that could be emitted by `isoformat()`; it now also accepts the `Z` suffix. Offsets such as `+02:00` produce an aware datetime with a fixed-offset `timezone`.',
  },
  {
    key: 'invoice',
    file: 'ledger/models/invoice.py',
    testFile: 'tests/models/test_invoice.py',
    symbol: 'Invoice.total',
    title: 'Apply discounts to tax-exempt invoices',
    commitMessage: 'fix(invoice): apply the discount to tax-exempt totals',
    prompts: [
      'A tax-exempt customer (a university) was charged the full amount although their invoice has a 25 EUR discount. Can you check `Invoice.total`?',
      'Invoice.total ignores the discount when tax_exempt is set. Please fix and cover it with a test.',
    ],
    problem: '`Invoice.total` ignores the discount when the invoice is tax-exempt',
    cause:
      '`total` returns `self.subtotal` early for tax-exempt invoices, before the discount is subtracted, and it also skips the quantization the taxed path does.',
    fixDescription:
      'compute the discounted amount first (never below zero) and return it quantized for tax-exempt invoices',
    changeSummary: 'applied the discount for tax-exempt invoices',
    compat:
      'Taxed invoices produce exactly the same totals; only tax-exempt invoices with a discount change, and a discount larger than the subtotal now yields 0.00 instead of a negative amount.',
    fix: {
      old: `        if self.tax_exempt:
            return self.subtotal
        taxable = self.subtotal - self.discount`,
      new: `        taxable = max(self.subtotal - self.discount, Decimal("0"))
        if self.tax_exempt:
            return taxable.quantize(Decimal("0.01"))`,
    },
    testAnchor: `def test_total_with_tax_and_discount():
    invoice = make_invoice(discount=Decimal("25.00"), tax_rate=Decimal("0.19"))
    assert invoice.total == Decimal("119.00")`,
    regressionTest: `


def test_tax_exempt_total_still_applies_discount():
    invoice = make_invoice(discount=Decimal("25.00"), tax_exempt=True)
    assert invoice.total == Decimal("100.00")`,
    regressionCount: 1,
    testName: 'test_tax_exempt_total_still_applies_discount',
    assertion: 'assert invoice.total == Decimal("100.00")',
    error: "AssertionError: assert Decimal('125.00') == Decimal('100.00')",
    docsUrl: 'https://docs.python.org/3/library/functions.html#max',
    docsPrompt: 'Does max() work with Decimal values?',
    docsNote:
      '`max(iterable, *, key=None)` / `max(arg1, arg2, *args, key=None)` returns the largest item. It works with any mutually comparable values, including `Decimal`; with several equal maximal items the first one encountered is returned.',
  },
  {
    key: 'cursor',
    file: 'ledger/api/pagination.py',
    testFile: 'tests/api/test_pagination.py',
    symbol: 'paginate',
    title: 'Make cursor pagination stable for equal timestamps',
    commitMessage: 'fix(api): use (created_at, id) as the pagination key',
    prompts: [
      'Our nightly export of invoices has duplicates and a few missing rows. The importer created many invoices with the same created_at. Can you check the cursor pagination?',
      'GET /invoices pages repeat and skip rows when invoices share a timestamp. Please fix paginate() and add a test.',
    ],
    problem: 'cursor pagination skips rows when several invoices share a `created_at`',
    cause:
      'the cursor only compares `created_at > after.created_at` and the query orders by `created_at` alone, so rows with the same timestamp as the last row of a page are either skipped or returned in an unstable order.',
    fixDescription:
      'order by `(created_at, id)` and compare the cursor with a row-value comparison on the same pair',
    changeSummary: 'used `(created_at, id)` as the key',
    compat:
      'Cursor tokens keep the same format because `Cursor` already carried the id, so links handed out before the deploy keep working.',
    fix: {
      old: `        query = query.where(invoices.c.created_at > after.created_at)
    return query.order_by(invoices.c.created_at).limit(limit)`,
      new: `        query = query.where(
            tuple_(invoices.c.created_at, invoices.c.id) > tuple_(after.created_at, after.id)
        )
    return query.order_by(invoices.c.created_at, invoices.c.id).limit(limit)`,
    },
    testAnchor: `def test_cursor_is_url_safe():
    token = Cursor(created_at="2025-05-01T10:00:00+00:00", id="inv_???").encode()
    assert "=" not in token and "+" not in token and "/" not in token`,
    regressionTest: `


def test_pages_do_not_skip_equal_timestamps(db_session, make_invoices):
    from ledger.api.routes import list_invoices

    make_invoices(count=5, created_at="2025-05-01T10:00:00+00:00")
    first = list_invoices(db_session, limit=3)
    second = list_invoices(db_session, cursor=first.next_cursor, limit=3)
    assert len(first.rows) + len(second.rows) == 5`,
    regressionCount: 1,
    testName: 'test_pages_do_not_skip_equal_timestamps',
    assertion: 'assert len(first.rows) + len(second.rows) == 5',
    error: 'assert (3 + 0) == 5',
    docsUrl:
      'https://docs.sqlalchemy.org/en/20/core/sqlelement.html#sqlalchemy.sql.expression.tuple_',
    docsPrompt: 'How do I write a row-value comparison (a, b) > (x, y)?',
    docsNote:
      '`tuple_(*clauses)` returns a `Tuple` construct, e.g. `tuple_(table.c.col1, table.c.col2).in_([(1, 2), (5, 12)])`. Comparison operators on a tuple produce a row-value comparison such as `(col1, col2) > (:p1, :p2)`, which PostgreSQL evaluates lexicographically.',
  },
  {
    key: 'csv',
    file: 'ledger/importers/csv_import.py',
    testFile: 'tests/importers/test_csv_import.py',
    symbol: 'read_line_items',
    title: 'Accept CSV files with a UTF-8 byte order mark',
    commitMessage: 'fix(import): accept CSV files saved with a UTF-8 BOM',
    prompts: [
      'Importing line items from a CSV exported by Excel fails with "line 1: missing columns: description" although the column is clearly there. Any idea?',
      'read_line_items rejects Excel CSV exports (missing columns: description). Please make it accept them and add a test.',
    ],
    problem: 'CSV files exported by Excel fail with `missing columns: description`',
    cause:
      'Excel writes a UTF-8 byte order mark at the start of the file; opened with the default encoding, the BOM becomes part of the first header name (`\\ufeffdescription`), so the required column looks missing.',
    fixDescription: 'open the file with `encoding="utf-8-sig"`, which strips a leading BOM',
    changeSummary: 'read files with `utf-8-sig`',
    compat:
      '`utf-8-sig` reads files without a BOM exactly like `utf-8`, so existing imports are unaffected; it also stops depending on the locale encoding.',
    fix: {
      old: '    with path.open(newline="") as handle:',
      new: '    with path.open(newline="", encoding="utf-8-sig") as handle:',
    },
    testAnchor: `    with pytest.raises(CsvImportError, match="missing columns: unit_price"):
        read_line_items(path)`,
    regressionTest: `


def test_reads_excel_export_with_bom(tmp_path):
    path = tmp_path / "items.csv"
    path.write_bytes("\\ufeffdescription,quantity,unit_price\\nPro plan,1,49.00\\n".encode())
    [item] = read_line_items(path)
    assert item.description == "Pro plan"`,
    regressionCount: 1,
    testName: 'test_reads_excel_export_with_bom',
    assertion: '[item] = read_line_items(path)',
    error: 'ledger.importers.csv_import.CsvImportError: line 1: missing columns: description',
    docsUrl: 'https://docs.python.org/3/library/codecs.html#encodings-and-unicode',
    docsPrompt: 'What does the utf-8-sig codec do on decoding?',
    docsNote:
      'On decoding, the utf-8-sig codec skips the three bytes EF BB BF if they appear at the start of the data; on encoding, it writes them first. Files without a BOM decode exactly as with utf-8.',
  },
];

// ---------------------------------------------------------------------------------------
// Projects
// ---------------------------------------------------------------------------------------

const TS_INSTRUCTIONS = `# orbit-api

- Node 22, TypeScript strict mode, ESM with explicit \`.ts\` import extensions.
- Run \`npx vitest run <file>\` for focused tests and \`npx tsc --noEmit\` before finishing.
- Every bug fix comes with a regression test next to the existing ones.
- Do not add dependencies without asking. Do not touch \`migrations/\`.
- Commit messages follow Conventional Commits (\`fix(scope): ...\`).
`;

const PY_INSTRUCTIONS = `# ledger-service

- Python 3.12, type hints everywhere (\`mypy --strict\` must pass).
- Use \`Decimal\` for money, never float. Round with \`ROUND_HALF_UP\` to the cent.
- Tests: \`python -m pytest -q\`; lint with \`ruff check ledger\`.
- Each fix needs a regression test. Keep public function signatures stable.
`;

function makeProject(
  base: Omit<Project, 'files' | 'testFiles'>,
  files: Record<string, string>,
): Project {
  const map = new Map(Object.entries(files));
  const testFiles = [...map.keys()].filter((p) => p.startsWith('test/') || p.startsWith('tests/'));
  for (const s of base.scenarios) {
    const src = map.get(s.file);
    const test = map.get(s.testFile);
    if (!src?.includes(s.fix.old)) throw new Error(`scenario ${s.key}: fix.old not in ${s.file}`);
    if (!test?.includes(s.testAnchor)) throw new Error(`scenario ${s.key}: anchor not in test`);
  }
  return { ...base, files: map, testFiles };
}

export const PROJECTS: readonly Project[] = [
  makeProject(
    {
      name: 'orbit-api',
      lang: 'ts',
      repoUrl: 'git@github.com:acme-labs/orbit-api.git',
      testGlob: 'test/**/*.test.ts',
      scenarios: TS_SCENARIOS,
      instructions: TS_INSTRUCTIONS,
      testCommand: (file) => `npx vitest run ${file}`,
      fullTestCommand: 'npx vitest run',
      typecheckCommand: 'npx tsc --noEmit && echo "typecheck ok"',
      lintCommand: 'npx eslint src test && echo "lint ok"',
      lintFixCommand: 'npx eslint --fix src test && echo "lint ok"',
    },
    TS_FILES,
  ),
  makeProject(
    {
      name: 'ledger-service',
      lang: 'py',
      repoUrl: 'https://github.com/acme-labs/ledger-service.git',
      testGlob: 'tests/**/test_*.py',
      scenarios: PY_SCENARIOS,
      instructions: PY_INSTRUCTIONS,
      testCommand: (file) => `python -m pytest ${file} -q`,
      fullTestCommand: 'python -m pytest -q',
      typecheckCommand: 'mypy ledger',
      lintCommand: 'ruff check ledger tests',
      lintFixCommand: 'ruff check --fix ledger tests',
    },
    PY_FILES,
  ),
];

/**
 * The project a session works on: the one whose name is the last segment of `cwd`, else one
 * picked by the generator (always one draw, so the rest of the sequence does not depend on cwd).
 */
export function pickProject(rng: SeededRandom, cwd: string): Project {
  const drawn = rng.pick(PROJECTS);
  const base = cwd.split('/').filter(Boolean).pop();
  return PROJECTS.find((p) => p.name === base) ?? drawn;
}

export function fileContent(p: Project, rel: string): string {
  return p.files.get(rel) ?? '';
}

/** The test file after the regression test of `s` was inserted. */
export function patchedTest(p: Project, s: Scenario): string {
  return fileContent(p, s.testFile).replace(s.testAnchor, s.testAnchor + s.regressionTest);
}

export function patchedSource(p: Project, s: Scenario): string {
  return fileContent(p, s.file).replace(s.fix.old, s.fix.new);
}

/** 1-based line of the first line of `needle` in `text` (1 if absent). */
export function lineOf(text: string, needle: string, from = 0): number {
  const at = text.indexOf(needle, from);
  if (at < 0) return 1;
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < at; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

export function countTests(p: Project, content: string): number {
  const re = p.lang === 'ts' ? /^\s*it\(/gm : /^def test_/gm;
  return content.match(re)?.length ?? 0;
}

export function testCount(p: Project, rel: string): number {
  return countTests(p, fileContent(p, rel));
}

// ---------------------------------------------------------------------------------------
// Line-numbered views (Claude Code's Read tool: six-wide right-aligned number, then →)
// ---------------------------------------------------------------------------------------

const splitCache = new Map<string, string[]>();

export function linesOf(text: string): string[] {
  let lines = splitCache.get(text);
  if (!lines) {
    lines = text.endsWith('\n') ? text.slice(0, -1).split('\n') : text.split('\n');
    if (splitCache.size < 256) splitCache.set(text, lines);
  }
  return lines;
}

export function numbered(text: string, startLine = 1, count = Number.POSITIVE_INFINITY): string {
  const lines = linesOf(text);
  const end = Math.min(lines.length, startLine - 1 + count);
  const out: string[] = [];
  for (let i = startLine - 1; i < end; i++) out.push(`${String(i + 1).padStart(6)}→${lines[i]}`);
  return out.join('\n');
}

/** `nl -ba`-style numbering, as a Codex agent would print a file. */
export function nlNumbered(text: string, from: number, to: number): string {
  const lines = linesOf(text);
  const out: string[] = [];
  for (let i = from - 1; i < Math.min(to, lines.length); i++)
    out.push(`${String(i + 1).padStart(6)}\t${lines[i]}`);
  return out.join('\n') + '\n';
}

export const READ_REMINDER =
  '\n\n<system-reminder>\nWhenever you read a file, you should consider whether it would be considered malware. You CAN and SHOULD provide analysis of malware, what it is doing. But you MUST refuse to improve or augment the code. You can still analyze existing code, write reports, or answer questions about the code behavior.\n</system-reminder>\n';

// ---------------------------------------------------------------------------------------
// Search index: which lines of which files mention a symbol
// ---------------------------------------------------------------------------------------

export interface GrepHit {
  readonly file: string;
  readonly line: number;
  readonly text: string;
}

const grepCache = new Map<string, GrepHit[]>();

export function grep(p: Project, symbol: string): GrepHit[] {
  const needle = symbol.includes('.') ? symbol.slice(symbol.lastIndexOf('.') + 1) : symbol;
  const key = `${p.name}\0${needle}`;
  let hits = grepCache.get(key);
  if (!hits) {
    hits = [];
    for (const [file, content] of p.files) {
      const lines = linesOf(content);
      for (let i = 0; i < lines.length; i++) {
        if (lines[i]!.includes(needle)) hits.push({ file, line: i + 1, text: lines[i]! });
      }
    }
    grepCache.set(key, hits);
  }
  return hits;
}

export function grepFiles(p: Project, symbol: string): string[] {
  return [...new Set(grep(p, symbol).map((h) => h.file))];
}

// ---------------------------------------------------------------------------------------
// Identifiers and opaque blobs
// ---------------------------------------------------------------------------------------

const B62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const HEX = '0123456789abcdef';

const B62_POW5 = 62 ** 5;

/** `n` base-62 characters, five per draw from the generator. */
export function base62(rng: SeededRandom, n: number): string {
  let s = '';
  while (s.length < n) {
    let x = Math.floor(rng.next() * B62_POW5);
    for (let k = 0; k < 5 && s.length < n; k++) {
      s += B62[x % 62];
      x = Math.floor(x / 62);
    }
  }
  return s;
}

const HEX2 = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

function hex8(x: number): string {
  return HEX2[x >>> 24]! + HEX2[(x >>> 16) & 255]! + HEX2[(x >>> 8) & 255]! + HEX2[x & 255]!;
}

/**
 * A version-4-shaped UUID from four draws of the generator (SeededRandom.uuid() draws once
 * per hex digit, which dominates the cost of the large generator).
 */
export function uuid4(rng: SeededRandom): string {
  const a = hex8((rng.next() * 4294967296) >>> 0);
  const b = hex8((rng.next() * 4294967296) >>> 0);
  const c = (rng.next() * 4294967296) >>> 0;
  const cs = hex8(c);
  const d = hex8((rng.next() * 4294967296) >>> 0);
  return `${a}-${b.slice(0, 4)}-4${b.slice(5, 8)}-${'89ab'[c >>> 30]}${cs.slice(1, 4)}-${cs.slice(4, 8)}${d}`;
}

export function hex(rng: SeededRandom, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += HEX[Math.floor(rng.next() * 16)];
  return s;
}

/** 192 KiB of base64 text from a fixed seed; signatures and encrypted blobs are slices. */
const B64_POOL = (() => {
  const rng = new SeededRandom(0x5eed_b64);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const parts: string[] = [];
  for (let i = 0; i < 192 * 1024; i++) parts.push(alphabet[Math.floor(rng.next() * 64)]!);
  return parts.join('');
})();

export function base64Blob(rng: SeededRandom, minLen: number, maxLen: number): string {
  const len = rng.int(minLen, maxLen) & ~3;
  const at = rng.int(0, B64_POOL.length - len - 1);
  return B64_POOL.slice(at, at + len);
}

/** A 12×12 RGB PNG, for the occasional pasted screenshot. */
export const SMALL_PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAwAAAAMCAIAAADZF8uwAAAAHElEQVR42mNgENGwCUip6Fmw5cQdnOxRRYNREQBxnbmh1QHoGQAAAABJRU5ErkJggg==';

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 3.7);
}

export function hhmmss(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}

// ---------------------------------------------------------------------------------------
// Tool outputs
// ---------------------------------------------------------------------------------------

const VITEST_RULE = '⎯'.repeat(7);

function vitestTiming(rng: SeededRandom): { total: number; text: string } {
  const transform = rng.int(40, 220);
  const collect = rng.int(30, 160);
  const tests = rng.int(4, 60);
  const prepare = rng.int(60, 140);
  const total = transform + collect + tests + prepare + rng.int(80, 400);
  return {
    total,
    text: `${total}ms (transform ${transform}ms, setup 0ms, collect ${collect}ms, tests ${tests}ms, environment 0ms, prepare ${prepare}ms)`,
  };
}

function pytestDots(results: string, suffix = '[100%]'): string {
  return results + ' '.repeat(Math.max(1, 80 - results.length - suffix.length)) + suffix;
}

function pytestBanner(title: string, fill = '='): string {
  const side = Math.max(1, Math.floor((78 - title.length) / 2));
  const s = `${fill.repeat(side)} ${title} ${fill.repeat(side)}`;
  return s.length < 80 ? s + fill : s;
}

/** Output of the focused test run with the new (failing) regression test. */
export function failingTestOutput(
  p: Project,
  s: Scenario,
  testFile: string,
  testContent: string,
  cwd: string,
  startMs: number,
  rng: SeededRandom,
): string {
  const total = countTests(p, testContent);
  const start = testContent.indexOf(s.regressionTest.trim().split('\n')[0]!);
  const line = lineOf(testContent, s.assertion, Math.max(0, start));
  const lines = linesOf(testContent);
  if (p.lang === 'ts') {
    const col = (lines[line - 1] ?? '').indexOf('.to') + 1;
    const timing = vitestTiming(rng);
    const msg = s.error.replace(/^AssertionError: /, '');
    const m = /expected (.+) to be (.+?) \/\//.exec(s.error);
    const diff = m ? `\n- Expected\n+ Received\n\n- ${m[2]}\n+ ${m[1]}\n` : '';
    const ctx = [line - 2, line - 1, line]
      .filter((n) => n >= 1)
      .map((n) => `    ${String(n).padStart(3)}| ${lines[n - 1] ?? ''}`)
      .join('\n');
    return [
      '',
      ` RUN  v3.2.4 ${cwd}`,
      '',
      ` ❯ ${testFile} (${total} tests | 1 failed) ${rng.int(6, 90)}ms`,
      `   × ${s.testName} ${rng.int(1, 12)}ms`,
      `     → ${msg}`,
      '',
      `${VITEST_RULE} Failed Tests 1 ${VITEST_RULE}`,
      '',
      ` FAIL  ${testFile} > ${s.testName}`,
      s.error,
      diff,
      ` ❯ ${testFile}:${line}:${col}`,
      ctx,
      `       |${' '.repeat(Math.max(1, col))}^`,
      '',
      `${'⎯'.repeat(52)}[1/1]⎯`,
      '',
      ' Test Files  1 failed (1)',
      `      Tests  1 failed | ${total - 1} passed (${total})`,
      `   Start at  ${hhmmss(startMs)}`,
      `   Duration  ${timing.text}`,
      '',
    ].join('\n');
  }
  const idx = lines.findIndex((l) => l.startsWith(`def ${s.testName}(`));
  const body: string[] = [];
  for (let i = Math.max(0, idx); i < lines.length; i++) {
    const l = lines[i]!;
    const marker = i + 1 === line ? '>   ' : '    ';
    body.push(`${marker}${l}`);
    if (i + 1 === line) break;
  }
  const dots = '.'.repeat(total - 1) + 'F';
  return [
    pytestDots(dots),
    pytestBanner('FAILURES'),
    pytestBanner(s.testName, '_'),
    '',
    ...body,
    `E       ${s.error}`,
    '',
    `${testFile}:${line}: ${s.error.startsWith('assert') ? 'AssertionError' : s.error.split(':')[0]!.split('.').pop()}`,
    pytestBanner('short test summary info'),
    `FAILED ${testFile}::${s.testName} - ${s.error}`,
    `1 failed, ${total - 1} passed in ${(rng.int(4, 40) / 100).toFixed(2)}s`,
    '',
  ].join('\n');
}

export function passingTestOutput(
  p: Project,
  files: readonly { file: string; tests: number }[],
  cwd: string,
  startMs: number,
  rng: SeededRandom,
): string {
  const total = files.reduce((n, f) => n + f.tests, 0);
  if (p.lang === 'ts') {
    const timing = vitestTiming(rng);
    return [
      '',
      ` RUN  v3.2.4 ${cwd}`,
      '',
      ...files.map((f) => ` ✓ ${f.file} (${f.tests} tests) ${rng.int(3, 80)}ms`),
      '',
      ` Test Files  ${files.length} passed (${files.length})`,
      `      Tests  ${total} passed (${total})`,
      `   Start at  ${hhmmss(startMs)}`,
      `   Duration  ${timing.text}`,
      '',
    ].join('\n');
  }
  const dots = '.'.repeat(total);
  const rows: string[] = [];
  for (let i = 0; i < dots.length; i += 72) rows.push(dots.slice(i, i + 72));
  const pct = rows.map((r, i) =>
    pytestDots(r, `[${String(Math.round(((i * 72 + r.length) / total) * 100)).padStart(3)}%]`),
  );
  return `${pct.join('\n')}\n${total} passed in ${(rng.int(6, 90) / 100).toFixed(2)}s\n`;
}

export function allTestFiles(
  p: Project,
  extras: readonly { file: string; tests: number }[] = [],
): { file: string; tests: number }[] {
  const files = p.testFiles.map((file) => ({ file, tests: testCount(p, file) }));
  for (const extra of extras) {
    const hit = files.find((f) => f.file === extra.file);
    if (hit) hit.tests = extra.tests;
    else files.push({ ...extra });
  }
  return files;
}

/** A lint error in the freshly edited test file (an extra blank line), fixable with --fix. */
export function lintFailure(p: Project, s: Scenario, cwd: string): string {
  const content = patchedTest(p, s);
  const line = lineOf(content, s.regressionTest.trim().split('\n')[0]!) - 1;
  if (p.lang === 'ts') {
    return `\n${cwd}/${s.testFile}\n  ${line}:1  error  More than 1 blank line not allowed  no-multiple-empty-lines\n\n✖ 1 problem (1 error, 0 warnings)\n  1 error and 0 warnings potentially fixable with the \`--fix\` option.\n`;
  }
  return `${s.testFile}:${line}:1: W293 [*] Blank line contains whitespace\nFound 1 error.\n[*] 1 fixable with the \`--fix\` option.\n`;
}

export function lintFixed(p: Project): string {
  return p.lang === 'ts' ? 'lint ok\n' : 'Found 1 error (1 fixed, 0 remaining).\n';
}

export function lintOk(p: Project): string {
  return p.lang === 'ts' ? 'lint ok\n' : 'All checks passed!\n';
}

export function typecheckOk(p: Project): string {
  return p.lang === 'ts' ? 'typecheck ok\n' : 'Success: no issues found in 14 source files\n';
}

export function diffStat(p: Project, s: Scenario, testFile: string): string {
  const plus = s.fix.new.split('\n').length;
  const minus = s.fix.old.split('\n').length;
  const testPlus = s.regressionTest.split('\n').length;
  const w = Math.max(s.file.length, testFile.length);
  return [
    ` M ${s.file}`,
    `${testFile === s.testFile ? ' M' : '??'} ${testFile}`,
    ` ${s.file.padEnd(w)} | ${String(plus + minus).padStart(2)} ${'+'.repeat(plus)}${'-'.repeat(minus)}`,
    ` ${testFile.padEnd(w)} | ${String(testPlus).padStart(2)} ${'+'.repeat(testPlus)}`,
    ` 2 files changed, ${plus + testPlus} insertions(+), ${minus} deletion${minus === 1 ? '' : 's'}(-)`,
    '',
  ].join('\n');
}

// ---------------------------------------------------------------------------------------
// Prose
// ---------------------------------------------------------------------------------------

type Tpl = (s: Scenario, p: Project) => string;

export const THINK_START: readonly Tpl[] = [
  (s) =>
    `The user says ${s.problem}. Before changing anything I want to see how \`${s.symbol}\` is implemented and which tests cover it.`,
  (s) =>
    `So the report is that ${s.problem}. Let me find \`${s.symbol}\` first; there may be more than one call site that depends on the current behaviour.`,
  (s) =>
    `This sounds like a bug in \`${s.symbol}\`. Plan: locate the definition, read it together with its tests, reproduce the problem with a failing test, then fix it.`,
  (s, p) =>
    `${p.lang === 'ts' ? 'A TypeScript' : 'A Python'} bug report: ${s.problem}. I should not guess at the cause; reading \`${s.file}\` and the tests comes first.`,
];

export const THINK_EXTRA: readonly Tpl[] = [
  (s) =>
    `I should keep the public signature of \`${s.symbol}\` unchanged since other modules import it.`,
  () =>
    'The repo instructions ask for a regression test with every fix, so I will add one next to the existing tests.',
  (s, p) =>
    `The focused test command is \`${p.testCommand(s.testFile)}\`, which is much faster than the whole suite.`,
  (s) =>
    `I also want to check whether anything else relies on the current behaviour of \`${s.symbol}\`.`,
  () => 'No need to touch unrelated code here; a minimal diff is easier to review.',
  (_s, p) =>
    p.lang === 'ts'
      ? 'The project uses strict TypeScript with noUncheckedIndexedAccess, so index access needs care.'
      : 'Money is Decimal everywhere in this codebase, so any arithmetic has to stay in Decimal.',
];

export const TEXT_START: readonly Tpl[] = [
  (s) => `I'll start by finding where \`${s.symbol}\` is defined and how it's tested.`,
  (s) => `Let me look at \`${s.symbol}\` and its tests.`,
  (s) => `Let me find \`${s.symbol}\` first.`,
  (s) => `I'll track this down. First, where \`${s.symbol}\` lives and who calls it:`,
];

export const THINK_CAUSE: readonly Tpl[] = [
  (s) =>
    `Now I see the problem: ${s.cause} The simplest fix is to ${s.fixDescription}. First I'll add a regression test that fails with the current code.`,
  (s) =>
    `Found it. ${s.cause[0]!.toUpperCase()}${s.cause.slice(1)} To fix it I can ${s.fixDescription}. I'll write the test first so I can watch it fail.`,
  (s) =>
    `Reading \`${s.file}\`: ${s.cause} That matches the report exactly. I'll reproduce it with a test, then ${s.fixDescription}.`,
];

export const TEXT_CAUSE: readonly Tpl[] = [
  (s) => `Found the cause: ${s.cause} I'll add a regression test first so we can see it fail.`,
  () => "I see what's going on. Let me add a failing test that reproduces it.",
  (s) => `The bug is in \`${s.file}\`. Adding a regression test first:`,
];

export const TEXT_RUN_FAIL: readonly Tpl[] = [
  () => 'Now let me run the test to confirm it fails:',
  () => 'Running the new test against the current code:',
  (s) => `Let me confirm the test reproduces the bug in \`${s.symbol}\`:`,
];

export const THINK_AFTER_FAIL: readonly Tpl[] = [
  (s) => `The test fails the way I expected (\`${s.error}\`). Now the fix itself.`,
  (s) =>
    `Good, it reproduces: ${s.error}. I'll ${s.fixDescription} and keep the rest of the function as it is.`,
];

export const TEXT_FIX: readonly Tpl[] = [
  (s) => `The test reproduces the bug. Now the fix in \`${s.file}\`:`,
  () => 'Confirmed. Applying the fix:',
  (s) => `That's the failure from the report. Fixing \`${s.symbol}\`:`,
];

export const TEXT_RUN_PASS: readonly Tpl[] = [
  () => 'Now let me run the tests again:',
  () => 'Re-running the focused tests:',
  () => "Let's check that the test passes now:",
];

export const THINK_AFTER_PASS: readonly Tpl[] = [
  (_s, p) =>
    `All green. I should also run ${p.lang === 'ts' ? 'the type checker' : 'mypy'} since the change touches a typed code path.`,
  () => 'The focused tests pass. A quick type check will make sure nothing else broke.',
];

export const FINAL_SUMMARY: readonly ((
  s: Scenario,
  p: Project,
  testFile: string,
  total: number,
) => string)[] = [
  (s, _p, testFile, total) =>
    `**${s.title}**\n\n**Cause:** ${s.cause}\n\n**Fix:** in \`${s.file}\`, ${s.fixDescription}.\n\n**Test:** added a regression test to \`${testFile}\`; all ${total} tests in that file pass, and the type check is clean.`,
  (s, _p, testFile, total) =>
    `Done. ${s.cause[0]!.toUpperCase()}${s.cause.slice(1)}\n\nChanges:\n- \`${s.file}\`: ${s.fixDescription}\n- \`${testFile}\`: new regression test (${total} tests passing)\n\nNo other call sites needed changes.`,
  (s, _p, testFile) =>
    `The bug is fixed.\n\n- Root cause: ${s.cause}\n- Fix: ${s.fixDescription} (\`${s.file}\`).\n- Regression test in \`${testFile}\`, which failed before the change with \`${s.error}\` and passes now.`,
];

export interface QA {
  q: Tpl;
  a: (s: Scenario, p: Project, callers: string[]) => string;
}

export const QUESTIONS: readonly QA[] = [
  {
    q: (s) => `Could this break any existing callers of \`${s.symbol}\`?`,
    a: (s, _p, callers) =>
      `I don't think so. The call sites are ${callers.map((c) => `\`${c}\``).join(', ') || 'only the tests'}. ${s.compat}`,
  },
  {
    q: () =>
      'Can you explain the root cause in one paragraph? I want to put it in the PR description.',
    a: (s, _p, _c) =>
      `**Root cause:** ${s.cause}\n\n**Fix:** ${s.fixDescription}. A regression test covers the case from the report, and the existing tests are unchanged.`,
  },
  {
    q: () => 'Should we backport this to the release/3.x branch as well?',
    a: (s) =>
      `Yes, I'd backport it: the fix is a small, self-contained change in \`${s.file}\` with no new dependencies, and ${s.compat.charAt(0).toLowerCase()}${s.compat.slice(1)} The regression test should apply cleanly too.`,
  },
  {
    q: (s) => `Why not just handle this in the callers instead of changing \`${s.symbol}\`?`,
    a: (s, _p, callers) =>
      `Because every caller would have to know about the same pitfall. There are ${callers.length || 'several'} call sites today, and fixing it once in \`${s.file}\` keeps them correct, including future ones. ${s.compat}`,
  },
];

export const VERIFY_PROMPTS: readonly string[] = [
  'Run the full test suite and the linter please.',
  'Can you run everything (tests, type check, lint) before I review?',
  'Please make sure the whole suite still passes.',
];

export const COMMIT_PROMPTS: readonly string[] = [
  'Looks good. Commit it with a descriptive message.',
  'Great, please commit this.',
  'LGTM - commit and give me the hash.',
];

export const EXPLAIN_PROMPTS: readonly Tpl[] = [
  (s) => `Where else is \`${s.symbol}\` used? I want to know what this change affects.`,
  (s) => `What does \`${s.symbol}\` do exactly, and who depends on it?`,
];

export const SUBAGENT_TYPES = ['Explore', 'Explore', 'general-purpose', 'Plan'] as const;

export function subagentTask(
  s: Scenario,
  p: Project,
  type: string,
): { description: string; prompt: string } {
  if (type === 'Explore')
    return {
      description: `Find ${s.symbol} callers`,
      prompt: `Find every call site of \`${s.symbol}\` in ${p.name} (source and tests). For each one report the file and line, what it passes in, and whether it would behave differently if ${s.symbol} ${s.changeSummary}. Do not modify any files.`,
    };
  if (type === 'Plan')
    return {
      description: `Plan fix for ${s.symbol}`,
      prompt: `We need to fix this bug: ${s.problem}. Read \`${s.file}\` and \`${s.testFile}\` and propose a minimal fix plus the regression test(s) to add. Keep the public signature stable. Do not edit files; return the plan.`,
    };
  return {
    description: 'Look for similar bugs',
    prompt: `Check whether any other module in ${p.name} has the same kind of problem as \`${s.symbol}\`: ${s.cause} Report findings with file paths and line numbers; don't change any code.`,
  };
}

export const COMPACT_ANALYSIS =
  'Let me go through the conversation chronologically. The user asked for a series of bug fixes in the repository; for each one I located the code, wrote a failing regression test, applied a minimal fix and verified it with the focused tests and the type checker.';
