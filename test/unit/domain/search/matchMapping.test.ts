import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  classifyMatch,
  kindPasses,
  normalizeLine,
} from '../../../../src/domain/search/classifyMatch.ts';
import { locateMatch, snippetOf } from '../../../../src/domain/search/jsonMatch.ts';
import { entryForMatch } from '../../../../src/domain/search/matchEntry.ts';
import { TranscriptDocument } from '../../../../src/domain/transcript/transcriptDocument.ts';

const SHORT = 'test/fixtures/real/claude/spotter/transcripts/short.jsonl';
const CODEX =
  'test/fixtures/real/codex/localpush/sessions/rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl';

/** Line `n` (1-based) of a fixture as bytes, and where `needle` (as written in the file) is in it. */
function lineOf(path: string, n: number, needle: string, nth = 0) {
  const bytes = Buffer.from(readFileSync(path, 'utf8').split('\n')[n - 1]!, 'utf8');
  const raw = Buffer.from(needle, 'utf8');
  let at = bytes.indexOf(raw);
  for (let i = 0; i < nth; i++) at = bytes.indexOf(raw, at + 1);
  assert.ok(at >= 0, `${needle} on line ${n}`);
  return { bytes, start: at, end: at + raw.length };
}

describe('locateMatch: a byte match in a JSONL line', () => {
  it('finds a match in a string value with its key path (a real Claude Code prompt)', () => {
    const { bytes, start, end } = lineOf(SHORT, 4, 'phx.server');
    const m = locateMatch(bytes, start, end);
    assert.equal(m.place, 'value');
    assert.deepEqual(m.path, ['message', 'content']);
    assert.equal(m.value, 'mix phx.server doesnt seem to start');
    assert.equal(m.value.slice(m.start, m.end), 'phx.server');
    assert.equal(m.text, 'phx.server');
  });

  it('tells a key and the structure from a value', () => {
    const key = lineOf(SHORT, 4, '"gitBranch"');
    const inKey = locateMatch(key.bytes, key.start + 1, key.end - 1);
    assert.equal(inKey.place, 'key');
    assert.equal(inKey.text, 'gitBranch');
    const quote = locateMatch(key.bytes, key.end - 1, key.end + 1); // `":`
    assert.equal(quote.place, 'structure');
    const obj = lineOf(SHORT, 4, '"isSidechain":false');
    const literal = locateMatch(obj.bytes, obj.end - 5, obj.end);
    assert.equal(literal.place, 'structure');
    assert.equal(literal.text, 'false');
  });

  it('counts array indices in the path (an assistant content block)', () => {
    const { bytes, start, end } = lineOf(SHORT, 8, 'head -80');
    const m = locateMatch(bytes, start, end);
    assert.equal(m.place, 'value');
    assert.deepEqual(m.path, ['message', 'content', 0, 'input', 'command']);
    assert.equal(m.value, 'mix phx.server 2>&1 | head -80');
  });

  it('unescapes the match and its string: quotes, newlines, \\u escapes, raw UTF-8', () => {
    const line = Buffer.from(
      JSON.stringify({ a: { b: ['x', 'say "hi"\nthen café — naïve \u00e9t\u00e9'] } }).replace(
        'été',
        '\\u00e9t\\u00e9',
      ),
      'utf8',
    );
    const raw = line.toString('utf8');
    const at = (s: string) => Buffer.byteLength(raw.slice(0, raw.indexOf(s)));
    const q = locateMatch(line, at('\\"hi\\"'), at('\\"hi\\"') + Buffer.byteLength('\\"hi\\"'));
    assert.equal(q.text, '"hi"');
    assert.deepEqual(q.path, ['a', 'b', 1]);
    assert.equal(q.value, 'say "hi"\nthen café — naïve été');
    assert.equal(q.value.slice(q.start, q.end), '"hi"');
    // A match that starts inside an escape sequence widens to the whole character.
    const u = at('\\u00e9t\\u00e9');
    const e = locateMatch(line, u + 2, u + 13);
    assert.equal(e.text, 'été');
    const cafe = locateMatch(line, at('café'), at('café') + Buffer.byteLength('café'));
    assert.equal(cafe.text, 'café');
    assert.equal(cafe.value.slice(cafe.start, cafe.end), 'café');
  });

  it('a line that is not JSON is all structure', () => {
    const line = Buffer.from('not json at all', 'utf8');
    const m = locateMatch(line, 4, 8);
    assert.equal(m.place, 'structure');
    assert.equal(m.text, 'json');
  });
});

describe('snippetOf', () => {
  it('keeps the match highlighted in one line of context', () => {
    const value = `${'a'.repeat(200)} the\nquick brown fox jumps over the lazy dog ${'b'.repeat(300)}`;
    const at = value.indexOf('fox');
    const s = snippetOf(value, at, at + 3);
    assert.ok(!s.text.includes('\n'));
    assert.equal(s.text.slice(s.highlight[0], s.highlight[1]), 'fox');
    assert.ok(s.text.startsWith('…') && s.text.endsWith('…'));
    assert.ok(s.text.length < 140);
  });
});

describe('classifyMatch: the entry a match belongs to, by the format normalizer', () => {
  const classify = (path: string, format: 'claude-code' | 'codex', n: number, needle: string) => {
    const { bytes, start, end } = lineOf(path, n, needle);
    const m = locateMatch(bytes, start, end);
    const record = normalizeLine(format, bytes.toString('utf8'), n);
    return classifyMatch(record, m.text);
  };

  it('user prompt, thinking, tool input and tool output (real Claude Code lines)', () => {
    assert.deepEqual(classify(SHORT, 'claude-code', 4, 'phx.server'), {
      kind: 'user',
      timestamp: JSON.parse(readFileSync(SHORT, 'utf8').split('\n')[3]!).timestamp,
    });
    assert.equal(classify(SHORT, 'claude-code', 6, 'trouble starting').kind, 'thinking');
    assert.equal(classify(SHORT, 'claude-code', 7, 'project structure').kind, 'assistant');
    assert.equal(classify(SHORT, 'claude-code', 8, 'head -80').kind, 'tool-call');
    assert.equal(classify(SHORT, 'claude-code', 11, 'proceed with this tool').kind, 'tool-output');
  });

  it('a value no entry shows is metadata (the working directory of a prompt line)', () => {
    assert.equal(
      classify(SHORT, 'claude-code', 4, '/home/marco/projects/spotter').kind,
      'metadata',
    );
    assert.equal(classify(SHORT, 'claude-code', 4, '55604662-cf2a').kind, 'metadata');
  });

  it('reads Codex lines with the Codex normalizer (a real rollout)', () => {
    assert.equal(classify(CODEX, 'codex', 9, 'len=86 sha=2239bcba').kind, 'user');
    assert.equal(classify(CODEX, 'codex', 17, 'len=124 sha=7a220b7e').kind, 'assistant');
    assert.equal(classify(CODEX, 'codex', 18, 'exec_command').kind, 'tool-call');
    // The event copy of the same message is not shown as its own entry.
    assert.equal(classify(CODEX, 'codex', 16, 'len=124 sha=7a220b7e').kind, 'metadata');
    assert.equal(classify(CODEX, 'codex', 12, 'on-request').kind, 'metadata');
  });

  it('kind filters: metadata never passes; thinking counts as assistant; output as tool', () => {
    assert.equal(kindPasses('metadata', 'all'), false);
    assert.equal(kindPasses('thinking', 'assistant'), true);
    assert.equal(kindPasses('tool-output', 'tool'), true);
    assert.equal(kindPasses('tool-call', 'user'), false);
    assert.equal(kindPasses('system', 'all'), true);
    assert.equal(kindPasses('system', 'assistant'), false);
  });
});

describe('entryForMatch: the panel entry for a line and a text', () => {
  it('maps lines to the entries the transcript view shows (real Claude Code file)', async () => {
    const doc = await TranscriptDocument.open(SHORT);
    try {
      await doc.whenIndexed();
      const at = async (line: number, text: string) => {
        const index = await entryForMatch(doc, { line, text, caseSensitive: false });
        assert.notEqual(index, undefined);
        return (await doc.getWindow(index!, 1)).entries[0]!;
      };
      const prompt = await at(4, 'PHX.server');
      assert.equal(prompt.kind, 'user');
      assert.equal(prompt.source.first, 4);
      const thinking = await at(6, 'trouble starting');
      assert.equal(thinking.kind, 'thinking');
      const text = await at(7, 'project structure');
      assert.equal(text.kind, 'assistant');
      // A tool result folds into its call: the call's entry, whose result is on line 11.
      const result = await at(11, 'proceed with this tool');
      assert.equal(result.kind, 'tool-call');
      assert.ok(result.kind === 'tool-call' && result.resultSource?.first === 11);
      assert.ok(result.source.first < 11);
    } finally {
      await doc.close();
    }
  });
});
