import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { generateClaudeCodeTranscript } from '../../../../src/demo/transcripts/index.ts';
import { PREVIEW_CHARS, type ToolCallEntry } from '../../../../src/domain/transcript/model.ts';
import {
  MAX_WINDOW,
  TranscriptDocument,
} from '../../../../src/domain/transcript/transcriptDocument.ts';
import { allEntries, append, docOf, openDoc, tempFile } from './fixtures.ts';

const ts = '2026-01-01T00:00:00Z';
const prompt = (text: string) => ({
  type: 'user',
  sessionId: 's',
  timestamp: ts,
  message: { role: 'user', content: text },
});
const say = (id: string, text: string) => ({
  type: 'assistant',
  sessionId: 's',
  timestamp: ts,
  message: { id, role: 'assistant', content: [{ type: 'text', text }] },
});
const call = (id: string, name: string, input: object) => ({
  type: 'assistant',
  sessionId: 's',
  timestamp: ts,
  message: { id: `m-${id}`, role: 'assistant', content: [{ type: 'tool_use', id, name, input }] },
});
const result = (id: string, content: string, isError = false) => ({
  type: 'user',
  sessionId: 's',
  timestamp: ts,
  message: {
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: id, content, is_error: isError }],
  },
});

describe('TranscriptDocument: malformed input', () => {
  it('turns malformed lines into error entries with their line numbers; the rest renders', async () => {
    const long = `{"type":"user","message":{"content":"${'z'.repeat(1000)}`;
    const doc = await docOf([
      prompt('first'),
      '{"type":"assistant","message":', // cut mid-record, next line starts a new one
      prompt('second'),
      'not json at all',
      '',
      '   ',
      long, // unterminated string
      say('m1', 'still here'),
      '{"type":"user"}{"type":"user"}',
    ]);
    const entries = await allEntries(doc);
    assert.deepEqual(
      entries.map((e) => `${e.kind}@${e.source.first}`),
      ['user@1', 'error@2', 'user@3', 'error@4', 'error@7', 'assistant@8', 'error@9'],
    );
    const cut = entries[1]!;
    assert.ok(cut.kind === 'error' && cut.excerpt.startsWith('{"type":"assistant"'));
    assert.ok(cut.kind === 'error' && cut.message.length > 0);
    const longError = entries[4]!;
    assert.ok(longError.kind === 'error' && longError.excerpt.length < 300);
    assert.equal(longError.truncated, true);
    assert.equal(await doc.fullText(longError.index), long);
    assert.equal(doc.info().errorCount, 4);
    assert.equal(doc.nextError(-1), 1);
    assert.equal(doc.nextError(1), 3);
    assert.equal(doc.nextError(4), 6);
    assert.equal(doc.nextError(6), null);
    assert.equal(doc.nextError(6, 'previous'), 4);
    assert.equal(doc.nextError(1, 'previous'), null);
    assert.equal(doc.nextError(100, 'previous'), 6);
  });

  it('reads CRLF files, a byte order mark and pretty-printed records', async () => {
    const lines = [
      JSON.stringify(prompt('bom first')),
      ...JSON.stringify(say('m1', 'pretty'), null, 2).split('\n'),
      JSON.stringify(prompt('last')),
    ];
    const path = tempFile('\ufeff' + lines.join('\r\n') + '\r\n');
    const doc = await openDoc(path);
    const entries = await allEntries(doc);
    assert.deepEqual(
      entries.map((e) => e.kind),
      ['user', 'assistant', 'user'],
    );
    assert.equal(entries[0]!.kind === 'user' && entries[0]!.text, 'bom first');
    assert.deepEqual(entries[1]!.source, { first: 2, last: lines.length - 1 });
    assert.equal(entries[2]!.source.first, lines.length);
  });
});

describe('TranscriptDocument: a live file', () => {
  it('tolerates a truncated last line, then completes it after append + refresh', async () => {
    const complete = JSON.stringify(say('m2', 'the rest arrives later'));
    const cut = 30;
    const path = tempFile(
      `${JSON.stringify(prompt('hi'))}\n${JSON.stringify(call('t1', 'Bash', { command: 'make' }))}\n${complete.slice(0, cut)}`,
    );
    const doc = await openDoc(path);
    assert.equal(doc.entryCount, 2);
    assert.deepEqual(doc.info().pending, { firstLine: 3, bytes: cut });
    assert.equal(doc.info().errorCount, 0);
    const before = (await doc.getWindow(0, 10)).entries;
    assert.equal((before[1] as ToolCallEntry).status, 'pending');

    append(path, `${complete.slice(cut)}\n${JSON.stringify(result('t1', 'built'))}\n`);
    const refreshed = await doc.refresh();
    assert.deepEqual(refreshed, { entryCount: 3, appendedEntries: 1, reset: false });
    assert.equal(doc.info().pending, null);
    const after = (await doc.getWindow(0, 10)).entries;
    assert.deepEqual(
      after.slice(0, 1),
      before.slice(0, 1),
      'earlier entries keep their index and content',
    );
    assert.equal((after[1] as ToolCallEntry).output, 'built');
    assert.equal(after[2]!.kind === 'assistant' && after[2]!.text, 'the rest arrives later');
  });

  it('keeps a half-written pretty-printed record pending until it is complete', async () => {
    const pretty = JSON.stringify(say('m1', 'pretty'), null, 2).split('\n');
    const path = tempFile([JSON.stringify(prompt('hi')), ...pretty.slice(0, 4)].join('\n') + '\n');
    const doc = await openDoc(path);
    assert.equal(doc.entryCount, 1);
    assert.equal(doc.info().pending?.firstLine, 2);
    append(path, pretty.slice(4).join('\n') + '\n');
    await doc.refresh();
    assert.equal(doc.entryCount, 2);
    assert.equal(doc.info().pending, null);
    assert.equal(doc.info().errorCount, 0);
  });

  it('indexes again from the start when the file is replaced by a shorter one', async () => {
    const path = tempFile(
      [prompt('a'), prompt('b'), prompt('c')].map((l) => JSON.stringify(l)).join('\n') + '\n',
    );
    const doc = await openDoc(path);
    assert.equal(doc.entryCount, 3);
    assert.equal((await doc.search('b')).total, 1);
    writeFileSync(path, JSON.stringify(prompt('z')) + '\n');
    const refreshed = await doc.refresh();
    assert.equal(refreshed.reset, true);
    assert.equal(doc.entryCount, 1);
    const [only] = (await doc.getWindow(0, 5)).entries;
    assert.equal(only!.kind === 'user' && only!.text, 'z');
    assert.equal((await doc.search('b')).total, 0);
  });

  it('serves the first window before the whole file is indexed', async () => {
    const { main } = generateClaudeCodeTranscript({
      seed: 3,
      sessionId: 's',
      cwd: '/w',
      model: 'm',
      startedAt: ts,
      turns: 30,
    });
    const path = tempFile(main);
    const progress: number[] = [];
    const doc = await TranscriptDocument.open(path, {
      chunkBytes: 16 * 1024,
      readyEntries: 20,
      onProgress: (p) => progress.push(p.entryCount),
    });
    const early = doc.entryCount;
    const window = await doc.getWindow(0, 20);
    assert.equal(window.entries.length, 20);
    await doc.whenIndexed();
    assert.ok(early >= 20 && early < doc.entryCount, `${early} < ${doc.entryCount}`);
    assert.equal(doc.complete, true);
    assert.equal(progress.at(-1), doc.entryCount);
    assert.deepEqual((await doc.getWindow(0, 20)).entries.slice(0, 5), window.entries.slice(0, 5));
    await doc.close();
  });
});

describe('TranscriptDocument: big texts and distance', () => {
  it('caps a 5 MB line in windows and returns it whole from fullText', async () => {
    const huge = 'x'.repeat(5 * 1024 * 1024) + 'END';
    const output = 'y'.repeat(PREVIEW_CHARS + 10) + 'TAIL';
    const doc = await docOf([
      prompt(huge),
      call('t1', 'Read', { file_path: '/a' }),
      result('t1', output),
    ]);
    const [user, read] = (await doc.getWindow(0, 5)).entries;
    assert.ok(user!.kind === 'user');
    assert.equal(user!.text.length, PREVIEW_CHARS);
    assert.equal(user!.truncated, true);
    assert.deepEqual(user!.truncatedParts, ['text']);
    assert.equal(user!.fullLength?.text, huge.length);
    assert.equal(await doc.fullText(0), huge);
    const tool = read as ToolCallEntry;
    assert.equal(tool.output?.length, PREVIEW_CHARS);
    assert.deepEqual(tool.truncatedParts, ['output']);
    assert.equal(tool.fullLength?.output, output.length);
    assert.equal(await doc.fullText(1, 'output'), output);
    assert.equal(await doc.fullText(1, 'input'), '{\n  "file_path": "/a"\n}');
    assert.equal(await doc.fullText(1), null, 'a tool call has no plain text part');
    assert.equal(await doc.fullText(99), null);
    // Window JSON stays small: it crosses to the webview.
    assert.ok(JSON.stringify(await doc.getWindow(0, 5)).length < 3 * PREVIEW_CHARS);
  });

  it('pairs a result thousands of lines after its call, across chunks', async () => {
    const filler = Array.from({ length: 4000 }, (_, i) => say(`f${i}`, `filler ${i}`));
    const doc = await docOf(
      [call('far', 'Bash', { command: 'sleep 100' }), ...filler, result('far', 'woke up', true)],
      {
        chunkBytes: 8 * 1024,
      },
    );
    assert.equal(doc.entryCount, 4001, 'the result line folds into the call');
    const [first] = (await doc.getWindow(0, 1)).entries;
    const tool = first as ToolCallEntry;
    assert.equal(tool.output, 'woke up');
    assert.equal(tool.status, 'error');
    assert.deepEqual(tool.resultSource, { first: 4002, last: 4002 });
    const last = (await doc.getWindow(4000, 10)).entries;
    assert.equal(last.length, 1);
    assert.equal(last[0]!.kind === 'assistant' && last[0]!.text, 'filler 3999');
  });
});

describe('TranscriptDocument: windows', () => {
  it('clips windows at both ends and never returns more than MAX_WINDOW', async () => {
    const doc = await docOf(Array.from({ length: 1500 }, (_, i) => prompt(`p${i}`)));
    const text = (w: { entries: { kind: string }[] }) =>
      w.entries.map((e) => (e as unknown as { text: string }).text);
    assert.deepEqual(text(await doc.getWindow(0, 3)), ['p0', 'p1', 'p2']);
    const last = await doc.getWindow(1498, 10);
    assert.deepEqual(text(last), ['p1498', 'p1499']);
    assert.equal(last.start, 1498);
    assert.equal(last.total, 1500);
    assert.equal(last.complete, true);
    const beyond = await doc.getWindow(2000, 10);
    assert.deepEqual([beyond.start, beyond.entries.length], [1500, 0]);
    const negative = await doc.getWindow(-5, 2);
    assert.deepEqual([negative.start, ...text(negative)], [0, 'p0', 'p1']);
    assert.equal((await doc.getWindow(10, 0)).entries.length, 0);
    assert.equal((await doc.getWindow(Number.NaN, 1)).start, 0);
    assert.equal((await doc.getWindow(0, 5000)).entries.length, MAX_WINDOW);
    assert.equal((await doc.getWindow(0, Number.POSITIVE_INFINITY)).entries.length, MAX_WINDOW);
  });

  it('is empty for an empty file', async () => {
    const doc = await openDoc(tempFile(''));
    assert.equal(doc.entryCount, 0);
    assert.deepEqual((await doc.getWindow(0, 10)).entries, []);
    assert.deepEqual(await doc.search('x'), { index: null, ordinal: 0, total: 0, complete: true });
    assert.equal(doc.nextError(0), null);
    assert.equal(doc.info().pending, null);
  });
});

describe('TranscriptDocument: search', () => {
  const lines = [
    prompt('Please fix the Parser'), // 0
    call('t1', 'Grep', { pattern: 'parseDuration' }), // 1 (+ result)
    result('t1', 'src/a.ts:3: the PARSER lives here'),
    say('m1', 'He said "quoted"\nthen a new line'), // 2
    say('m2', 'Ärger mit Umlauten'), // 3
    prompt('nothing to see'), // 4
    say('m3', `${'w'.repeat(PREVIEW_CHARS + 50)} deep needle`), // 5
  ];

  it('finds next/previous with a total count, wrapping at the ends', async () => {
    const doc = await docOf(lines);
    assert.deepEqual(await doc.search('parser'), {
      index: 0,
      ordinal: 1,
      total: 2,
      complete: true,
    });
    assert.deepEqual(await doc.search('parser', { from: 0 }), {
      index: 1,
      ordinal: 2,
      total: 2,
      complete: true,
    });
    assert.equal((await doc.search('parser', { from: 1 })).index, 0, 'wraps');
    assert.equal((await doc.search('parser', { from: 1, wrap: false })).index, null);
    assert.equal((await doc.search('parser', { direction: 'previous' })).index, 1);
    assert.equal((await doc.search('parser', { direction: 'previous', from: 1 })).index, 0);
    assert.equal(
      (await doc.search('parser', { direction: 'previous', from: 0, wrap: false })).index,
      null,
    );
    assert.equal((await doc.search('Parser', { caseSensitive: true })).total, 1);
  });

  it('matches what the user sees: outputs count for the call, keys do not, texts beyond the preview do', async () => {
    const doc = await docOf(lines);
    assert.equal((await doc.search('lives here')).index, 1);
    assert.equal((await doc.search('sessionId')).total, 0, 'a JSON key is not text');
    assert.equal((await doc.search('tool_result')).total, 0);
    assert.equal((await doc.search('said "quoted"\nthen')).index, 2);
    assert.equal((await doc.search('ärger')).index, 3);
    assert.equal((await doc.search('deep needle')).index, 5);
    assert.equal((await doc.search('grep')).index, 1, 'tool names');
    assert.equal((await doc.search('no such text')).total, 0);
    assert.equal((await doc.search('')).total, 0);
  });
});

describe('TranscriptDocument: format detection', () => {
  it('detects Codex and Claude Code, including a pretty-printed first record', async () => {
    const codex = await docOf([{ timestamp: ts, type: 'session_meta', payload: { id: 'x' } }]);
    assert.equal(codex.format, 'codex');
    const legacy = await docOf([
      { id: 'x', timestamp: ts, instructions: 'hi' },
      { record_type: 'state' },
    ]);
    assert.equal(legacy.format, 'codex');
    const claude = await openDoc(
      tempFile(
        JSON.stringify(prompt('x'), null, 2) +
          '\n' +
          JSON.stringify({ ...prompt('y'), parentUuid: null }) +
          '\n',
      ),
    );
    assert.equal(claude.format, 'claude-code');
    const unknown = await docOf([{ hello: 'world' }]);
    assert.equal(unknown.format, 'claude-code');
    const [entry] = (await unknown.getWindow(0, 1)).entries;
    assert.equal(entry!.kind, 'unknown');
  });
});
