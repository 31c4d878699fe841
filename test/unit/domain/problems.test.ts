import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { problemLogLine, problemRow, summarizeProblems } from '../../../src/domain/problems.ts';

describe('summarizeProblems', () => {
  it('counts per kind, most frequent first, then by name', () => {
    assert.equal(
      summarizeProblems([
        { kind: 'unreadable', message: 'x' },
        { kind: 'invalid-json', message: 'x' },
        { kind: 'truncated-line', message: 'x' },
        { kind: 'invalid-json', message: 'x' },
      ]),
      '4 problems (invalid-json 2, truncated-line 1, unreadable 1)',
    );
    assert.equal(
      summarizeProblems([{ kind: 'symlink-loop', message: 'x' }]),
      '1 problem (symlink-loop 1)',
    );
    assert.equal(summarizeProblems([]), 'no problems');
  });
});

describe('problemLogLine', () => {
  it('puts the place first and keeps the message on one line', () => {
    assert.equal(
      problemLogLine({ kind: 'invalid-json', message: 'bad\nline', path: '/t/a.jsonl', line: 7 }),
      '/t/a.jsonl:7 invalid-json: bad line',
    );
    assert.equal(
      problemLogLine({ kind: 'missing-folder', message: 'not found', path: '/t/codex' }),
      '/t/codex missing-folder: not found',
    );
    assert.equal(problemLogLine({ kind: 'other', message: 'm' }), 'other: m');
  });
});

describe('problemRow', () => {
  it('a line in a transcript: message, file:line, full path in the tooltip, opens the file', () => {
    const row = problemRow({
      kind: 'invalid-json',
      message: 'Line 12 is not valid JSON',
      path: '/home/u/.claude/projects/-home-u-api/0b7c.jsonl',
      line: 12,
    });
    assert.deepEqual(row, {
      label: 'Line 12 is not valid JSON',
      description: '0b7c.jsonl:12',
      tooltip: '/home/u/.claude/projects/-home-u-api/0b7c.jsonl:12\ninvalid-json',
      file: '/home/u/.claude/projects/-home-u-api/0b7c.jsonl',
      line: 12,
    });
  });

  it('a folder cannot be opened as a file; a problem without a path shows its kind', () => {
    const folder = problemRow({
      kind: 'symlink-loop',
      message: 'loop',
      path: '/t/claude/projects/loop',
    });
    assert.equal(folder.file, undefined);
    assert.equal(folder.description, 'loop');
    assert.equal(folder.line, undefined);
    const meta = problemRow({
      kind: 'invalid-json',
      message: 'm',
      path: 'C:\\t\\agent-1.meta.json',
    });
    assert.equal(meta.file, 'C:\\t\\agent-1.meta.json');
    assert.equal(meta.description, 'agent-1.meta.json');
    const bare = problemRow({ kind: 'other', message: '  ' });
    assert.deepEqual([bare.label, bare.description, bare.tooltip], ['other', 'other', 'other']);
  });
});
