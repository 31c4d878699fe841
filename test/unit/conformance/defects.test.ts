/**
 * The defects of issue #16, each on a real file (test/fixtures/real). Where no licensed
 * real file shows the situation (SOURCES.md, "Gaps"), the test builds it from a real file
 * by a transformation written out here, never by editing a fixture: the session as it
 * stood when a given line was written (the file up to that line), a 2.0.x flat subagent
 * layout (a real subagent file moved beside its parent), a resumed session that writes its
 * history again (a real file's lines appended again), a new Codex turn after a call (real
 * lines of the same rollout appended), a pasted image (a real prompt line given an image
 * block). Each says so where it does it.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { TranscriptEntry } from '../../../src/domain/transcript/model.ts';
import { TranscriptDocument } from '../../../src/domain/transcript/transcriptDocument.ts';
import { ClaudeCodeScanner } from '../../../src/sources/local/claudeCodeScan.ts';
import { CodexScanner } from '../../../src/sources/local/codexScan.ts';
import { LocalIndex } from '../../../src/sources/local/localIndex.ts';
import { deriveLocalStatus } from '../../../src/sources/local/localStatus.ts';
import type { FileSummary } from '../../../src/sources/local/types.ts';
import { buildUsageReport, utcDay } from '../../../src/sources/local/usageReport.ts';
import {
  fixturePath,
  lastTimestamp,
  layOut,
  readFixture,
  realCase,
  writeReconstructed,
} from './realFiles.ts';

const MIN = 60_000;
const B1 = 'claude/entire-checkpoints/b1/5d3b4e29e9/0/full.jsonl'; // 2.1.17
const A6 = 'claude/entire-checkpoints/a6/e4c2a0fbd1/0/full.jsonl'; // 2.0.76
const SUBAGENT = 'claude/spotter/transcripts/subagent.jsonl'; // 2.1.38
const P258 = '258c7280-ae70-4798-800f-63464d01a85d';
const PARENT = `claude/spotter/transcripts/${P258}.jsonl`; // 2.1.39
const CODEX_TINY =
  'codex/localpush/sessions/rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl';
const CODEX_LONG =
  'codex/localpush/sessions/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl';

let tmp: string;
const docs: TranscriptDocument[] = [];
before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'asi-real-defects-'));
});
after(async () => {
  await Promise.all(docs.map((d) => d.close()));
  await rm(tmp, { recursive: true, force: true });
});

/** The complete lines of a real file (without their newlines). */
async function linesOf(fixture: string): Promise<string[]> {
  const text = (await readFixture(fixture)).toString('utf8');
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/** Lines 1..n of a real file: the file as it stood when line n had just been written. */
async function upTo(fixture: string, n: number): Promise<string> {
  return (await linesOf(fixture)).slice(0, n).join('\n') + '\n';
}

function scan(
  text: string | Buffer,
  harness: 'claude-code' | 'codex',
  role: 'session' | 'subagent' = 'session',
): FileSummary {
  const s =
    harness === 'codex'
      ? new CodexScanner('/real/rollout.jsonl')
      : new ClaudeCodeScanner('/real/s.jsonl', { role });
  s.feed(Buffer.isBuffer(text) ? text : Buffer.from(text));
  s.finish();
  return s.summary();
}

/** The derived status `age` after the last line was written, as `status (raw)`. */
function statusAt(
  summary: FileSummary,
  age: number,
  harness: 'claude-code' | 'codex' = 'claude-code',
) {
  const lastWriteMs = summary.lastMs;
  const s = deriveLocalStatus({
    harness,
    role: summary.role,
    facts: summary.last,
    lastWriteMs,
    now: lastWriteMs + age,
  });
  return `${s.status}${s.outcome ? `/${s.outcome}` : ''} (${s.raw})`;
}

async function transcript(path: string, format: 'claude-code' | 'codex') {
  const doc = await TranscriptDocument.open(path, { format });
  docs.push(doc);
  await doc.whenIndexed();
  const entries: TranscriptEntry[] = [];
  for (let start = 0; start < doc.entryCount; start += 500) {
    entries.push(...(await doc.getWindow(start, 500)).entries);
  }
  return { doc, entries };
}

const kinds = (entries: TranscriptEntry[]) => {
  const out: Record<string, number> = {};
  for (const e of entries) out[e.kind] = (out[e.kind] ?? 0) + 1;
  return out;
};

const usageSum = (entries: TranscriptEntry[]) =>
  entries.reduce(
    (t, e) => ({
      input: t.input + (e.usage?.input ?? 0),
      output: t.output + (e.usage?.output ?? 0),
      cacheRead: t.cacheRead + (e.usage?.cacheRead ?? 0),
      cacheWrite: t.cacheWrite + (e.usage?.cacheWrite ?? 0),
      turns: t.turns + (e.usage ? 1 : 0),
    }),
    { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, turns: 0 },
  );

describe('2. a turn that ends with stop_hook_summary and no turn_duration', () => {
  test('2.1.38 and 2.1.39 files that end that way are idle at once, not active', async () => {
    for (const fixture of [SUBAGENT, PARENT]) {
      const s = scan(await readFixture(fixture), 'claude-code');
      assert.equal(s.last.kind, 'turn-end', fixture);
      assert.equal(statusAt(s, 30_000), 'idle (turn-ended)', fixture);
    }
  });

  test('2.1.17 and 2.0.76 turns ended by stop_hook_summary alone (the file up to it)', async () => {
    // b1 line 42 and a6 line 24 are stop_hook_summary lines right after the turn's text,
    // with no turn_duration after them.
    for (const [fixture, line] of [
      [B1, 42],
      [A6, 24],
    ] as const) {
      const s = scan(await upTo(fixture, line), 'claude-code');
      assert.equal(s.last.kind, 'turn-end', `${fixture} up to line ${line}`);
      assert.equal(statusAt(s, 30_000), 'idle (turn-ended)');
      assert.equal(statusAt(s, 2 * 24 * 60 * MIN), 'finished/completed (turn-ended)');
    }
  });
});

describe('3. the <synthetic> "No response requested." message', () => {
  test('is not an error: the session stays as the turn before left it', async () => {
    // The file up to the synthetic line (b1 line 48, written after /exit and a resume):
    // the last turn ended at line 40 (text) and 42 (stop_hook_summary).
    const b1 = scan(await upTo(B1, 48), 'claude-code');
    assert.equal(b1.last.kind, 'turn-end');
    assert.equal(b1.last.line, 40);
    assert.equal(statusAt(b1, 30_000), 'idle (turn-ended)');
    assert.equal(statusAt(b1, 10 * MIN), 'idle (turn-ended)');
    // a6 line 7 (2.0.76): nothing before it but a stop_hook_summary and /exit lines.
    const a6 = scan(await upTo(A6, 7), 'claude-code');
    assert.equal(a6.last.kind, 'none');
    assert.equal(statusAt(a6, 10 * MIN), 'idle (empty)');
    // Not a response either: it does not make an empty session substantive.
    assert.equal(a6.substantive, false);
  });

  test('the whole files that hold one are not errors', async () => {
    for (const fixture of [B1, A6]) {
      const s = scan(await readFixture(fixture), 'claude-code');
      assert.notEqual(s.last.kind, 'api-error', fixture);
    }
  });

  test('the transcript shows it as a plain message, without a model or usage', async () => {
    const { entries } = await transcript(fixturePath(B1), 'claude-code');
    const synthetic = entries.find(
      (e) => e.kind === 'assistant' && e.text === 'No response requested.',
    );
    assert.ok(synthetic && synthetic.kind === 'assistant');
    assert.equal(synthetic.apiError, undefined);
    assert.equal(synthetic.model, undefined);
    assert.equal(synthetic.usage, undefined);
  });
});

describe('4. Claude Code 2.0.x flat subagent files', () => {
  /**
   * RECONSTRUCTED LAYOUT. No licensed real 2.0.x flat file was found (SOURCES.md, Gaps),
   * so the 2.1.39 pair is laid out as 2.0.x wrote subagents: each real subagent file moved
   * beside its parent as `agent-<id>.jsonl`. Its lines already carry the parent's
   * sessionId, as 2.0.x lines did. The bytes are the real ones.
   */
  async function flatLayout(): Promise<{ root: string; project: string; latest: number }> {
    const root = join(tmp, 'flat');
    const project = join(root, 'projects', 'spotter');
    const parent = await readFixture(PARENT);
    const latest = lastTimestamp(parent.toString('utf8'));
    await writeReconstructed(root, `projects/spotter/${P258}.jsonl`, parent, latest);
    for (const agent of ['a881341', 'acompact-fffbd0']) {
      const bytes = await readFixture(
        `claude/spotter/transcripts/${P258}/subagents/agent-${agent}.jsonl`,
      );
      await writeReconstructed(
        root,
        `projects/spotter/agent-${agent}.jsonl`,
        bytes,
        lastTimestamp(bytes.toString('utf8')),
      );
    }
    return { root, project, latest };
  }

  test('show under their parent as subagents, not as sessions with a broken resume id', async () => {
    const { root, latest } = await flatLayout();
    const index = new LocalIndex({
      claudeConfigDirs: [root],
      codexHome: join(root, 'none'),
      now: () => latest + 30_000,
    });
    const snapshot = await index.refresh();
    const rows = snapshot.sessions.map((s) => ({
      file: relative(root, s.path),
      role: s.role,
      parent: s.summary.parentId && relative(root, s.summary.parentId),
      resumeId: s.summary.resumeId,
    }));
    const parent = `projects/spotter/${P258}.jsonl`;
    assert.deepEqual(rows, [
      { file: parent, role: 'session', parent: undefined, resumeId: P258 },
      {
        file: 'projects/spotter/agent-a881341.jsonl',
        role: 'subagent',
        parent,
        resumeId: undefined,
      },
      // A compaction agent: the parent never names it, its lines' sessionId does.
      {
        file: 'projects/spotter/agent-acompact-fffbd0.jsonl',
        role: 'subagent',
        parent,
        resumeId: undefined,
      },
    ]);
    assert.equal(
      snapshot.roots.find((r) => r.harness === 'claude-code')?.subagentFiles,
      2,
      'counted as subagent files',
    );
    // Tokens are the same as in the 2.1.x layout: each response once, in its own row.
    const report = buildUsageReport(snapshot, index.pricing, { dayOf: utcDay });
    const cells = report.harnesses['claude-code']!.byDayModel['2026-02-11']!;
    assert.equal(cells['claude-opus-4-6']!.cacheReadTokens, 14_938_375);
    assert.equal(cells['claude-sonnet-4-5-20250929']!.cacheReadTokens, 34_159);
  });

  test("the parent's transcript links to the file beside it", async () => {
    const { project } = await flatLayout();
    const { entries } = await transcript(join(project, `${P258}.jsonl`), 'claude-code');
    const link = entries.find((e) => e.kind === 'subagent');
    assert.ok(link && link.kind === 'subagent');
    assert.equal(link.path, join(project, 'agent-a881341.jsonl'));
  });
});

describe('5. a resumed session that writes its history again', () => {
  /**
   * RECONSTRUCTED. No real file with repeated uuids was found (SOURCES.md, Gaps): the
   * real 2.1.38 file's own lines are appended to it again, the same uuids and message ids
   * written a second time, as a resume that rewrites the history does.
   */
  async function resumed(): Promise<string> {
    const bytes = await readFixture(SUBAGENT);
    return writeReconstructed(
      tmp,
      'resumed/491e126e-1e71-469c-ade2-fcc8af567c74.jsonl',
      Buffer.concat([bytes, bytes]),
      lastTimestamp(bytes.toString('utf8')),
    );
  }

  test('the transcript shows each line once: no orphan results, usage counted once', async () => {
    const original = await transcript(fixturePath(SUBAGENT), 'claude-code');
    const again = await transcript(await resumed(), 'claude-code');
    assert.deepEqual(kinds(again.entries), kinds(original.entries));
    assert.equal(
      again.entries.filter((e) => e.kind === 'tool-call' && e.orphanResult).length,
      0,
      'no orphan results',
    );
    assert.deepEqual(usageSum(again.entries), usageSum(original.entries));
    // Every line of the copy that has a uuid (all but the file-history snapshots).
    const withUuid = (await linesOf(SUBAGENT)).filter((l) => 'uuid' in JSON.parse(l)).length;
    assert.equal(again.doc.info().hidden.repeated, withUuid);
    assert.equal(again.doc.fitCorrections, 0);
  });

  test('the scanner: same status, same tokens', async () => {
    const bytes = await readFixture(SUBAGENT);
    const once = scan(bytes, 'claude-code');
    const twice = scan(Buffer.concat([bytes, bytes]), 'claude-code');
    assert.equal(twice.last.kind, once.last.kind);
    assert.deepEqual([...twice.usage.keys()], [...once.usage.keys()]);
  });
});

describe('6. smaller defects', () => {
  test("Codex: the session starts at session_meta's timestamp, not at its line's", async () => {
    const s = scan(await readFixture(CODEX_LONG), 'codex');
    // The line is stamped 11:54:52.352Z, 18 s after the session began.
    assert.equal(s.firstTimestamp, '2026-02-23T11:54:34.334Z');
  });

  test('Codex: a call abandoned by a new turn is abandoned in the transcript too', async () => {
    /**
     * RECONSTRUCTED. The real rollout ends with an exec_command call and no output; a new
     * turn is appended: the same rollout's own turn-opening lines (task_started, the
     * user messages and their user_message event: lines 8–11) written again after it.
     */
    const lines = await linesOf(CODEX_TINY);
    const text = [...lines, ...lines.slice(7, 11)].join('\n') + '\n';
    const path = await writeReconstructed(tmp, 'codex/new-turn.jsonl', text, Date.now());
    const s = scan(text, 'codex');
    assert.equal(s.last.kind, 'user-prompt');
    assert.deepEqual(s.last.pendingTools, [], 'the status drops the call');
    const { entries } = await transcript(path, 'codex');
    const calls = entries.filter((e) => e.kind === 'tool-call');
    assert.deepEqual(
      calls.map((e) => (e.kind === 'tool-call' ? `${e.name}:${e.status}` : '')),
      ['exec_command:abandoned'],
    );
    // Without the new turn the same call is still pending.
    const before = await transcript(fixturePath(CODEX_TINY), 'codex');
    const call = before.entries.find((e) => e.kind === 'tool-call');
    assert.equal(call?.kind === 'tool-call' && call.status, 'pending');
  });

  test('<synthetic> messages make no "unknown" model row in the usage report', async () => {
    for (const id of ['entire-a6-2.0.76', 'entire-b1-2.1.17']) {
      const c = realCase(id);
      const root = join(tmp, id);
      const latest = await layOut(c, root);
      const index = new LocalIndex({
        claudeConfigDirs: [root],
        codexHome: join(root, 'none'),
        now: () => latest,
      });
      const report = buildUsageReport(await index.refresh(), index.pricing, { dayOf: utcDay });
      assert.deepEqual(Object.keys(report.byModel), ['claude-opus-4-5-20251101'], id);
      // Not even a record: the scanner keeps no usage for the harness's own messages.
      const s = scan(await readFixture(c.files[0]!.fixture), 'claude-code');
      assert.deepEqual(
        new Set([...s.usage.values()].map((r) => r.model)),
        new Set(['claude-opus-4-5-20251101']),
      );
    }
  });

  test('a prompt line with a 1 MB image is read, and is not a problem', async () => {
    /**
     * RECONSTRUCTED. No real file has a pasted image: the real 2.1.38 prompt on line 4 of
     * spotter's short.jsonl gets an image block of 1.1 MB of base64 after its text, as
     * Claude Code writes a pasted screenshot.
     */
    const lines = await linesOf('claude/spotter/transcripts/short.jsonl');
    const prompt = JSON.parse(lines[3]!) as { message: { content: unknown } };
    const text = prompt.message.content as string;
    prompt.message.content = [
      { type: 'text', text },
      {
        type: 'image',
        source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0K'.repeat(140_000) },
      },
    ];
    lines[3] = JSON.stringify(prompt);
    assert.ok(lines[3].length > 1 << 20);
    const s = scan(lines.join('\n') + '\n', 'claude-code');
    assert.deepEqual(s.problems, []);
    assert.equal(s.title, text);
    assert.equal(s.usage.size, 1);
  });
});
