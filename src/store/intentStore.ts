import type { CompletionIntent } from '../domain/completionIntent.ts';

/** The slice of vscode.Memento this needs (globalState survives window reloads). */
export interface IntentMemory {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void> | Promise<void>;
}

const KEY = 'completionIntents';

/** Unfinished completion intents, persisted so a reload can resume them with the same key. */
export class IntentStore {
  private readonly memory: IntentMemory;

  constructor(memory: IntentMemory) {
    this.memory = memory;
  }

  all(): CompletionIntent[] {
    const value = this.memory.get<CompletionIntent[]>(KEY);
    return Array.isArray(value) ? value : [];
  }

  get(key: string): CompletionIntent | undefined {
    return this.all().find((i) => i.idempotencyKey === key);
  }

  /** An unfinished intent for the same session, to resume instead of minting a new key. */
  forSession(connectionId: string, sessionId: string): CompletionIntent | undefined {
    return this.all().find(
      (i) => i.connectionId === connectionId && i.args.sessionId === sessionId,
    );
  }

  async save(intent: CompletionIntent): Promise<void> {
    const others = this.all().filter((i) => i.idempotencyKey !== intent.idempotencyKey);
    await this.memory.update(KEY, [...others, intent]);
  }

  async remove(key: string): Promise<void> {
    await this.memory.update(
      KEY,
      this.all().filter((i) => i.idempotencyKey !== key),
    );
  }
}
