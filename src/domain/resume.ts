/**
 * "Resume in terminal" for local sessions: which CLI resumes a session, with which
 * arguments. The id comes from a transcript file (untrusted) and is typed into a shell,
 * so only ids of letters, digits, `-` and `_` that start with a letter or digit are
 * accepted (no quoting, no option injection); real Claude Code and Codex ids are UUIDs.
 */
import type { SessionSummary } from './session.ts';

export type ResumeCli = 'claude' | 'codex';

export interface ResumeCommand {
  /** The executable, looked up on PATH. */
  cli: ResumeCli;
  args: string[];
  /** What is typed into the terminal: the CLI name and the validated id, nothing else. */
  commandLine: string;
}

export type ResumePlan =
  | { ok: true; command: ResumeCommand }
  | { ok: false; reason: 'notResumable' }
  | { ok: false; reason: 'unsafeId'; id: string };

const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/** Ids safe to put on a command line unquoted. */
export function isSafeResumeId(id: string): boolean {
  return SAFE_ID.test(id);
}

/** A top-level Claude Code or Codex session with the harness's own id. */
export function isResumable(session: SessionSummary): boolean {
  return (
    typeof session.resumeId === 'string' &&
    session.resumeId !== '' &&
    !session.parentId &&
    (session.harness === 'claude-code' || session.harness === 'codex')
  );
}

export function resumePlan(session: SessionSummary): ResumePlan {
  if (!isResumable(session)) return { ok: false, reason: 'notResumable' };
  const id = session.resumeId!;
  if (!isSafeResumeId(id)) return { ok: false, reason: 'unsafeId', id };
  const command: ResumeCommand =
    session.harness === 'codex'
      ? { cli: 'codex', args: ['resume', id], commandLine: '' }
      : { cli: 'claude', args: ['--resume', id], commandLine: '' };
  command.commandLine = [command.cli, ...command.args].join(' ');
  return { ok: true, command };
}
