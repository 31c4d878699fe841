/**
 * A Codex read for a count of usage only (CodexScanner.skipStatus, the usage-report CLI)
 * passes over items and events that can change only status facts once the title, the
 * working directory and the session's substance are known: its summary is the full one's
 * but for the status facts, whatever order those three come in.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CodexScanner } from '../../../../src/sources/local/codexScan.ts';
import type { FileSummary } from '../../../../src/sources/local/types.ts';
import { codex, jsonl, tokenCount } from './fixtures.ts';

const message = (role: string, text: string, seconds: number) =>
  codex(
    'response_item',
    {
      type: 'message',
      role,
      content: [{ type: role === 'user' ? 'input_text' : 'output_text', text }],
    },
    seconds,
  );
const call = (id: string, seconds: number) =>
  codex(
    'response_item',
    { type: 'function_call', name: 'shell', arguments: '{"command":["ls"]}', call_id: id },
    seconds,
  );
const output = (id: string, seconds: number) =>
  codex('response_item', { type: 'function_call_output', call_id: id, output: 'done' }, seconds);
const event = (type: string, fields: Record<string, unknown>, seconds: number) =>
  codex('event_msg', { type, ...fields }, seconds);
const totals = (n: number) => ({ input: 100 * n, cached: 10 * n, output: 5 * n, reasoning: n });

/**
 * With `metaCwd`, the working directory is known from the start and the title comes after
 * other items; without, it comes from injected context after the title.
 */
function transcript(metaCwd: boolean): string {
  const context = message(
    'user',
    '<environment_context>\n  <cwd>/home/dev/late</cwd>\n</environment_context>',
    8,
  );
  return jsonl(
    codex('session_meta', {
      id: 'sess-1',
      timestamp: '2025-10-01T10:00:00.000Z',
      cli_version: '0.50.0',
      ...(metaCwd ? { cwd: '/home/dev/early' } : {}),
    }),
    codex('turn_context', { model: 'gpt-5-codex', approval_policy: 'on-request' }, 1),
    message('assistant', 'Resuming where we stopped.', 2),
    call('c1', 3),
    output('c1', 4),
    tokenCount(totals(1), 5),
    event('task_started', {}, 6),
    message('user', 'Fix the failing ledger test', 7),
    event('user_message', { message: 'Fix the failing ledger test' }, 7),
    ...(metaCwd ? [] : [context]),
    call('c2', 9),
    tokenCount(totals(2), 10),
    tokenCount(totals(2), 10),
    event('agent_message', { message: 'Fixed. Anything else?' }, 11),
    message('user', 'A later prompt', 12),
    call('c3', 13),
    tokenCount(totals(3), 14),
    event('task_complete', { last_agent_message: 'Done, should I push?' }, 15),
  );
}

function scan(metaCwd: boolean, usageOnly: boolean, chunk: number): FileSummary {
  const s = new CodexScanner('/t/rollout.jsonl');
  if (usageOnly) s.skipStatus();
  const bytes = Buffer.from(transcript(metaCwd));
  for (let i = 0; i < bytes.length; i += chunk) s.feed(bytes.subarray(i, i + chunk));
  s.finish();
  return s.summary();
}

/** The summary without its status facts. */
const withoutStatus = ({ last: _last, ...rest }: FileSummary) => rest;

describe('Codex, a count of usage only', () => {
  test('the summary is the full one but for the status facts', () => {
    for (const metaCwd of [true, false]) {
      for (const chunk of [17, 4096]) {
        const full = scan(metaCwd, false, chunk);
        const usageOnly = scan(metaCwd, true, chunk);
        assert.equal(full.title, 'Fix the failing ledger test');
        assert.equal(full.cwd, metaCwd ? '/home/dev/early' : '/home/dev/late');
        assert.equal(full.usage.size, 3);
        assert.deepEqual(
          withoutStatus(usageOnly),
          withoutStatus(full),
          `cwd in the meta: ${metaCwd}, chunks of ${chunk}`,
        );
        // The later items were passed over: the status facts stop at the first prompt's turn.
        assert.notDeepEqual(usageOnly.last, full.last);
      }
    }
  });
});
