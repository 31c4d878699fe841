/**
 * Derived status of a local session from the facts of its last meaningful entry and how
 * recently its files were written. The rules, row by row, are the table in
 * docs/local-status.md; every row is a unit test in test/unit/local/localStatus.test.ts.
 */
import type { StatusDerivation } from '../../domain/derivedStatus.ts';
import type { Harness, LastEntryFacts } from './types.ts';
import { ASK_USER_TOOLS } from './claudeCodeScan.ts';

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
  const waiting = (raw: string): LocalStatus =>
    age < thresholds.waitingMaxMs
      ? { status: 'waiting', raw, waitingSince: since }
      : { status: 'finished', outcome: 'interrupted', raw };
  // Quiet mid-turn: idle for a while, then given up as interrupted.
  const stalled = (raw: string): LocalStatus =>
    recent
      ? { status: 'active', raw }
      : age < thresholds.idleMs
        ? { status: 'idle', raw }
        : { status: 'finished', outcome: 'interrupted', raw };

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
      if (recent) return { status: 'active', raw: 'tool-call' };
      const tools = facts.pendingTools.join(', ') || facts.detail || 'tool';
      if (facts.pendingTools.some((t) => ASK_USER_TOOLS.has(t)))
        return waiting(`question: ${tools}`);
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
      if (facts.asksUser && role === 'session') return waiting('question');
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
