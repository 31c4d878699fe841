/**
 * Fuzzing the local transcript scanners (Claude Code, Codex) fed bytes: files made of
 * real lines, mutated records, damaged bytes, pretty-printed entries and garbage, read
 * whole and in random chunks, with and without the deferred status pass. Properties:
 * nothing escapes (bad input becomes a problem with a line number); chunking does not
 * change the summary; the deferred status pass arrives where an eager read does; a read
 * for usage only gives the usage report's facts of a full read (and Codex's read shortcuts
 * change nothing against its reads without them); a valid
 * line reads the same whether or not a malformed line precedes it.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { ClaudeCodeScanner } from '../../../src/sources/local/claudeCodeScan.ts';
import { CodexScanner } from '../../../src/sources/local/codexScan.ts';
import type { LineScanner } from '../../../src/sources/local/engine/lineScanner.ts';
import type { FileSummary } from '../../../src/sources/local/types.ts';
import { usageFacts } from '../sources/local/usageFacts.ts';
import { corpus, validLines, type FormatCorpus } from './corpus.ts';
import {
  byteEdit,
  damage,
  fc,
  fuzz,
  jsonish,
  mutate,
  mutation,
  newlines,
  prettyJson,
  rawBytes,
} from './support.ts';

const { claude, codex } = corpus();

type Harness = 'claude' | 'codex';

function scanner(harness: Harness): ClaudeCodeScanner | CodexScanner {
  return harness === 'claude'
    ? new ClaudeCodeScanner('/fuzz/S1.jsonl', { role: 'session', sessionId: 'S1' })
    : new CodexScanner('/fuzz/rollout.jsonl');
}

/** One line's bytes (no newline of its own, though damage may add some). */
function lineOf(c: FormatCorpus): fc.Arbitrary<Buffer> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...c.lines).map((l) => Buffer.from(l)) },
    {
      weight: 4,
      arbitrary: fc
        .tuple(fc.constantFrom(...c.records), fc.array(mutation, { minLength: 1, maxLength: 3 }))
        .map(([r, m]) => Buffer.from(JSON.stringify(mutate(r, m)) ?? 'null')),
    },
    {
      weight: 3,
      arbitrary: fc
        .tuple(fc.constantFrom(...c.lines), fc.array(byteEdit, { minLength: 1, maxLength: 3 }))
        .map(([l, e]) => damage(Buffer.from(l), e)),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...c.records), fc.array(mutation, { maxLength: 2 }))
        .map(([r, m]) => Buffer.from(prettyJson(mutate(r, m)))),
    },
    { weight: 1, arbitrary: jsonish.map((v) => Buffer.from(JSON.stringify(v) ?? '')) },
    { weight: 1, arbitrary: rawBytes },
  );
}

/** A file: lines joined by \n or \r\n, the last newline there or not. */
function fileOf(c: FormatCorpus): fc.Arbitrary<Buffer> {
  return fc
    .tuple(fc.array(lineOf(c), { minLength: 1, maxLength: 8 }), fc.boolean(), fc.boolean())
    .map(([lines, crlf, finalNewline]) => {
      const nl = Buffer.from(crlf ? '\r\n' : '\n');
      const parts: Buffer[] = [];
      lines.forEach((line, i) => {
        parts.push(line);
        if (i < lines.length - 1 || finalNewline) parts.push(nl);
      });
      return Buffer.concat(parts);
    });
}

/** Reads `bytes` as ScanCache does on a first read: in chunks, then finish(). */
function read(s: LineScanner, bytes: Buffer, cuts: readonly number[] = []): void {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  let from = 0;
  for (const at of [...points, bytes.length]) {
    if (at > from) s.feed(bytes.subarray(from, at));
    from = Math.max(from, at);
  }
  s.finish();
}

/** ScanCache's read from the start: status deferred, then the second pass over the end. */
function readDeferred(s: LineScanner, bytes: Buffer, cuts: readonly number[]): void {
  s.deferStatus();
  read(s, bytes, cuts);
  const replay = s.statusReplay();
  if (!replay) return;
  replay.scanner.feed(bytes.subarray(replay.from));
  replay.scanner.finish();
  s.adoptStatus(replay.scanner);
}

function checkSummary(summary: FileSummary, bytes: Buffer): void {
  const nl = newlines(bytes);
  assert.ok(summary.lines === nl || summary.lines === nl + 1, `lines ${summary.lines} of ${nl}`);
  assert.equal(summary.bytes, bytes.length);
  for (const p of summary.problems) {
    assert.equal(typeof p.kind, 'string');
    assert.equal(typeof p.message, 'string');
    if (p.line !== undefined) {
      assert.ok(Number.isInteger(p.line) && p.line >= 1 && p.line <= nl + 1, `line ${p.line}`);
    }
  }
  for (const r of summary.usage.values()) {
    for (const n of [r.input, r.output, r.cacheRead, r.cacheWrite, r.reasoning]) {
      assert.ok(Number.isFinite(n) && n >= 0, `count ${n}`);
    }
  }
}

/** Whether a summary holds nothing but problems (as an empty file's summary). */
function contributesNothing(s: FileSummary, harness: Harness): boolean {
  const empty = scanner(harness).summary();
  const strip = (x: FileSummary) => ({ ...x, problems: [], lines: 0, bytes: 0 });
  return isDeepStrictEqual(strip(s), strip(empty));
}

const cuts = fc.array(fc.nat(), { maxLength: 6 });

describe('fuzz: local scanners fed bytes', () => {
  for (const [harness, c] of [
    ['claude', claude],
    ['codex', codex],
  ] as const) {
    test(`${harness}: bad input is reported, never thrown; chunking changes nothing`, (t) => {
      fuzz(
        t,
        `localScan/${harness}/chunks`,
        fc.tuple(
          fc.oneof(
            { weight: 5, arbitrary: fileOf(c) },
            { weight: 1, arbitrary: fileOf(harness === 'claude' ? codex : claude) },
          ),
          cuts,
        ),
        ([bytes, at]) => {
          const whole = scanner(harness);
          read(whole, bytes);
          const summary = whole.summary();
          checkSummary(summary, bytes);
          const chunked = scanner(harness);
          read(chunked, bytes, at);
          assert.deepEqual(chunked.summary(), summary);
        },
      );
    });

    test(`${harness}: the deferred status pass arrives where an eager read does`, (t) => {
      fuzz(t, `localScan/${harness}/deferred-status`, fc.tuple(fileOf(c), cuts), ([bytes, at]) => {
        const eager = scanner(harness);
        read(eager, bytes);
        const deferred = scanner(harness);
        readDeferred(deferred, bytes, at);
        assert.deepEqual(deferred.summary(), eager.summary());
      });
    });

    test(`${harness}: a read for usage only gives what the usage report reads of a full one`, (t) => {
      fuzz(
        t,
        `localScan/${harness}/usage-only`,
        fc.tuple(
          fc.oneof(
            { weight: 5, arbitrary: fileOf(c) },
            { weight: 1, arbitrary: fileOf(harness === 'claude' ? codex : claude) },
          ),
          cuts,
          cuts,
        ),
        ([bytes, at, atUsage]) => {
          const full = scanner(harness);
          readDeferred(full, bytes, at);
          const usageOnly = scanner(harness);
          usageOnly.skipStatus();
          read(usageOnly, bytes, atUsage);
          assert.equal(usageOnly.statusReplay(), undefined);
          // Problems may differ: a line this read does not interpret is not checked further.
          assert.deepEqual(usageFacts(usageOnly.summary()), usageFacts(full.summary()));
          if (harness === 'codex') {
            // Codex's shortcuts (payloads from skimmed fields, token counts the kernel read)
            // change nothing, problems included, against its reads without them.
            const withoutShortcuts = (usage: boolean) => {
              const s = new CodexScanner('/fuzz/rollout.jsonl');
              Object.assign(s, { skimmedPayload: () => false, kernelReadTotal: () => false });
              if (usage) s.skipStatus();
              read(s, bytes, usage ? atUsage : at);
              return s.summary();
            };
            assert.deepEqual(usageOnly.summary(), withoutShortcuts(true));
            assert.deepEqual(full.summary(), withoutShortcuts(false));
          }
        },
      );
    });

    test(`${harness}: a valid line reads the same after a malformed line`, (t) => {
      fuzz(
        t,
        `localScan/${harness}/after-malformed`,
        fc.tuple(
          fc.constantFrom(...validLines(c)),
          fc.oneof(
            // A line cut short, damaged, or garbage: nothing the skim accepts.
            fc
              .tuple(
                fc.constantFrom(...c.lines),
                fc.array(byteEdit, { minLength: 1, maxLength: 3 }),
              )
              .map(([l, e]) => damage(Buffer.from(l), e)),
            rawBytes,
          ),
        ),
        ([valid, bad]) => {
          const malformed = Buffer.from(bad.toString('latin1').replace(/[\r\n]/g, ' '), 'latin1');
          // Malformed as the scanner sees it: reported, not read. (The skim checks structure
          // only, so a line with a damaged scalar may still be read, by design.)
          const own = scanner(harness);
          read(own, Buffer.concat([malformed, Buffer.from('\n')]));
          fc.pre(contributesNothing(own.summary(), harness));
          const alone = scanner(harness);
          read(alone, Buffer.from(valid + '\n'));
          const after = scanner(harness);
          read(after, Buffer.concat([malformed, Buffer.from('\n' + valid + '\n')]));
          const a = alone.summary();
          const b = after.summary();
          // Codex keys usage by line number; Claude Code by response id.
          assert.deepEqual([...b.usage.values()], [...a.usage.values()]);
          assert.deepEqual(b.models, a.models);
          assert.equal(b.title, a.title);
          assert.equal(b.firstMs, a.firstMs);
          assert.equal(b.lastMs, a.lastMs);
          assert.equal(b.last.kind, a.last.kind);
          assert.deepEqual(b.last.pendingTools, a.last.pendingTools);
        },
      );
    });
  }
});
