/**
 * Bad input is read around, counted and reported with line numbers; never a crash and
 * never silently dropped.
 */
import assert from 'node:assert/strict';
import { chmod, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ClaudeCodeScanner } from '../../../../src/sources/local/claudeCodeScan.ts';
import { CodexScanner } from '../../../../src/sources/local/codexScan.ts';
import type { LineScanner } from '../../../../src/sources/local/engine/lineScanner.ts';
import { LocalIndex } from '../../../../src/sources/local/localIndex.ts';
import { ScanCache } from '../../../../src/sources/local/scanCache.ts';
import type { FileSummary, LocalProblem } from '../../../../src/sources/local/types.ts';
import {
  assistant,
  codexMeta,
  jsonl,
  prompt,
  scanClaude,
  scanCodex,
  sum,
  tempDir,
  tokenCount,
  turnContext,
  usage,
  writeAt,
} from './fixtures.ts';

const kinds = (problems: LocalProblem[]) => problems.map((p) => `${p.kind}@${p.line ?? '-'}`);

describe('lines', () => {
  test('a pretty-printed entry is read as one entry, and reported', () => {
    const text =
      jsonl(prompt('first')) +
      JSON.stringify(prompt('Pretty {not a brace} "quoted"', 5), null, 2) +
      '\n' +
      jsonl(assistant({ usage: usage(1, 9) }));
    const s = scanClaude(text);
    assert.equal(s.usage.size, 1, 'the line after the block is read');
    assert.deepEqual(kinds(s.problems), ['pretty-printed@2']);
    assert.match(s.problems[0]!.message, /Lines 2–\d+/);
    // Read in 7-byte chunks: the same result.
    assert.deepEqual(kinds(scanClaude(text, 'session', 7).problems), ['pretty-printed@2']);
  });

  test('a pretty-printed first prompt titles the session', () => {
    const s = scanClaude(JSON.stringify(prompt('Multi-line prompt'), null, 2) + '\n');
    assert.equal(s.title, 'Multi-line prompt');
  });

  test('invalid lines are skipped with their line numbers; the rest is read', () => {
    const s = scanClaude(
      jsonl(
        prompt('a'),
        'not json at all',
        '{"type":"assistant","message":',
        assistant({ usage: usage(1, 5) }),
      ),
    );
    assert.equal(sum(s.usage.values()).output, 5);
    assert.deepEqual(kinds(s.problems), ['invalid-json@2', 'invalid-json@3']);
  });

  test('an unfinished block followed by a whole entry: the block is reported, the entry read', () => {
    const s = scanClaude('{\n  "type": "user",\n' + jsonl(assistant({ usage: usage(1, 5) })));
    assert.equal(sum(s.usage.values()).output, 5);
    assert.deepEqual(kinds(s.problems), ['invalid-json@1']);
  });

  test('a value the skim accepts but JSON.parse rejects is reported, not thrown', () => {
    const line = JSON.stringify(assistant()).replace('"input_tokens":10', '"input_tokens":1e');
    const s = scanClaude(jsonl(prompt('a')) + line + '\n');
    assert.deepEqual(kinds(s.problems), ['invalid-json@2']);
  });

  test('a count JSON.parse rejects (0100, .5, 0x10, nul…) makes its line a problem in full and usage-only reads', () => {
    // Number() alone takes several of these (0x10 is 16); JSON.parse, and so ccusage, none.
    const scanners = {
      claude: () => new ClaudeCodeScanner('/t/S1.jsonl', { role: 'session' }),
      codex: () => new CodexScanner('/t/rollout.jsonl'),
    };
    const read = (
      make: () => LineScanner & { summary(): FileSummary },
      text: string,
      usageOnly: boolean,
    ) => {
      const s = make();
      if (usageOnly) s.skipStatus();
      s.feed(Buffer.from(text));
      s.finish();
      return s.summary();
    };
    const tokens = (summary: FileSummary) =>
      [...summary.usage.values()].map((u) => [u.input, u.output]);
    const odd = (line: object, from: string, value: string) =>
      JSON.stringify(line).replace(from, `"input_tokens":${value}`) + '\n';
    for (const value of [
      '0100',
      '-01',
      '.5',
      '1.',
      '1e',
      '0x10',
      '-Infinity',
      '+1',
      'nul',
      'truex',
    ]) {
      const claude =
        jsonl(prompt('a'), assistant({ usage: usage(1, 5) })) +
        odd(
          assistant({ id: 'm2', requestId: 'r2', usage: usage(10, 20) }),
          '"input_tokens":10',
          value,
        );
      const codex =
        jsonl(
          codexMeta(),
          turnContext('gpt-5', 1),
          tokenCount({ input: 10, cached: 0, output: 5, reasoning: 0 }, 2),
        ) +
        odd(
          tokenCount({ input: 100, cached: 0, output: 7, reasoning: 0 }, 3),
          '"input_tokens":100',
          value,
        );
      for (const usageOnly of [false, true]) {
        const how = `${value}, ${usageOnly ? 'usage only' : 'full read'}`;
        const c = read(scanners.claude, claude, usageOnly);
        assert.deepEqual(tokens(c), [[1, 5]], how);
        assert.deepEqual(kinds(c.problems), ['invalid-json@3'], how);
        const x = read(scanners.codex, codex, usageOnly);
        assert.deepEqual(tokens(x), [[10, 5]], how);
        assert.deepEqual(kinds(x.problems), ['invalid-json@4'], how);
      }
    }
    // JSON numbers and other JSON values still read as before: a number, else no count.
    for (const [value, input] of [
      ['0', 0],
      ['-0', 0],
      ['1e3', 1000],
      ['0.5e1', 5],
      ['"7"', 0],
      ['null', 0],
    ] as const) {
      const claude =
        jsonl(prompt('a')) + odd(assistant({ usage: usage(10, 20) }), '"input_tokens":10', value);
      for (const usageOnly of [false, true]) {
        const c = read(scanners.claude, claude, usageOnly);
        assert.deepEqual(tokens(c), [[input, 20]], value);
        assert.deepEqual(c.problems, [], value);
      }
    }
  });

  test('lone surrogates are kept, reported, and repaired in titles', () => {
    const s = scanClaude(jsonl(prompt('broken \ud83d emoji'), assistant()));
    assert.deepEqual(kinds(s.problems), ['lone-surrogate@1']);
    assert.equal(s.title, 'broken \ufffd emoji');
    // A proper pair written as escapes is fine.
    assert.deepEqual(
      scanClaude('{"type":"user","message":{"content":"ok \\ud83d\\ude00"}}\n').problems,
      [],
    );
  });

  test('a 1.5 MB line (a pasted image) is read and is not a problem', () => {
    const image = {
      ...prompt('look', 1),
      message: {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          {
            type: 'image',
            source: { type: 'base64', media_type: 'image/png', data: 'A'.repeat(1_500_000) },
          },
        ],
      },
    };
    const s = scanClaude(jsonl(image, assistant({ usage: usage(2, 3) })));
    assert.deepEqual(kinds(s.problems), []);
    assert.equal(s.title, 'look');
    assert.equal(sum(s.usage.values()).output, 3);
  });

  test('a truncated last line is reported as waiting for its end and not counted', () => {
    const whole = JSON.stringify(assistant({ id: 'm2', usage: usage(1, 99) }));
    const s = scanClaude(
      jsonl(prompt('a'), assistant({ usage: usage(1, 5) })) + whole.slice(0, 80),
    );
    assert.equal(sum(s.usage.values()).output, 5);
    assert.deepEqual(kinds(s.problems), ['truncated-line@3']);
  });

  test('a last line without a newline that is complete is read', () => {
    const s = scanClaude(jsonl(prompt('a')) + JSON.stringify(assistant({ usage: usage(1, 5) })));
    assert.equal(sum(s.usage.values()).output, 5);
    assert.deepEqual(s.problems, []);
  });

  test('CRLF line endings and blank lines', () => {
    const s = scanClaude(jsonl(prompt('a'), assistant()).replaceAll('\n', '\r\n') + '\r\n\n  \n');
    assert.deepEqual(s.problems, []);
    assert.equal(s.usage.size, 1);
    assert.equal(s.lines, 5);
  });

  test('unknown line types are counted once per type', () => {
    const s = scanClaude(
      jsonl(
        prompt('a'),
        { type: 'tag', tag: 'x' },
        { type: 'tag' },
        { type: 'mystery' },
        { noType: 1 },
      ),
    );
    assert.deepEqual(kinds(s.problems).sort(), [
      'unknown-type@2',
      'unknown-type@4',
      'unknown-type@5',
    ]);
    assert.match(s.problems.find((p) => p.line === 2)!.message, /2 lines/);
  });

  test('Codex: null models and odd lines do not stop the scan', () => {
    const s = scanCodex(
      jsonl(
        codexMeta(),
        { timestamp: '2026-07-01T10:00:01Z', type: 'turn_context', payload: { model: null } },
        '[1,2,3]',
        { timestamp: 'x', type: 'event_msg', payload: 'not an object' },
        tokenCount({ input: 10, cached: 0, output: 5, reasoning: 0 }, 3),
        turnContext('gpt-5', 4),
      ),
    );
    assert.equal(sum(s.usage.values()).output, 5);
    assert.equal([...s.usage.values()][0]!.model, undefined);
    assert.deepEqual(kinds(s.problems), ['invalid-json@3', 'invalid-entry@4']);
  });
});

describe('files', () => {
  test('an unreadable file is reported and its session still listed', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const project = join(dir, 'claude', 'projects', '-p');
      await writeAt(join(project, 'ok.jsonl'), jsonl(prompt('fine'), assistant()));
      const locked = join(project, 'locked.jsonl');
      await writeAt(locked, jsonl(prompt('secret'), assistant()));
      await chmod(locked, 0);
      const index = new LocalIndex({
        claudeConfigDirs: [join(dir, 'claude')],
        codexHome: join(dir, 'none'),
      });
      const snap = await index.refresh();
      assert.equal(snap.sessions.length, 2);
      if (process.getuid?.() !== 0) {
        assert.ok(snap.problems.some((p) => p.kind === 'unreadable' && p.path === locked));
        const row = snap.sessions.find((s) => s.path === locked)!.summary;
        assert.equal(row.label, 'Claude Code session locked');
      }
    } finally {
      await cleanup();
    }
  });

  test('a file that cannot be read (gone, or not a file) becomes a problem, not a throw', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const cache = new ScanCache();
      const folder = join(dir, 'a-folder.jsonl');
      await mkdir(folder);
      for (const path of [join(dir, 'gone.jsonl'), folder]) {
        const s = await cache.scan({
          path,
          harness: 'claude-code',
          role: 'session',
          size: 10,
          mtimeMs: 1,
          ino: 1,
          dev: 1,
          root: dir,
        });
        assert.deepEqual(
          s.problems.map((p) => p.kind),
          ['unreadable'],
          path,
        );
      }
    } finally {
      await cleanup();
    }
  });

  test('a subagent meta file that is not JSON is reported; the subagent keeps its own title', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const sub = join(dir, 'claude', 'projects', '-p', 'S1', 'subagents');
      await writeAt(join(sub, 'agent-a1.jsonl'), jsonl(prompt('Sub task'), assistant()));
      await writeAt(join(sub, 'agent-a1.meta.json'), '{oops');
      const index = new LocalIndex({
        claudeConfigDirs: [join(dir, 'claude')],
        codexHome: join(dir, 'none'),
      });
      const snap = await index.refresh();
      assert.ok(
        snap.problems.some((p) => p.kind === 'invalid-json' && p.path?.endsWith('.meta.json')),
      );
      assert.equal(snap.sessions[0]!.summary.label, 'Sub task');
    } finally {
      await cleanup();
    }
  });
});
