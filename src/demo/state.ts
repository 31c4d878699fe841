import type { InstructionState } from './data/instructions.ts';
import type { Dataset } from './dataset.ts';

export interface CompletionRecord {
  readonly sessionId: string;
  readonly status: 'completed' | 'canceled';
  readonly summary: string | null;
  readonly reviewRequested: boolean;
  readonly completedAt: string;
  readonly acknowledgedInstructionIds: readonly string[];
  readonly unacknowledgedInstructionIds: readonly string[];
  readonly idempotencyKey: string;
}

export interface InstructionView {
  readonly id: string;
  readonly state: InstructionState;
  readonly processed: boolean;
}

/** What tests, benchmarks and the demo may read about mutations the backend applied. */
export interface BackendStateView {
  /** How many times session_complete actually changed this session (retries excluded). */
  appliedCompletions(sessionId: string): number;
  completion(sessionId: string): CompletionRecord | undefined;
  /** How many times complete_manual_task was applied (confirm=true) to this work item. */
  appliedManualTasks(workItemId: string): number;
  /** How many interrupts were applied to this REST session. */
  appliedInterrupts(agentKey: string, sessionKey: string): number;
  instructions(sessionId: string): readonly InstructionView[];
  readonly monitoringEnabled: boolean;
}

interface IdempotencyEntry {
  readonly fingerprint: string;
  readonly record: CompletionRecord;
}

export class BackendState implements BackendStateView {
  monitoringEnabled: boolean;
  readonly legacyItentialShape: boolean;
  private readonly dataset: Dataset;
  private readonly completions = new Map<string, CompletionRecord>();
  private readonly completionCounts = new Map<string, number>();
  private readonly manualTaskCounts = new Map<string, number>();
  private readonly interruptCounts = new Map<string, number>();
  private readonly idempotency = new Map<string, IdempotencyEntry>();

  constructor(
    dataset: Dataset,
    options: { monitoringEnabled: boolean; legacyItentialShape: boolean },
  ) {
    this.dataset = dataset;
    this.monitoringEnabled = options.monitoringEnabled;
    this.legacyItentialShape = options.legacyItentialShape;
  }

  appliedCompletions(sessionId: string): number {
    return this.completionCounts.get(sessionId) ?? 0;
  }

  completion(sessionId: string): CompletionRecord | undefined {
    return this.completions.get(sessionId);
  }

  appliedManualTasks(workItemId: string): number {
    return this.manualTaskCounts.get(workItemId) ?? 0;
  }

  appliedInterrupts(agentKey: string, sessionKey: string): number {
    return this.interruptCounts.get(`${agentKey}/${sessionKey}`) ?? 0;
  }

  instructions(sessionId: string): readonly InstructionView[] {
    return this.dataset.closedloop.instructions
      .filter((i) => i.sessionId === sessionId)
      .map((i) => ({ id: i.id, state: i.state, processed: i.processed }));
  }

  idempotentReplay(key: string): IdempotencyEntry | undefined {
    return this.idempotency.get(key);
  }

  recordCompletion(record: CompletionRecord, fingerprint: string): void {
    this.completions.set(record.sessionId, record);
    this.idempotency.set(record.idempotencyKey, { fingerprint, record });
    this.completionCounts.set(record.sessionId, this.appliedCompletions(record.sessionId) + 1);
  }

  recordManualTask(workItemId: string): void {
    this.manualTaskCounts.set(workItemId, this.appliedManualTasks(workItemId) + 1);
  }

  recordInterrupt(agentKey: string, sessionKey: string): void {
    const key = `${agentKey}/${sessionKey}`;
    this.interruptCounts.set(key, (this.interruptCounts.get(key) ?? 0) + 1);
  }
}
