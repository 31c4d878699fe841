import type {
  CompletionArguments,
  CompletionIntent,
  CompletionOutcome,
} from '../domain/completionIntent.ts';
import { sessionCompleteArguments } from '../domain/completionIntent.ts';
import { plainSurfaceText } from '../domain/surfaceText.ts';
import { sourceOperation } from '../sources/sessionSource.ts';
import type { IntentStore } from './intentStore.ts';
import type { SessionStore } from './sessionStore.ts';

/**
 * Sends completion intents. The intent (key + arguments) is saved before the first
 * send and removed only on a terminal answer — applied or refused — so retries after
 * anything else reuse it unchanged. After an applied answer the session is re-read:
 * "accepted" is not "done".
 */
export class CompletionService {
  private readonly store: SessionStore;
  private readonly intents: IntentStore;
  private readonly newKey: () => string;
  private readonly now: () => Date;

  constructor(options: {
    store: SessionStore;
    intents: IntentStore;
    newKey: () => string;
    now?: () => Date;
  }) {
    this.store = options.store;
    this.intents = options.intents;
    this.newKey = options.newKey;
    this.now = options.now ?? (() => new Date());
  }

  /** Saves a new intent with a fresh key. Nothing is sent yet. */
  async create(
    connectionId: string,
    sessionLabel: string,
    args: CompletionArguments,
  ): Promise<CompletionIntent> {
    const intent: CompletionIntent = {
      idempotencyKey: this.newKey(),
      connectionId,
      sessionLabel,
      args,
      createdAt: this.now().toISOString(),
      attempts: 0,
    };
    await this.intents.save(intent);
    return intent;
  }

  unfinished(): CompletionIntent[] {
    return this.intents.all();
  }

  unfinishedFor(connectionId: string, sessionId: string): CompletionIntent | undefined {
    return this.intents.forSession(connectionId, sessionId);
  }

  async discard(intent: CompletionIntent): Promise<void> {
    await this.intents.remove(intent.idempotencyKey);
  }

  /** One attempt with the intent's own key and arguments. */
  async send(intent: CompletionIntent, signal?: AbortSignal): Promise<CompletionOutcome> {
    const source = sourceOperation(this.store.source(intent.connectionId), 'complete');
    if (!source) {
      return {
        kind: 'unknown',
        reason: 'unreachable',
        text: 'The connection for this session is not configured any more.',
      };
    }
    const attempt = { ...intent, attempts: intent.attempts + 1 };
    await this.intents.save(attempt);
    const outcome = await source.completeSession(sessionCompleteArguments(attempt), signal);
    if (outcome.kind === 'unknown') {
      // The server's words, kept until a terminal answer: cut, so the saved state stays small.
      await this.intents.save({ ...attempt, lastError: plainSurfaceText(outcome.text) });
    } else {
      await this.intents.remove(intent.idempotencyKey);
      if (outcome.kind === 'applied') await this.store.refresh(intent.connectionId);
    }
    return outcome;
  }
}
