/**
 * Fuzzing the transcript file readers on real files: the line index (jsonlIndex.ts),
 * and the whole document (record index, record reader, the Claude Code and Codex
 * normalisers) over files of real lines, mutated records, damaged bytes and garbage.
 * Properties: nothing escapes; N newline-terminated lines index as N lines and read back
 * as written; every entry of every window reads (full text too) and matches the plan
 * made while indexing; a valid line reads the same whether or not a malformed one
 * precedes it; appending in parts indexes like writing at once.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, truncate, writeFile, appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { JsonlIndex } from '../../../src/domain/transcript/jsonlIndex.ts';
import type { TranscriptEntry } from '../../../src/domain/transcript/model.ts';
import {
  MAX_WINDOW,
  TranscriptDocument,
} from '../../../src/domain/transcript/transcriptDocument.ts';
import { corpus, validLines, type FormatCorpus } from './corpus.ts';
import {
  byteEdit,
  damage,
  fc,
  fuzzAsync,
  jsonish,
  mutate,
  mutation,
  newlines,
  prettyJson,
  rawBytes,
} from './support.ts';

const { claude, codex } = corpus();

let dir: string;
let n = 0;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'asi-fuzz-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});
const nextPath = () => join(dir, `f${n++}.jsonl`);

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
      weight: 2,
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

function fileOf(c: FormatCorpus, maxLines = 10): fc.Arbitrary<Buffer> {
  return fc
    .tuple(
      fc.array(lineOf(c), { minLength: 1, maxLength: maxLines }),
      fc.boolean(),
      fc.boolean(),
      fc.boolean(),
    )
    .map(([lines, crlf, finalNewline, bom]) => {
      const nl = Buffer.from(crlf ? '\r\n' : '\n');
      const parts: Buffer[] = bom ? [Buffer.from([0xef, 0xbb, 0xbf])] : [];
      lines.forEach((line, i) => {
        parts.push(line);
        if (i < lines.length - 1 || finalNewline) parts.push(nl);
      });
      return Buffer.concat(parts);
    });
}

/** Every entry through windows of the document, and (with `full`) the full text of each. */
async function readEverything(doc: TranscriptDocument, full = true): Promise<TranscriptEntry[]> {
  const total = doc.entryCount;
  const entries: TranscriptEntry[] = [];
  for (let start = 0; start < total; start += MAX_WINDOW) {
    const w = await doc.getWindow(start, MAX_WINDOW);
    assert.equal(w.start, start);
    entries.push(...w.entries);
  }
  assert.equal(entries.length, total);
  entries.forEach((e, i) => assert.equal(e.index, i));
  for (const e of full ? entries.slice(0, 40) : []) {
    await doc.fullText(e.index, 'text');
    if (e.kind === 'tool-call') {
      await doc.fullText(e.index, 'input');
      await doc.fullText(e.index, 'output');
    }
  }
  return entries;
}

/** An entry without where it sits (index, source lines), for comparing two files. */
function placeless(e: TranscriptEntry): unknown {
  return { ...e, index: 0, source: undefined };
}

describe('fuzz: JSONL line index', () => {
  test('N newline-terminated lines index as N lines and read back as written', async (t) => {
    await fuzzAsync(
      t,
      'jsonlIndex/lines',
      fc.tuple(
        fc.oneof(fileOf(claude, 6), fileOf(codex, 6), rawBytes),
        fc.integer({ min: 64, max: 512 }),
        fc.nat(),
      ),
      async ([bytes, chunkBytes, cut]) => {
        const path = nextPath();
        const split = cut % (bytes.length + 1);
        await writeFile(path, bytes.subarray(0, split));
        const index = await JsonlIndex.open(path, { chunkBytes });
        try {
          await index.refresh();
          await appendFile(path, bytes.subarray(split));
          const run = await index.refresh();
          assert.equal(run.reset, false);
          const lines = newlines(bytes);
          assert.equal(index.lineCount, lines);
          const lastNl = bytes.lastIndexOf(0x0a);
          assert.equal(index.indexedBytes, lastNl + 1);
          assert.equal(index.pendingBytes, bytes.length - lastNl - 1);
          const expected = bytes
            .subarray(0, lastNl + 1)
            .toString('utf8')
            .split('\n')
            .slice(0, lines)
            .map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
          assert.deepEqual(await index.readLines(0, lines), expected);
          if (lines > 1) assert.deepEqual(await index.readLines(1, 1), [expected[1]]);
          // Shrunk in place: indexed again from the start.
          await truncate(path, split);
          const again = await index.refresh();
          assert.equal(again.reset, split < lastNl + 1);
          assert.equal(index.lineCount, newlines(bytes.subarray(0, split)));
        } finally {
          await index.close();
        }
      },
    );
  });
});

describe('fuzz: transcript documents', () => {
  for (const [format, c, other] of [
    ['claude-code', claude, codex],
    ['codex', codex, claude],
  ] as const) {
    test(`${format}: every window and full text reads; entries match the plan`, async (t) => {
      await fuzzAsync(
        t,
        `transcript/${format}`,
        fc.tuple(
          fc.oneof({ weight: 6, arbitrary: fileOf(c) }, { weight: 1, arbitrary: fileOf(other) }),
          fc.boolean(),
        ),
        async ([bytes, auto]) => {
          const path = nextPath();
          await writeFile(path, bytes);
          const doc = await TranscriptDocument.open(path, {
            format: auto ? 'auto' : format,
            readyEntries: 1,
            chunkBytes: 4096,
          });
          try {
            await doc.whenIndexed();
            const info = doc.info();
            assert.equal(info.lineCount, newlines(bytes));
            await readEverything(doc);
            assert.equal(doc.fitCorrections, 0, 'a record produced other entries than planned');
            for (let e = doc.nextError(-1); e !== null; e = doc.nextError(e)) {
              assert.ok(e >= 0 && e < doc.entryCount);
            }
            await doc.search('e');
            await doc.search('"', { caseSensitive: true, direction: 'previous' });
          } finally {
            await doc.close();
          }
        },
      );
    });

    test(`${format}: a valid line reads the same after a malformed line`, async (t) => {
      await fuzzAsync(
        t,
        `transcript/${format}/after-malformed`,
        fc.tuple(
          fc.constantFrom(...validLines(c)),
          fc.oneof(
            fc
              .tuple(
                fc.constantFrom(...c.lines),
                fc.array(byteEdit, { minLength: 1, maxLength: 3 }),
              )
              .map(([l, e]) => damage(Buffer.from(l), e)),
            rawBytes,
          ),
        ),
        async ([valid, bad]) => {
          const malformed = bad.toString('latin1').replace(/[\r\n]/g, ' ');
          let parsed = true;
          try {
            JSON.parse(Buffer.from(malformed, 'latin1').toString('utf8'));
          } catch {
            parsed = false;
          }
          fc.pre(!parsed && malformed.trim() !== '');
          // One path for both files: subagent links are made from the file's name.
          const path = nextPath();
          const read = async (bytes: Buffer) => {
            await writeFile(path, bytes);
            const doc = await TranscriptDocument.open(path, { format, readyEntries: 1 });
            try {
              await doc.whenIndexed();
              return { entries: await readEverything(doc, false), errors: doc.info().errorCount };
            } finally {
              await doc.close();
            }
          };
          const alone = await read(Buffer.from(valid + '\n'));
          const after = await read(
            Buffer.concat([Buffer.from(malformed, 'latin1'), Buffer.from('\n' + valid + '\n')]),
          );
          assert.equal(after.errors, alone.errors + 1, 'the malformed line is one error entry');
          assert.equal(after.entries[0]?.kind, 'error');
          assert.deepEqual(after.entries.slice(1).map(placeless), alone.entries.map(placeless));
        },
      );
    });
  }
});
