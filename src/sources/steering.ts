import type { CompletionOutcome, PendingInstruction } from '../domain/completionIntent.ts';
import type { ManualTaskView } from '../shared/protocol.ts';

/** Sources that can complete or cancel sessions (MCP `session_complete`). */
export interface SessionCompletion {
  canComplete(signal?: AbortSignal): Promise<boolean>;
  listPendingInstructions(sessionId: string, signal?: AbortSignal): Promise<PendingInstruction[]>;
  /** Sends session_complete with exactly these arguments (the key included). Never throws. */
  completeSession(args: Record<string, unknown>, signal?: AbortSignal): Promise<CompletionOutcome>;
}

/** Described in the shared protocol, because the panel shows it as is. */
export type ManualTaskDetail = ManualTaskView;

/** Sources with Itential manual tasks. */
export interface ManualTasks {
  describeManualTask(workItemId: string, signal?: AbortSignal): Promise<ManualTaskDetail>;
  /** confirm=false returns the server's preview text; confirm=true applies (irreversible). */
  completeManualTask(
    workItemId: string,
    finishState: 'success' | 'failure',
    confirm: boolean,
    signal?: AbortSignal,
  ): Promise<string>;
}

/** Sources that can interrupt a running session (agents REST API). */
export interface SessionInterrupt {
  interrupt(sessionId: string, signal?: AbortSignal): Promise<'interrupted' | 'nothingToInterrupt'>;
}

export function canCompleteSessions(source: object): source is SessionCompletion {
  return typeof (source as Partial<SessionCompletion>).completeSession === 'function';
}
export function hasManualTasks(source: object): source is ManualTasks {
  return typeof (source as Partial<ManualTasks>).describeManualTask === 'function';
}
export function canInterrupt(source: object): source is SessionInterrupt {
  return typeof (source as Partial<SessionInterrupt>).interrupt === 'function';
}
