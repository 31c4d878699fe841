/**
 * Derived status of a local session from the facts of its last meaningful entry and how
 * recently its files were written. The rules, row by row, are the table in
 * docs/local-status.md; every row is a unit test in test/unit/sources/local/localStatus.test.ts.
 */
import type { FinishOutcome, StatusDerivation } from '../../domain/derivedStatus.ts';
import type { Harness, LastEntryFacts } from './types.ts';

/** Claude Code tools whose pending call is a question to the user, not a permission prompt. */
export const ASK_USER_TOOLS: ReadonlySet<string> = new Set(['AskUserQuestion', 'ExitPlanMode']);

export interface StatusThresholds {
  /** Written within this long: the agent is working ("being written"). */
  activeMs: number;
  /** A turn that ended (or stalled) this long ago is no longer idle but finished. */
  idleMs: number;
  /** A question or permission prompt older than this no longer counts as waiting. */
  waitingMaxMs: number;
}

export const DEFAULT_STATUS_THRESHOLDS: StatusThresholds = {
  activeMs: 2 * 60_000,
  idleMs: 30 * 60_000,
  waitingMaxMs: 24 * 60 * 60_000,
};

export interface LocalStatusInput {
  harness: Harness;
  role: 'session' | 'subagent';
  facts: LastEntryFacts;
  /** Latest write (mtime, ms) of the session's files, subagent files included. */
  lastWriteMs: number;
  now: number;
  /** Codex: the rollout was moved to archived_sessions/ by the user. */
  archived?: boolean;
}

export interface LocalStatus extends StatusDerivation {
  /** For `waiting`: since when (ISO). */
  waitingSince?: string;
}

export function deriveLocalStatus(
  input: LocalStatusInput,
  thresholds: StatusThresholds = DEFAULT_STATUS_THRESHOLDS,
): LocalStatus {
  const { facts, harness, role } = input;
  const age = Math.max(0, input.now - input.lastWriteMs);
  const recent = age < thresholds.activeMs;
  const since = facts.timestamp ?? new Date(input.lastWriteMs).toISOString();
  // An unanswered question ends the session as it stood; an unanswered permission
  // prompt means the work it was asking for never happened.
  const waiting = (raw: string, after: FinishOutcome = 'interrupted'): LocalStatus =>
    age < thresholds.waitingMaxMs
      ? { status: 'waiting', raw, waitingSince: since }
      : { status: 'finished', outcome: after, raw };
  // Quiet mid-turn: idle for a while, then given up as interrupted.
  const stalled = (raw: string): LocalStatus =>
    recent
      ? { status: 'active', raw }
      : age < thresholds.idleMs
        ? { status: 'idle', raw }
        : { status: 'finished', outcome: 'interrupted', raw };

  // Archived by the user: over, whatever the last entry says (errors stay errors).
  if (input.archived && facts.kind !== 'api-error') {
    return { status: 'finished', outcome: 'completed', raw: 'archived' };
  }
  let kind = facts.kind;
  // Parallel calls: a result came back but another call still waits.
  if (kind === 'tool-result' && facts.pendingTools.length > 0) kind = 'tool-call';
  // Without a stop reason, quiet assistant text is the end of the turn.
  if (kind === 'assistant-text') {
    if (recent) return { status: 'active', raw: 'assistant-text' };
    kind = 'turn-end';
  }

  switch (kind) {
    case 'api-error':
      return facts.retrying && recent
        ? { status: 'active', raw: 'api-error-retrying' }
        : { status: 'error', raw: facts.detail ? `api-error: ${facts.detail}` : 'api-error' };
    case 'approval':
      return waiting(`approval: ${facts.detail ?? 'requested'}`);
    case 'tool-call': {
      const tools = facts.pendingTools.join(', ') || facts.detail || 'tool';
      // The question is on screen as soon as the call is written.
      if (facts.pendingTools.some((t) => ASK_USER_TOOLS.has(t))) {
        return waiting(`question: ${tools}`);
      }
      if (recent) return { status: 'active', raw: 'tool-call' };
      if (harness === 'claude-code') return waiting(`permission: ${tools}`);
      // Codex asks only for escalated calls (or every command under `untrusted`).
      if (facts.escalation || facts.approvalPolicy === 'untrusted') {
        return waiting(`approval: ${tools}`);
      }
      return stalled(`tool-call: ${tools}`);
    }
    case 'tool-result':
      if (facts.isError && !recent) return { status: 'error', raw: 'tool-error' };
      return stalled('tool-result');
    case 'turn-end':
      if (facts.asksUser && role === 'session') return waiting('question', 'completed');
      return age < thresholds.idleMs
        ? { status: 'idle', raw: 'turn-ended' }
        : { status: 'finished', outcome: 'completed', raw: 'turn-ended' };
    case 'interrupted':
      return age < thresholds.idleMs
        ? { status: 'idle', outcome: 'interrupted', raw: 'interrupted' }
        : { status: 'finished', outcome: 'interrupted', raw: 'interrupted' };
    case 'user-prompt':
      return stalled('user-prompt');
    case 'assistant-progress':
      return stalled('assistant-progress');
    case 'none':
    default:
      return recent
        ? { status: 'active', raw: 'empty' }
        : age < thresholds.idleMs
          ? { status: 'idle', raw: 'empty' }
          : { status: 'finished', outcome: 'completed', raw: 'empty' };
  }
}
