import type { CompletionOutcome, PendingInstruction } from '../domain/completionIntent.ts';
import type { ManualTaskView } from '../shared/protocol.ts';

/** Sources that can complete or cancel sessions (MCP `session_complete`). */
export interface SessionCompletion {
  /** Whether the server offers session_complete; throws when that could not be checked. */
  canComplete(signal?: AbortSignal): Promise<boolean>;
  /**
   * The instructions waiting on the session; undefined when the server has no tool to list
   * them. Throws when the listing failed or its answer could not be read.
   */
  listPendingInstructions(
    sessionId: string,
    signal?: AbortSignal,
  ): Promise<PendingInstruction[] | undefined>;
  /** Sends session_complete with exactly these arguments (the key included). Never throws. */
  completeSession(args: Record<string, unknown>, signal?: AbortSignal): Promise<CompletionOutcome>;
}

/** What the panel shows (the shared protocol's view), plus whether the task is still open. */
export interface ManualTaskDetail extends ManualTaskView {
  /** From the task's status; undefined when the server's answer does not say. */
  state?: 'open' | 'finished';
  /** How it was finished ("success", "failure"), when the server says. */
  finishState?: string;
}

/** Sources with Itential manual tasks. */
export interface ManualTasks {
  describeManualTask(workItemId: string, signal?: AbortSignal): Promise<ManualTaskDetail>;
  /** The server's preview of finishing the task (complete_manual_task with confirm=false). */
  previewManualTask(
    workItemId: string,
    finishState: 'success' | 'failure',
    signal?: AbortSignal,
  ): Promise<string>;
  /**
   * Finishes the task (confirm=true, irreversible), classified like session_complete:
   * applied, refused, or unknown (no usable answer: it may have been applied). Never throws.
   */
  commitManualTask(
    workItemId: string,
    finishState: 'success' | 'failure',
    signal?: AbortSignal,
  ): Promise<CompletionOutcome>;
}

/** Sources that can interrupt a running session (agents REST API). */
export interface SessionInterrupt {
  interrupt(sessionId: string, signal?: AbortSignal): Promise<'interrupted' | 'nothingToInterrupt'>;
  /**
   * The session's status as the server gives it now ("running", "stopped", …): how an
   * interrupt whose answer was lost is settled. Undefined when the answer does not say.
   */
  sessionStatus(sessionId: string, signal?: AbortSignal): Promise<string | undefined>;
}
