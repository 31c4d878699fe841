/**
 * Token de-duplication on tricky inputs, with expected numbers worked out by hand:
 * Claude Code per (message.id, requestId) with the per-field maximum, agent_progress
 * copies counted once, Codex cumulative totals as deltas (duplicates and null info).
 */
import assert from 'node:assert/strict';
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { LocalIndex } from '../../../../src/sources/local/localIndex.ts';
import { buildUsageReport } from '../../../../src/sources/local/usageReport.ts';
import {
  assistant,
  codexMeta,
  jsonl,
  progressCopy,
  prompt,
  scanClaude,
  scanCodex,
  sum,
  tempDir,
  tokenCount,
  toolResult,
  toolUse,
  turnContext,
  usage,
  writeAt,
} from './fixtures.ts';

describe('Claude Code: one response, many lines', () => {
  test('output grows over the lines of one response: the maximum counts, once', () => {
    const s = scanClaude(
      jsonl(
        prompt('Fix it'),
        assistant({
          content: [{ type: 'thinking', thinking: 'hm', signature: 'x' }],
          stop: null,
          usage: usage(3, 2, 1000, 50),
        }),
        assistant({
          content: [{ type: 'text', text: 'Looking.' }],
          stop: null,
          usage: usage(3, 2, 1000, 50),
        }),
        assistant({
          content: [toolUse('toolu_1')],
          stop: 'tool_use',
          usage: usage(3, 118, 1000, 50),
        }),
      ),
    );
    assert.equal(s.usage.size, 1);
    assert.deepEqual(sum(s.usage.values()), {
      input: 3,
      output: 118,
      cacheRead: 1000,
      cacheWrite: 50,
      cacheWrite1h: 0,
      reasoning: 0,
    });
  });

  test('the final count on the first line (stream snapshots after it) still wins', () => {
    const s = scanClaude(
      jsonl(
        assistant({ usage: usage(3, 250) }),
        assistant({ usage: usage(3, 4) }),
        assistant({ usage: usage(3, 1) }),
      ),
    );
    assert.equal(sum(s.usage.values()).output, 250);
  });

  test('a different requestId or message id is a different response', () => {
    const s = scanClaude(
      jsonl(
        assistant({ id: 'msg_1', requestId: 'req_1', usage: usage(1, 10) }),
        assistant({ id: 'msg_1', requestId: 'req_2', usage: usage(1, 20) }),
        assistant({ id: 'msg_2', requestId: 'req_2', usage: usage(1, 40) }),
      ),
    );
    assert.equal(s.usage.size, 3);
    assert.equal(sum(s.usage.values()).output, 70);
  });

  test('null ids: zero usage is ignored, non-zero usage counts per line and is reported', () => {
    const s = scanClaude(
      jsonl(
        assistant({
          id: null,
          model: '<synthetic>',
          usage: usage(0, 0),
          extra: { isApiErrorMessage: true },
        }),
        assistant({ id: null, usage: usage(5, 7) }),
        assistant({ id: null, usage: usage(5, 7) }),
      ),
    );
    assert.equal(sum(s.usage.values()).output, 14);
    const missing = s.problems.filter((p) => p.kind === 'missing-id');
    assert.deepEqual(
      missing.map((p) => p.line),
      [2, 3],
    );
  });

  test('repeated usage bytes: the model and time of a later line still fill the record', () => {
    const same = usage(3, 9, 100);
    const record = (...lines: Record<string, unknown>[]) => {
      const s = scanClaude(jsonl(...lines));
      assert.equal(s.usage.size, 1);
      return [...s.usage.values()][0]!;
    };
    const noModel = record(
      assistant({ model: null, usage: same, seconds: 5 }),
      assistant({ usage: same, seconds: 6 }),
    );
    assert.equal(noModel.model, 'claude-sonnet-4-5-20250929');
    assert.equal(noModel.ms, Date.parse('2026-07-01T10:00:05.000Z'));
    const noTime = assistant({ usage: same });
    delete noTime.timestamp;
    const timed = record(noTime, assistant({ usage: same, seconds: 20 }));
    assert.equal(timed.ms, Date.parse('2026-07-01T10:00:20.000Z'));
    assert.equal(timed.output, 9);
  });

  test('repeated usage bytes that could not be read are reported on every line', () => {
    const bad = '"output_tokens":12x';
    const line = (seconds: number) =>
      JSON.stringify(assistant({ usage: usage(3, 777), seconds })).replace(
        '"output_tokens":777',
        bad,
      );
    const s = scanClaude(jsonl(assistant({ usage: usage(3, 5) })) + `${line(11)}\n${line(12)}\n`);
    assert.equal(sum(s.usage.values()).output, 5, 'the readable line still counts');
    assert.deepEqual(
      s.problems.filter((p) => p.kind === 'invalid-json').map((p) => p.line),
      [2, 3],
    );
  });

  test('a null model counts its tokens under no model (priced as unknown)', () => {
    const s = scanClaude(jsonl(assistant({ model: null, usage: usage(1, 2) })));
    assert.equal([...s.usage.values()][0]!.model, undefined);
    assert.deepEqual(s.models, []);
  });
});

describe('Claude Code: subagents and copies across files', () => {
  const sub1 = assistant({
    id: 'msg_sub_1',
    requestId: 'req_sub_1',
    usage: usage(2, 3, 500),
    stop: null,
    content: [toolUse('toolu_s1', 'Grep')],
  });
  const sub1Final = assistant({
    id: 'msg_sub_1',
    requestId: 'req_sub_1',
    usage: usage(2, 80, 500),
    content: [toolUse('toolu_s1', 'Grep')],
    stop: 'tool_use',
  });
  const sub2 = assistant({ id: 'msg_sub_2', requestId: 'req_sub_2', usage: usage(4, 60, 900) });
  const parentOwn = assistant({
    id: 'msg_p',
    requestId: 'req_p',
    usage: usage(1, 30, 2000, 100),
    content: [toolUse('toolu_task', 'Task')],
    stop: 'tool_use',
  });

  async function tree(withSubagentFile: boolean) {
    const { dir, cleanup } = await tempDir();
    const project = join(dir, 'claude', 'projects', '-home-dev-orbit-api');
    const parent = join(project, 'S1.jsonl');
    await writeAt(
      parent,
      jsonl(
        prompt('Explain prorate'),
        parentOwn,
        // Copies of the subagent's lines: the first snapshot of msg_sub_1 only.
        progressCopy('a1', sub1, 20),
        progressCopy('a1', sub2, 30),
        toolResult('toolu_task', 40, false, {
          toolUseResult: { status: 'completed', agentId: 'a1' },
        }),
        assistant({ id: 'msg_p2', requestId: 'req_p2', usage: usage(1, 12, 2100), seconds: 50 }),
      ),
    );
    const sub = join(project, 'S1', 'subagents', 'agent-a1.jsonl');
    if (withSubagentFile) {
      await writeAt(
        sub,
        jsonl(
          { ...prompt('Look around'), isSidechain: true, agentId: 'a1' },
          sub1,
          sub1Final,
          sub2,
        ),
      );
    }
    const index = new LocalIndex({
      claudeConfigDirs: [join(dir, 'claude')],
      codexHome: join(dir, 'none'),
    });
    return { index, parent, sub, cleanup };
  }

  test('copies do not double-count; the subagent file counts its own responses', async () => {
    const t = await tree(true);
    try {
      const snap = await t.index.refresh();
      const parent = snap.sessions.find((s) => s.path === t.parent)!;
      const child = snap.sessions.find((s) => s.path === t.sub)!;
      assert.equal(child.summary.parentId, t.parent);
      // Parent: msg_p (30) + msg_p2 (12); subagent: msg_sub_1 max (80) + msg_sub_2 (60).
      assert.equal(parent.summary.outputTokens, 42);
      assert.equal(child.summary.outputTokens, 140);
      assert.equal(child.summary.cacheReadTokens, 1400);
      const report = buildUsageReport(snap, t.index.pricing);
      assert.equal(report.totals.outputTokens, 182);
      assert.equal(report.totals.responses, 4);
    } finally {
      await t.cleanup();
    }
  });

  test("a Task result links its subagent with the tool call's id, on a first read and on an append", async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const parent = join(dir, 'claude', 'projects', '-p', 'S1.jsonl');
      const result = (agent: string, seconds: number) =>
        toolResult(`toolu_${agent}`, seconds, false, {
          toolUseResult: { status: 'completed', agentId: agent },
        });
      await writeAt(parent, jsonl(prompt('Explain'), result('a1', 10)));
      const index = new LocalIndex({
        claudeConfigDirs: [join(dir, 'claude')],
        codexHome: join(dir, 'none'),
      });
      const links = async () =>
        (await index.refresh()).sessions.find((s) => s.path === parent)!.file.subagents;
      assert.deepEqual(await links(), [{ agentId: 'a1', toolUseId: 'toolu_a1' }]);
      await appendFile(parent, jsonl(result('a2', 20)));
      index.noteChanges([parent], 'changed');
      assert.deepEqual(await links(), [
        { agentId: 'a1', toolUseId: 'toolu_a1' },
        { agentId: 'a2', toolUseId: 'toolu_a2' },
      ]);
    } finally {
      await cleanup();
    }
  });

  test('without the subagent file the copies count once, in the parent', async () => {
    const t = await tree(false);
    try {
      const snap = await t.index.refresh();
      assert.equal(snap.sessions.length, 1);
      // Parent 42 + the copies: msg_sub_1 as copied (3) + msg_sub_2 (60).
      assert.equal(snap.sessions[0]!.summary.outputTokens, 105);
      assert.equal(buildUsageReport(snap, t.index.pricing).totals.responses, 4);
    } finally {
      await t.cleanup();
    }
  });

  test('a resumed session repeating earlier responses counts them once, in the earlier file', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const project = join(dir, 'claude', 'projects', '-p');
      const first = assistant({
        id: 'msg_old',
        requestId: 'req_old',
        usage: usage(1, 50),
        seconds: 10,
      });
      await writeAt(join(project, 'A.jsonl'), jsonl(prompt('Start', 0), first));
      await writeAt(
        join(project, 'B.jsonl'),
        jsonl(
          { ...first, sessionId: 'B', timestamp: '2026-07-02T09:00:00.000Z' },
          prompt('Continue', 90_000),
          assistant({ id: 'msg_new', requestId: 'req_new', usage: usage(1, 7), seconds: 90_010 }),
        ),
      );
      const index = new LocalIndex({
        claudeConfigDirs: [join(dir, 'claude')],
        codexHome: join(dir, 'none'),
      });
      const snap = await index.refresh();
      const a = snap.sessions.find((s) => s.path.endsWith('A.jsonl'))!;
      const b = snap.sessions.find((s) => s.path.endsWith('B.jsonl'))!;
      assert.equal(a.summary.outputTokens, 50);
      assert.equal(b.summary.outputTokens, 7);
    } finally {
      await cleanup();
    }
  });
});

describe('Codex: cumulative totals', () => {
  const t1 = { input: 1000, cached: 0, output: 100, reasoning: 40 };
  const t2 = { input: 2500, cached: 900, output: 260, reasoning: 90 };
  const t3 = { input: 4100, cached: 2300, output: 300, reasoning: 90 };

  test('duplicate token_count lines and null info add nothing; deltas of the total', () => {
    const s = scanCodex(
      jsonl(
        codexMeta(),
        turnContext('gpt-5-codex'),
        tokenCount(null, 2),
        tokenCount(null, 2),
        tokenCount(t1, 3),
        tokenCount(t1, 3),
        tokenCount(t2, 5),
        tokenCount(t2, 5),
        tokenCount(t3, 8),
        tokenCount(t3, 8),
      ),
    );
    assert.equal(s.usage.size, 3);
    assert.deepEqual(sum(s.usage.values()), {
      input: 4100 - 2300,
      cacheRead: 2300,
      output: 300,
      reasoning: 90,
      cacheWrite: 0,
      cacheWrite1h: 0,
    });
  });

  test('last_token_usage is never summed (it disagrees with the totals here on purpose)', () => {
    const bogus = { input: 999_999, cached: 0, output: 999_999, reasoning: 0 };
    const s = scanCodex(
      jsonl(codexMeta(), turnContext('gpt-5'), tokenCount(t1, 3, bogus), tokenCount(t2, 4, bogus)),
    );
    assert.equal(sum(s.usage.values()).output, 260);
  });

  test('a total that goes down starts a new series (and says so)', () => {
    const s = scanCodex(
      jsonl(codexMeta(), turnContext('gpt-5'), tokenCount(t2, 3), tokenCount(t1, 9)),
    );
    assert.equal(sum(s.usage.values()).output, 260 + 100);
    assert.ok(s.problems.some((p) => p.kind === 'token-reset' && p.line === 4));
  });

  test('deltas go to the model of the turn they happened in', () => {
    const s = scanCodex(
      jsonl(
        codexMeta(),
        turnContext('gpt-5-codex'),
        tokenCount(t1, 3),
        turnContext('o3', 4),
        tokenCount(t2, 5),
      ),
    );
    const byModel = new Map<string, number>();
    for (const r of s.usage.values())
      byModel.set(r.model!, (byModel.get(r.model!) ?? 0) + r.output);
    assert.deepEqual(Object.fromEntries(byModel), { 'gpt-5-codex': 100, o3: 160 });
    assert.deepEqual(s.models, ['gpt-5-codex', 'o3']);
  });
});
