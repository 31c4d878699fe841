import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JsonlIndex, type LineSink } from '../../../../src/domain/transcript/jsonlIndex.ts';
import { append, tempFile } from './fixtures.ts';

class Collect implements LineSink {
  lines: string[] = [];
  resets = 0;
  line(buf: Buffer, start: number, end: number, index: number): void {
    assert.equal(index, this.lines.length, 'lines arrive in order');
    this.lines.push(buf.toString('utf8', start, end));
  }
  reset(): void {
    this.resets++;
    this.lines = [];
  }
}

describe('JsonlIndex', () => {
  it('indexes lines across chunk boundaries and reads any range back', async () => {
    const lines = Array.from(
      { length: 300 },
      (_, i) => `{"n":${i},"pad":"${'x'.repeat(i % 37)}é"}`,
    );
    const path = tempFile(lines.join('\n') + '\n');
    const sink = new Collect();
    const progress: number[] = [];
    const index = await JsonlIndex.open(path, {
      chunkBytes: 64, // forces lines to straddle chunks and the buffer to carry
      sink,
      onProgress: (p) => progress.push(p.bytesIndexed),
    });
    const run = await index.refresh();
    assert.equal(run.appendedLines, 300);
    assert.equal(index.lineCount, 300);
    assert.deepEqual(sink.lines, lines);
    assert.deepEqual(await index.readLines(0, 3), lines.slice(0, 3));
    assert.deepEqual(await index.readLines(297, 10), lines.slice(297));
    assert.deepEqual(await index.readLines(150, 1), [lines[150]]);
    assert.deepEqual(await index.readLines(400, 5), []);
    assert.equal(index.pendingBytes, 0);
    assert.ok(progress.length > 10, 'progress after every chunk');
    assert.deepEqual(
      [...progress].sort((a, b) => a - b),
      progress,
      'progress only grows',
    );
    await index.close();
  });

  it('grows its buffer for a line longer than a chunk', async () => {
    const long = `{"big":"${'y'.repeat(10_000)}"}`;
    const path = tempFile(`{"a":1}\n${long}\n{"b":2}\n`);
    const sink = new Collect();
    const index = await JsonlIndex.open(path, { chunkBytes: 256, sink });
    await index.refresh();
    assert.deepEqual(sink.lines, ['{"a":1}', long, '{"b":2}']);
    assert.deepEqual(await index.readLines(1, 1), [long]);
    await index.close();
  });

  it('keeps an unfinished last line pending and picks it up after the file grows', async () => {
    const path = tempFile('{"a":1}\n{"b":');
    const sink = new Collect();
    const index = await JsonlIndex.open(path, { sink });
    await index.refresh();
    assert.equal(index.lineCount, 1);
    assert.equal(index.pendingBytes, 5);
    append(path, '2}\r\n{"c":3}\n');
    const run = await index.refresh();
    assert.equal(run.appendedLines, 2);
    assert.equal(run.reset, false);
    assert.deepEqual(sink.lines, ['{"a":1}', '{"b":2}\r', '{"c":3}']);
    assert.deepEqual(await index.readLines(0, 3), ['{"a":1}', '{"b":2}', '{"c":3}']);
    assert.equal(index.pendingBytes, 0);
    await index.close();
  });

  it('starts over when the file shrinks', async () => {
    const path = tempFile('{"a":1}\n{"b":2}\n');
    const sink = new Collect();
    const index = await JsonlIndex.open(path, { sink });
    await index.refresh();
    tempFile('{"z":9}\n', path.split('/').pop());
    const run = await index.refresh();
    assert.equal(run.reset, true);
    assert.equal(sink.resets, 1);
    assert.deepEqual(sink.lines, ['{"z":9}']);
    assert.equal(index.lineCount, 1);
    await index.close();
  });

  it('handles an empty file and a file without any newline', async () => {
    const empty = await JsonlIndex.open(tempFile(''));
    await empty.refresh();
    assert.equal(empty.lineCount, 0);
    assert.deepEqual(await empty.readLines(0, 10), []);
    await empty.close();
    const partial = await JsonlIndex.open(tempFile('{"a":'));
    await partial.refresh();
    assert.equal(partial.lineCount, 0);
    assert.equal(partial.pendingBytes, 5);
    await partial.close();
  });
});
