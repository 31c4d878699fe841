/**
 * The transcript and the tree read every real file (test/fixtures/real) the same way,
 * record by record: the status the local scanner holds after each line equals the status
 * the transcript's records say (their signals, folded in order), the tool calls each
 * leaves open are the same, and the usage of each response is the same. Both read lines
 * through one format module (src/domain/formats); a signal, closing rule or usage field
 * taught to only one of them makes this fail on the line that shows it.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { nextStatus, type StatusSignal } from '../../../src/domain/formats/statusSignal.ts';
import type { TokenUsage, TranscriptEntry } from '../../../src/domain/transcript/model.ts';
import { claudeCodeFormat } from '../../../src/domain/transcript/normalize/claudeCode.ts';
import { codexFormat } from '../../../src/domain/transcript/normalize/codex.ts';
import type { NormalizeContext, Pairing } from '../../../src/domain/transcript/normalize/types.ts';
import type { RecordIndex } from '../../../src/domain/transcript/recordIndex.ts';
import { TranscriptDocument } from '../../../src/domain/transcript/transcriptDocument.ts';
import { ClaudeCodeScanner } from '../../../src/sources/local/claudeCodeScan.ts';
import { CodexScanner } from '../../../src/sources/local/codexScan.ts';
import type { FileSummary } from '../../../src/sources/local/types.ts';
import { CASES, fixturePath, readFixture } from './realFiles.ts';

const docs: TranscriptDocument[] = [];
after(() => Promise.all(docs.map((d) => d.close())));

interface FileCase {
  fixture: string;
  harness: 'claude-code' | 'codex';
  role: 'session' | 'subagent';
}

const FILES: FileCase[] = CASES.flatMap((c) =>
  c.files.map((f) => ({
    fixture: f.fixture,
    harness: c.harness,
    role: f.layout.includes('/subagents/') ? ('subagent' as const) : ('session' as const),
  })),
);

/** The complete lines (a last line without its newline is pending in the transcript). */
function completeLines(bytes: Buffer): string[] {
  const lines = bytes.toString('utf8').split('\n');
  lines.pop(); // after the last newline: empty, or a line still being written
  return lines;
}

/** The scanner's summary after each complete line, fed one line at a time. */
function scannerByLine(file: FileCase, lines: string[]): FileSummary[] {
  const scanner =
    file.harness === 'codex'
      ? new CodexScanner('/real/rollout.jsonl')
      : new ClaudeCodeScanner('/real/s.jsonl', { role: file.role });
  return lines.map((line) => {
    scanner.feed(Buffer.from(`${line}\n`));
    return scanner.summary();
  });
}

/** The transcript's record signals, folded in order: its status after each line. */
function transcriptByLine(file: FileCase, lines: string[]): StatusSignal[] {
  const adapter = file.harness === 'codex' ? codexFormat : claudeCodeFormat;
  let status: StatusSignal = 'none';
  return lines.map((line, i) => {
    const value = JSON.parse(line) as Record<string, unknown>;
    const ctx: NormalizeContext = {
      record: i,
      source: { first: i + 1, last: i + 1 },
      maxChars: 200,
      pairedHere: () => false,
      subagentPath: () => undefined,
      cwd: undefined,
    };
    // In a main file, 1.0.x inline sidechains are a subagent's turn: they decide nothing.
    const aside = file.role === 'session' && value.isSidechain === true;
    const signal = adapter.normalize(value, ctx).signal;
    assert.ok(signal !== undefined, `${file.fixture}:${i + 1}: the record has a signal`);
    if (!aside) status = nextStatus(status, signal);
    return status;
  });
}

async function openTranscript(file: FileCase) {
  const doc = await TranscriptDocument.open(fixturePath(file.fixture), { format: file.harness });
  docs.push(doc);
  await doc.whenIndexed();
  const entries: TranscriptEntry[] = [];
  for (let start = 0; start < doc.entryCount; start += 500) {
    entries.push(...(await doc.getWindow(start, 500)).entries);
  }
  // The index's pairing (which record declared, answered or abandoned each call).
  const records = (doc as unknown as { records: RecordIndex }).records;
  return { entries, records, pairing: records.pairing };
}

/** Calls the transcript holds open after line `line` (1-based = record line - 1 + 1). */
function openCalls(pairing: Required<Pairing>, line: number, aside: Set<number>): number {
  let open = 0;
  for (const [id, record] of pairing.calls) {
    if (record >= line || aside.has(record)) continue;
    const result = pairing.results.get(id);
    const abandoned = pairing.abandoned.get(id);
    if (result !== undefined && result < line) continue;
    if (abandoned !== undefined && abandoned < line) continue;
    open++;
  }
  return open;
}

const sumUsage = (u: Partial<Record<keyof TokenUsage, number>>, into: Record<string, number>) => {
  for (const k of ['input', 'cacheRead', 'cacheWrite', 'output'] as const)
    into[k] = (into[k] ?? 0) + (u[k] ?? 0);
};

describe('the transcript and the tree agree on every real file, line by line', () => {
  for (const file of FILES) {
    test(file.fixture, async () => {
      const lines = completeLines(await readFixture(file.fixture));
      const scanned = scannerByLine(file, lines);
      const statuses = transcriptByLine(file, lines);
      const { entries, records, pairing } = await openTranscript(file);
      // One record per line, in order: record i is line i + 1.
      assert.equal(records.recordCount, lines.length);
      for (let r = 0; r < lines.length; r++) assert.equal(records.firstLine.at(r), r);

      const aside = new Set<number>();
      lines.forEach((line, i) => {
        const value = JSON.parse(line) as Record<string, unknown>;
        if (file.role === 'session' && value.isSidechain === true) aside.add(i);
      });
      for (let i = 0; i < lines.length; i++) {
        const s = scanned[i]!;
        const where = `${file.fixture}:${i + 1} (${lines[i]!.slice(0, 120)})`;
        // Status: the same end-of-turn, waiting and error signals, from the same lines.
        assert.equal(s.last.kind, statuses[i], `status after ${where}`);
        // Open tool calls: closed by the same results, prompts and turn ends.
        assert.equal(
          s.last.pendingTools.length,
          openCalls(pairing, i + 1, aside),
          `open calls after ${where}`,
        );
      }

      // Usage: the same counts, response by response (Codex: request by request, summed).
      const last = scanned.at(-1);
      const shown: Record<string, number> = {};
      const counted: Record<string, number> = {};
      for (const e of entries) if (e.usage) sumUsage(e.usage, shown);
      for (const r of last?.usage.values() ?? []) {
        sumUsage(
          { input: r.input, cacheRead: r.cacheRead, cacheWrite: r.cacheWrite, output: r.output },
          counted,
        );
      }
      if (file.harness === 'claude-code') {
        const byTurn = new Map<string, TokenUsage>();
        for (const e of entries) if (e.usage && e.turnId) byTurn.set(e.turnId, e.usage);
        for (const [key, r] of last?.usage ?? []) {
          const turn = byTurn.get(key.split(':')[0]!);
          const total = r.input + r.cacheRead + r.cacheWrite + r.output;
          if (total === 0) continue;
          assert.ok(turn, `${file.fixture}: response ${key} has its usage in the transcript`);
          assert.deepEqual(
            {
              input: turn.input ?? 0,
              cacheRead: turn.cacheRead ?? 0,
              cacheWrite: turn.cacheWrite ?? 0,
              output: turn.output ?? 0,
            },
            { input: r.input, cacheRead: r.cacheRead, cacheWrite: r.cacheWrite, output: r.output },
            `${file.fixture}: usage of response ${key}`,
          );
        }
      }
      assert.deepEqual(shown, counted, `${file.fixture}: usage in total`);
    });
  }
});
