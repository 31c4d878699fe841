import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SeededRandom } from '../../../../src/demo/random.ts';
import {
  generateClaudeCodeTranscript,
  generateCodexTranscript,
} from '../../../../src/demo/transcripts/index.ts';
import type { TranscriptEntry } from '../../../../src/domain/transcript/model.ts';
import type { TranscriptDocument } from '../../../../src/domain/transcript/transcriptDocument.ts';
import { openDoc, tempFile } from './fixtures.ts';

/** Reads the whole transcript in windows of random sizes. */
async function randomWindows(
  doc: TranscriptDocument,
  rng: SeededRandom,
): Promise<TranscriptEntry[]> {
  const out: TranscriptEntry[] = [];
  while (out.length < doc.entryCount) {
    const window = await doc.getWindow(out.length, rng.int(1, 40));
    assert.equal(window.start, out.length);
    out.push(...window.entries);
  }
  return out;
}

describe('index plans vs normalized records', () => {
  for (const seed of [1, 2, 3, 4]) {
    it(`agree for generated Claude Code and Codex files (seed ${seed})`, async () => {
      const rng = new SeededRandom(seed);
      const claude = generateClaudeCodeTranscript({
        seed,
        sessionId: `s${seed}`,
        cwd: '/w',
        model: 'claude-opus-4-1',
        startedAt: '2026-03-01T00:00:00Z',
        turns: 6,
        subagents: seed % 3,
        compaction: seed % 2 === 0,
        quirks: true,
        version: seed === 1 ? '1.0.80' : undefined,
      });
      const codex = generateCodexTranscript({
        seed,
        sessionId: `c${seed}`,
        cwd: '/w',
        model: 'gpt-5-codex',
        startedAt: '2026-03-01T00:00:00Z',
        turns: 6,
        compaction: seed % 2 === 1,
        legacy: seed === 4,
      });
      for (const text of [claude.main, ...claude.subagents.map((s) => s.content), codex]) {
        const doc = await openDoc(tempFile(text), { chunkBytes: 1024 + seed * 333 });
        const whole = (await doc.getWindow(0, doc.entryCount)).entries;
        assert.equal(doc.fitCorrections, 0, 'every record produced its planned entries');
        assert.deepEqual(await randomWindows(doc, rng), whole, 'windows agree at any boundary');
        // Plain data: survives the JSON and structured-clone trips to the webview unchanged.
        assert.deepEqual(JSON.parse(JSON.stringify(whole)), whole);
        assert.deepEqual(structuredClone(whole), whole);
        for (const entry of whole) {
          for (const [key, value] of Object.entries(entry))
            assert.notEqual(value, undefined, `${entry.kind}.${key} is undefined`);
        }
      }
    });
  }
});
