/**
 * A read for a count of usage only (skipStatus, the usage-report CLI) against a full read
 * of the same hand-made hostile files, cut into two reads at every byte: the usage, the
 * times, the ids, the folder and the subagent links (usageFacts) must be the same.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ClaudeCodeScanner } from '../../../../src/sources/local/claudeCodeScan.ts';
import { CodexScanner } from '../../../../src/sources/local/codexScan.ts';
import type { LineScanner } from '../../../../src/sources/local/engine/lineScanner.ts';
import {
  assistant,
  at,
  codex,
  codexMeta,
  jsonl,
  progressCopy,
  prompt,
  system,
  tokenCount,
  toolResult,
  toolUse,
  turnContext,
  usage,
} from './fixtures.ts';
import { usageFacts } from './usageFacts.ts';

type Make = () => LineScanner & { summary(): ReturnType<ClaudeCodeScanner['summary']> };

/** Reads `bytes` in two parts cut at `cut`, for usage only or in full (status deferred). */
function read(make: Make, bytes: Buffer, cut: number, usageOnly: boolean) {
  const s = make();
  if (usageOnly) s.skipStatus();
  else s.deferStatus();
  if (cut > 0) s.feed(bytes.subarray(0, cut));
  if (cut < bytes.length) s.feed(bytes.subarray(cut));
  s.finish();
  const replay = s.statusReplay();
  if (replay) {
    replay.scanner.feed(bytes.subarray(replay.from));
    replay.scanner.finish();
    s.adoptStatus(replay.scanner);
  }
  return usageFacts(s.summary());
}

function sameAtEveryCut(make: Make, bytes: Buffer): ReturnType<typeof usageFacts> {
  const full = read(make, bytes, 0, false);
  for (let cut = 0; cut <= bytes.length; cut++) {
    assert.deepEqual(read(make, bytes, cut, true), full, `cut at byte ${cut}`);
  }
  return full;
}

const pretty = (o: object) => JSON.stringify(o, null, 2);

describe('usage-only reads', () => {
  test('Claude Code: needles in strings, out-of-order times, links, copies, bad lines', () => {
    const task = assistant({
      id: 'msg_task',
      requestId: 'req_task',
      content: [toolUse('toolu_task', 'Task')],
      seconds: 20,
    });
    const sub = assistant({ id: 'msg_sub', requestId: 'req_sub', seconds: 25 });
    const text = jsonl(
      { type: 'summary', summary: 'Earlier work', leafUuid: 'x' },
      // The folder and session come from the first line that has them, a system line here.
      system('local_command', 5, { cwd: '/home/dev/first', sessionId: 'S-from-line' }),
      // Usage-like text in a prompt and in a tool output: not usage.
      prompt('Count "usage":{"input_tokens":999,"output_tokens":1} and "agentId":"fake"', 10, {
        cwd: '/home/dev/second',
      }),
      assistant({ id: 'msg_1', requestId: 'req_1', seconds: 12, usage: usage(3, 1) }),
      assistant({ id: 'msg_1', requestId: 'req_1', seconds: 13, usage: usage(3, 40) }),
      toolResult('toolu_x', 14, false, {
        toolUseResult: { stdout: '{"usage":{"input_tokens":5}}', timestamp: at(-999) },
      }),
      task,
      progressCopy('agent-7', sub, 26),
      toolResult('toolu_task', 30, false, { toolUseResult: { agentId: 'agent-7', status: 'ok' } }),
      `{"type":"user" "timestamp":"${at(-90)}"}`,
      ']] not JSON',
      pretty(assistant({ id: 'msg_2', requestId: 'req_2', seconds: 40, usage: usage(7, 8) })),
      // The earliest and the latest times are on lines without usage.
      prompt('An older line, written late', -50),
      assistant({ id: 'msg_3', requestId: 'req_3', seconds: 60, model: '<synthetic>' }),
      system('stop_hook_summary', 70),
    );
    // Also without the last newline, and with a last line that has none.
    const last = JSON.stringify(prompt('The last word', 90));
    for (const body of [text, text.slice(0, -1), text + last]) {
      const full = sameAtEveryCut(
        () => new ClaudeCodeScanner('/t/S1.jsonl', { role: 'session' }),
        Buffer.from(body),
      );
      // What the file is there to exercise, as the full read sees it.
      assert.equal(full.cwd, '/home/dev/first');
      assert.equal(full.sessionId, 'S-from-line');
      assert.equal(full.firstMs, Date.parse(at(-50)));
      assert.equal(full.lastMs, Date.parse(at(body === text + last ? 90 : 70)));
      assert.deepEqual(full.subagents, [{ agentId: 'agent-7', toolUseId: 'toolu_task' }]);
      assert.equal(full.copies.length, 1);
      assert.deepEqual(
        full.usage.map(([key]) => key),
        ['msg_1:req_1', 'msg_task:req_task', 'msg_2:req_2', 'msg_3:req_3'],
      );
    }
  });

  test('Claude Code subagent: the agent id from its first line', () => {
    const bytes = Buffer.from(
      jsonl(
        prompt('Look around', 1, { agentId: 'a-1', isSidechain: true }),
        assistant({ id: 'msg_s', requestId: 'req_s', seconds: 2, extra: { agentId: 'a-2' } }),
      ),
    );
    sameAtEveryCut(() => new ClaudeCodeScanner('/t/agent-a.jsonl', { role: 'subagent' }), bytes);
  });

  test('Codex: legacy, 0.4x (info null, written once), 0.5x and current layouts', () => {
    const totals = (n: number) => ({ input: 100 * n, cached: 10 * n, output: 5 * n, reasoning: n });
    const legacy = jsonl(
      { id: 'legacy-1', timestamp: at(0), instructions: 'Be brief' },
      { record_type: 'state' },
      {
        type: 'message',
        role: 'user',
        content: [{ type: 'input_text', text: '<environment_context><cwd>/l</cwd>' }],
      },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Fix it' }] },
    );
    const current = jsonl(
      codexMeta(),
      turnContext('gpt-5-codex', 1),
      codex(
        'response_item',
        {
          type: 'message',
          role: 'user',
          content: [{ type: 'input_text', text: 'say "token_count" and "info":{}' }],
        },
        2,
      ),
      tokenCount(null, 3),
      tokenCount(totals(1), 4),
      tokenCount(totals(1), 4),
      codex('event_msg', { type: 'agent_message', message: 'ok' }, 5),
      turnContext('gpt-5', 6),
      tokenCount(totals(3), 7),
      tokenCount(totals(2), 8),
      '{"timestamp":"' + at(9) + '","type":"event_msg","payload":{"type":"token_count",',
      codex('response_item', { type: 'function_call_output', call_id: 'c', output: 'x' }, -5),
    );
    for (const text of [legacy, current]) {
      sameAtEveryCut(() => new CodexScanner('/t/rollout.jsonl'), Buffer.from(text));
    }
  });
});
