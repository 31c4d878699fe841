/**
 * Resume in Terminal: which sessions can be resumed, the command line for each harness,
 * ids that must never reach a shell, and the `.resumable` tree flag.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isResumable, isSafeResumeId, resumePlan } from '../../../src/domain/resume.ts';
import type { SessionSummary } from '../../../src/domain/session.ts';
import { sessionRow, type RowLabels } from '../../../src/domain/treeModel.ts';

const ID = '0199a2b3-1c2d-7e3f-8a9b-0c1d2e3f4a5b';

function session(extra: Partial<SessionSummary> = {}): SessionSummary {
  return {
    id: '/home/dev/.claude/projects/-p/x.jsonl',
    connectionId: 'local',
    label: 'Fix the build',
    status: { status: 'idle', raw: 'idle' },
    harness: 'claude-code',
    resumeId: ID,
    ...extra,
  };
}

const labels: RowLabels = {
  status: (s) => s,
  field: {
    status: 'Status',
    started: 'Started',
    lastActivity: 'Last activity',
    ended: 'Ended',
    tokens: 'Tokens',
    cost: 'Cost',
    user: 'User',
    repository: 'Repository',
    branch: 'Branch',
    tasks: 'Tasks',
  },
  unknownWaiting: '?',
};

describe('resumePlan', () => {
  test('Claude Code: claude --resume <id>; Codex: codex resume <id>', () => {
    assert.deepEqual(resumePlan(session()), {
      ok: true,
      command: { cli: 'claude', args: ['--resume', ID], commandLine: `claude --resume ${ID}` },
    });
    assert.deepEqual(resumePlan(session({ harness: 'codex' })), {
      ok: true,
      command: { cli: 'codex', args: ['resume', ID], commandLine: `codex resume ${ID}` },
    });
  });

  test('subagents, other harnesses and sessions without an id are not resumable', () => {
    for (const s of [
      session({ parentId: '/parent.jsonl' }),
      session({ harness: 'itential' }),
      session({ harness: undefined }),
      session({ resumeId: undefined }),
      session({ resumeId: '' }),
    ]) {
      assert.equal(isResumable(s), false);
      assert.deepEqual(resumePlan(s), { ok: false, reason: 'notResumable' });
    }
  });

  test('ids that could inject into a shell or pass as an option are refused', () => {
    for (const id of [
      `${ID}; rm -rf ~`,
      '$(touch /tmp/pwned)',
      '`id`',
      'a b',
      '--dangerously-skip-permissions',
      '-x',
      'a|b',
      "it's",
      'a\nb',
      'x'.repeat(129),
    ]) {
      assert.equal(isSafeResumeId(id), false, id);
      assert.deepEqual(resumePlan(session({ resumeId: id })), {
        ok: false,
        reason: 'unsafeId',
        id,
      });
    }
    for (const id of [ID, 'abc_DEF-123', 'a', 'x'.repeat(128)]) assert.ok(isSafeResumeId(id), id);
  });
});

describe('the .resumable row flag', () => {
  test('only resumable sessions carry it, after the status', () => {
    assert.equal(sessionRow(session(), labels).contextValue, 'session.idle.resumable');
    assert.equal(
      sessionRow(session({ status: { status: 'waiting', raw: 'x' } }), labels).contextValue,
      'session.waiting.resumable',
    );
    assert.equal(sessionRow(session({ parentId: 'p' }), labels).contextValue, 'session.idle');
    assert.equal(
      sessionRow(session({ harness: 'agents-api' }), labels).contextValue,
      'session.idle',
    );
  });

  test('the package.json menu matches the flag, whatever actions follow it', async () => {
    const { readFile } = await import('node:fs/promises');
    const pkg = JSON.parse(await readFile('package.json', 'utf8')) as {
      contributes: { menus: Record<string, { command: string; when?: string }[]> };
    };
    const entry = pkg.contributes.menus['view/item/context']!.find(
      (m) => m.command === 'sessionInspector.resumeInTerminal',
    )!;
    const regex = new RegExp(/viewItem =~ \/(.*)\/$/.exec(entry.when!)![1]!);
    for (const value of ['session.idle.resumable', 'session.waiting.resumable.completable'])
      assert.ok(regex.test(value), value);
    for (const value of ['session.idle', 'session.idle.resumablex', 'session.resumable'])
      assert.ok(!regex.test(value), value);
  });
});
