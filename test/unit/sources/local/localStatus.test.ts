/**
 * docs/local-status.md row by row: deriveLocalStatus() on the facts of the last entry,
 * then the scanners producing those facts from real-looking lines.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  DEFAULT_STATUS_THRESHOLDS,
  deriveLocalStatus,
  type LocalStatus,
} from '../../../../src/sources/local/localStatus.ts';
import type { Harness, LastEntryFacts } from '../../../../src/sources/local/types.ts';
import {
  assistant,
  at,
  codex,
  codexMeta,
  jsonl,
  prompt,
  scanClaude,
  scanCodex,
  system,
  T0,
  tokenCount,
  toolResult,
  toolUse,
  turnContext,
  usage,
} from './fixtures.ts';

const MIN = 60_000;
const RECENT = 30_000; // 30 s
const QUIET = 5 * MIN; // past the 2 minute active window, within the idle window
const OLD = 2 * 60 * MIN; // past the 30 minute idle window, within the 24 h waiting limit
const ANCIENT = 3 * 24 * 60 * MIN; // past the waiting limit

function derive(
  facts: Partial<LastEntryFacts> & Pick<LastEntryFacts, 'kind'>,
  age: number,
  harness: Harness = 'claude-code',
  role: 'session' | 'subagent' = 'session',
): LocalStatus {
  return deriveLocalStatus({
    harness,
    role,
    facts: { pendingTools: [], timestamp: at(0), ...facts },
    lastWriteMs: T0,
    now: T0 + age,
  });
}

function is(s: LocalStatus, status: string, outcome?: string, raw?: string | RegExp): void {
  assert.equal(s.status, status);
  assert.equal(s.outcome, outcome);
  if (typeof raw === 'string') assert.equal(s.raw, raw);
  else if (raw) assert.match(s.raw, raw);
  if (status === 'waiting') assert.equal(s.waitingSince, at(0));
  else assert.equal(s.waitingSince, undefined);
}

test('thresholds are 2 min / 30 min / 24 h', () => {
  assert.deepEqual(DEFAULT_STATUS_THRESHOLDS, {
    activeMs: 2 * MIN,
    idleMs: 30 * MIN,
    waitingMaxMs: 24 * 60 * MIN,
  });
});

describe('rules (docs/local-status.md)', () => {
  test('0 archived Codex session: finished (completed), unless it ended in an error', () => {
    const archived = (kind: LastEntryFacts['kind']) =>
      deriveLocalStatus({
        harness: 'codex',
        role: 'session',
        facts: { kind, pendingTools: [] },
        lastWriteMs: T0,
        now: T0 + RECENT,
        archived: true,
      });
    is(archived('user-prompt'), 'finished', 'completed', 'archived');
    is(archived('turn-end'), 'finished', 'completed', 'archived');
    is(archived('api-error'), 'error');
  });

  test('1 API error: error; active while a retry is announced and writes continue', () => {
    is(
      derive({ kind: 'api-error', detail: 'overloaded' }, RECENT),
      'error',
      undefined,
      /api-error/,
    );
    is(derive({ kind: 'api-error' }, QUIET), 'error');
    is(
      derive({ kind: 'api-error', retrying: true }, RECENT),
      'active',
      undefined,
      'api-error-retrying',
    );
    is(derive({ kind: 'api-error', retrying: true }, QUIET), 'error');
  });

  test('2 approval request: waiting at once; finished (interrupted) after 24 h', () => {
    is(
      derive({ kind: 'approval', detail: 'exec_approval_request' }, RECENT, 'codex'),
      'waiting',
      undefined,
      /approval/,
    );
    is(derive({ kind: 'approval' }, OLD, 'codex'), 'waiting');
    is(derive({ kind: 'approval' }, ANCIENT, 'codex'), 'finished', 'interrupted');
  });

  test('3 pending AskUserQuestion / ExitPlanMode: waiting at once', () => {
    is(
      derive({ kind: 'tool-call', pendingTools: ['AskUserQuestion'] }, RECENT),
      'waiting',
      undefined,
      /question/,
    );
    is(derive({ kind: 'tool-call', pendingTools: ['ExitPlanMode'] }, OLD), 'waiting');
    is(
      derive({ kind: 'tool-call', pendingTools: ['AskUserQuestion'] }, ANCIENT),
      'finished',
      'interrupted',
    );
  });

  test('4 pending tool call, Claude Code: active, then waiting for permission', () => {
    is(
      derive({ kind: 'tool-call', pendingTools: ['Bash'] }, RECENT),
      'active',
      undefined,
      'tool-call',
    );
    is(
      derive({ kind: 'tool-call', pendingTools: ['Bash'] }, QUIET),
      'waiting',
      undefined,
      'permission: Bash',
    );
    is(derive({ kind: 'tool-call', pendingTools: ['Bash'] }, ANCIENT), 'finished', 'interrupted');
    // A result came back, another call of the same response still waits.
    is(
      derive({ kind: 'tool-result', pendingTools: ['Edit'] }, QUIET),
      'waiting',
      undefined,
      /Edit/,
    );
  });

  test('4 pending tool call, Codex: waiting only when it needs approval', () => {
    is(derive({ kind: 'tool-call', pendingTools: ['shell'] }, RECENT, 'codex'), 'active');
    is(
      derive({ kind: 'tool-call', pendingTools: ['shell'], escalation: true }, QUIET, 'codex'),
      'waiting',
      undefined,
      /approval/,
    );
    is(
      derive(
        { kind: 'tool-call', pendingTools: ['shell'], approvalPolicy: 'untrusted' },
        QUIET,
        'codex',
      ),
      'waiting',
    );
    is(
      derive({ kind: 'tool-call', pendingTools: ['shell'] }, QUIET, 'codex'),
      'idle',
      undefined,
      /tool-call/,
    );
    is(
      derive({ kind: 'tool-call', pendingTools: ['shell'] }, OLD, 'codex'),
      'finished',
      'interrupted',
    );
  });

  test('5 tool result with is_error: active while written, then error', () => {
    is(derive({ kind: 'tool-result', isError: true }, RECENT), 'active');
    is(derive({ kind: 'tool-result', isError: true }, QUIET), 'error', undefined, 'tool-error');
  });

  test('6 turn ended with a question: waiting (not for subagents); finished (completed) after 24 h', () => {
    is(derive({ kind: 'turn-end', asksUser: true }, RECENT), 'waiting', undefined, 'question');
    is(derive({ kind: 'turn-end', asksUser: true }, OLD), 'waiting');
    is(derive({ kind: 'turn-end', asksUser: true }, ANCIENT), 'finished', 'completed');
    is(derive({ kind: 'turn-end', asksUser: true }, RECENT, 'claude-code', 'subagent'), 'idle');
  });

  test('7 turn ended: idle, finished (completed) after 30 min', () => {
    is(derive({ kind: 'turn-end' }, RECENT), 'idle', undefined, 'turn-ended');
    is(derive({ kind: 'turn-end' }, QUIET), 'idle');
    is(derive({ kind: 'turn-end' }, OLD), 'finished', 'completed');
  });

  test('8 assistant text without a confirmed end: active while written, then a turn end', () => {
    is(derive({ kind: 'assistant-text' }, RECENT), 'active', undefined, 'assistant-text');
    is(derive({ kind: 'assistant-text' }, QUIET), 'idle', undefined, 'turn-ended');
    is(derive({ kind: 'assistant-text', asksUser: true }, QUIET), 'waiting');
  });

  test('9 interrupted: idle (interrupted), then finished (interrupted)', () => {
    is(derive({ kind: 'interrupted' }, RECENT), 'idle', 'interrupted');
    is(derive({ kind: 'interrupted' }, OLD), 'finished', 'interrupted');
  });

  test('10 prompt, tool result, mid-turn output: active, idle, then finished (interrupted)', () => {
    for (const kind of ['user-prompt', 'tool-result', 'assistant-progress'] as const) {
      is(derive({ kind }, RECENT), 'active', undefined, kind);
      is(derive({ kind }, QUIET), 'idle', undefined, kind);
      is(derive({ kind }, OLD), 'finished', 'interrupted', kind);
    }
  });

  test('11 no entry yet: active, idle, then finished', () => {
    is(derive({ kind: 'none' }, RECENT), 'active', undefined, 'empty');
    is(derive({ kind: 'none' }, QUIET), 'idle');
    is(derive({ kind: 'none' }, OLD), 'finished', 'completed');
  });
});

describe('facts from Claude Code lines', () => {
  test('end_turn text → turn end; a question mark at the end → asks the user', () => {
    let f = scanClaude(
      jsonl(prompt('hi'), assistant({ content: [{ type: 'text', text: 'Fixed.' }] })),
    ).last;
    assert.equal(f.kind, 'turn-end');
    assert.equal(f.asksUser, false);
    f = scanClaude(
      jsonl(
        prompt('hi'),
        assistant({ content: [{ type: 'text', text: 'Should I also update the docs?**\n' }] }),
      ),
    ).last;
    assert.equal(f.asksUser, true);
    f = scanClaude(
      jsonl(
        prompt('hi'),
        assistant({ content: [{ type: 'text', text: 'Why? Because of X. Done.' }] }),
      ),
    ).last;
    assert.equal(f.asksUser, false, 'a question in the middle is not a question to the user');
  });

  test('text without a stop reason, confirmed by turn_duration or stop_hook_summary', () => {
    const text = assistant({ stop: null });
    assert.equal(scanClaude(jsonl(prompt('hi'), text)).last.kind, 'assistant-text');
    assert.equal(
      scanClaude(jsonl(prompt('hi'), text, system('turn_duration', 12))).last.kind,
      'turn-end',
    );
    // 2.1.x often writes only the stop hooks' summary.
    const hooks = system('stop_hook_summary', 12, { hookCount: 1, preventedContinuation: false });
    assert.equal(scanClaude(jsonl(prompt('hi'), text, hooks)).last.kind, 'turn-end');
    // It ends nothing else: a pending call stays pending.
    const call = assistant({ content: [toolUse('t1')], stop: null });
    assert.equal(scanClaude(jsonl(prompt('hi'), call, hooks)).last.kind, 'tool-call');
  });

  test('tool_use pending until its result; parallel calls tracked by id', () => {
    const two = [
      assistant({ content: [toolUse('t1', 'Read')], stop: null }),
      assistant({ content: [toolUse('t2', 'Edit')], stop: 'tool_use' }),
    ];
    let f = scanClaude(jsonl(prompt('hi'), ...two)).last;
    assert.equal(f.kind, 'tool-call');
    assert.deepEqual(f.pendingTools, ['Read', 'Edit']);
    f = scanClaude(jsonl(prompt('hi'), ...two, toolResult('t1', 20))).last;
    assert.equal(f.kind, 'tool-result');
    assert.deepEqual(f.pendingTools, ['Edit']);
    f = scanClaude(
      jsonl(prompt('hi'), ...two, toolResult('t1', 20), toolResult('t2', 21, true)),
    ).last;
    assert.deepEqual(f.pendingTools, []);
    assert.equal(f.isError, true);
  });

  test('API error lines, interruptions, and bookkeeping lines that do not count', () => {
    const apiError = assistant({
      id: null,
      model: '<synthetic>',
      content: [{ type: 'text', text: 'API Error: 529 overloaded' }],
      extra: { isApiErrorMessage: true },
    });
    let f = scanClaude(jsonl(prompt('hi'), apiError)).last;
    assert.equal(f.kind, 'api-error');
    assert.match(f.detail ?? '', /529/);
    // The synthetic "No response requested." (on resume, after /exit) is not an error.
    const noOp = assistant({
      id: 'f04bc820-fc92-4fe4-bc13-c7ebc20d66b3',
      model: '<synthetic>',
      content: [{ type: 'text', text: 'No response requested.' }],
      stop: 'stop_sequence',
      usage: usage(0, 0),
      extra: { isApiErrorMessage: false },
    });
    const noOpScan = scanClaude(jsonl(prompt('hi'), assistant(), noOp));
    assert.equal(noOpScan.last.kind, 'turn-end');
    assert.deepEqual(
      [...noOpScan.usage.values()].map((r) => r.model),
      ['claude-sonnet-4-5-20250929'],
    );
    f = scanClaude(
      jsonl(
        prompt('hi'),
        system('api_error', 5, { level: 'error', retryInMs: 500, retryAttempt: 1 }),
      ),
    ).last;
    assert.equal(f.kind, 'api-error');
    assert.equal(f.retrying, true);
    f = scanClaude(
      jsonl(
        prompt('hi'),
        assistant({ content: [toolUse('t1')], stop: 'tool_use' }),
        prompt('[Request interrupted by user for tool use]', 30),
      ),
    ).last;
    assert.equal(f.kind, 'interrupted');
    assert.deepEqual(f.pendingTools, []);
    f = scanClaude(
      jsonl(
        prompt('hi'),
        assistant(),
        prompt('<command-name>/cost</command-name>', 40),
        prompt('caveat', 41, { isMeta: true }),
        system('local_command', 42),
        { type: 'file-history-snapshot', messageId: 'x', snapshot: {}, isSnapshotUpdate: false },
      ),
    ).last;
    assert.equal(f.kind, 'turn-end');
  });

  test('titles: /rename first, then the first prompt, then ai-title and summary', () => {
    const lines = [
      { type: 'summary', summary: 'Old summary', leafUuid: 'x' },
      { type: 'ai-title', aiTitle: 'Generated title', sessionId: 'S1' },
      prompt('<command-name>/clear</command-name>'),
      prompt('  The   first\nprompt ', 1),
      prompt('Second prompt', 2),
    ];
    assert.equal(scanClaude(jsonl(...lines)).title, 'The first prompt');
    assert.equal(scanClaude(jsonl(...lines)).summaryTitle, 'Generated title');
    const renamed = jsonl(...lines, {
      type: 'custom-title',
      customTitle: 'auth refactor',
      sessionId: 'S1',
    });
    assert.equal(scanClaude(renamed).title, 'auth refactor');
    assert.equal(scanClaude(jsonl(lines[0]!)).summaryTitle, 'Old summary');
    assert.equal(scanClaude(jsonl(prompt('x'.repeat(500)))).title!.length, 160);
  });

  test('inline sidechain lines neither title nor decide the main session', () => {
    const s = scanClaude(
      jsonl(
        prompt('Real prompt'),
        assistant(),
        { ...prompt('Sidechain prompt', 20), isSidechain: true },
        {
          ...assistant({ id: 'm2', content: [toolUse('t9')], stop: 'tool_use', seconds: 21 }),
          isSidechain: true,
        },
      ),
    );
    assert.equal(s.title, 'Real prompt');
    assert.equal(s.last.kind, 'turn-end');
    assert.equal(s.usage.size, 2, 'their tokens still count');
  });
});

describe('facts from Codex lines', () => {
  const call = (escalated: boolean) =>
    codex(
      'response_item',
      {
        type: 'function_call',
        name: 'shell',
        arguments: JSON.stringify({
          command: ['bash', '-lc', 'npm publish'],
          ...(escalated
            ? { with_escalated_permissions: true, justification: 'needs network' }
            : {}),
        }),
        call_id: 'call_1',
      },
      5,
    );

  test('a pending call, with or without escalation; its output resolves it', () => {
    let f = scanCodex(jsonl(codexMeta(), turnContext('gpt-5'), call(true))).last;
    assert.equal(f.kind, 'tool-call');
    assert.deepEqual(f.pendingTools, ['shell']);
    assert.equal(f.escalation, true);
    assert.equal(f.approvalPolicy, 'on-request');
    f = scanCodex(jsonl(codexMeta(), turnContext('gpt-5'), call(false))).last;
    assert.equal(f.escalation, undefined);
    f = scanCodex(
      jsonl(
        codexMeta(),
        call(true),
        codex(
          'response_item',
          { type: 'function_call_output', call_id: 'call_1', output: '{}' },
          6,
        ),
      ),
    ).last;
    assert.equal(f.kind, 'tool-result');
    assert.deepEqual(f.pendingTools, []);
  });

  test('agent message then token_count ends the turn; task_complete too', () => {
    const msg = codex('event_msg', { type: 'agent_message', message: 'Shall I push it?' }, 7);
    let f = scanCodex(jsonl(codexMeta(), msg)).last;
    assert.equal(f.kind, 'assistant-text');
    f = scanCodex(
      jsonl(codexMeta(), msg, tokenCount({ input: 1, cached: 0, output: 1, reasoning: 0 }, 8)),
    ).last;
    assert.equal(f.kind, 'turn-end');
    assert.equal(f.asksUser, true);
    f = scanCodex(
      jsonl(
        codexMeta(),
        codex('event_msg', { type: 'task_complete', last_agent_message: 'All green.' }, 9),
      ),
    ).last;
    assert.equal(f.kind, 'turn-end');
    assert.equal(f.asksUser, false);
  });

  test('turn_aborted, errors, approval events, user messages', () => {
    assert.equal(
      scanCodex(
        jsonl(codexMeta(), codex('event_msg', { type: 'turn_aborted', reason: 'interrupted' })),
      ).last.kind,
      'interrupted',
    );
    assert.equal(
      scanCodex(jsonl(codexMeta(), codex('event_msg', { type: 'error', message: 'boom' }))).last
        .kind,
      'api-error',
    );
    assert.equal(
      scanCodex(
        jsonl(codexMeta(), codex('event_msg', { type: 'exec_approval_request', call_id: 'c' })),
      ).last.kind,
      'approval',
    );
    const s = scanCodex(
      jsonl(
        codexMeta(),
        codex('response_item', {
          type: 'message',
          role: 'user',
          content: [
            {
              type: 'input_text',
              text: '<environment_context>\n  <cwd>/x</cwd>\n</environment_context>',
            },
          ],
        }),
        codex('event_msg', { type: 'user_message', message: 'Fix   the\nbuild' }),
      ),
    );
    assert.equal(s.last.kind, 'user-prompt');
    assert.equal(s.title, 'Fix the build');
  });
});
