/**
 * One user intent to complete or cancel a session. It gets one idempotency key,
 * is saved with its full arguments before the first send and is kept until the
 * server gives a terminal answer, so every retry — after a timeout, a dropped
 * connection, a 5xx or a window reload — sends the same key and the same arguments.
 */
export interface CompletionArguments {
  sessionId: string;
  status: 'completed' | 'canceled';
  summary?: string;
  /** Omitted on purpose when the user leaves instructions unacknowledged (see docs). */
  acknowledgedInstructionIds?: string[];
  requestReview?: boolean;
}

export interface CompletionIntent {
  idempotencyKey: string;
  connectionId: string;
  sessionLabel: string;
  args: CompletionArguments;
  createdAt: string;
  attempts: number;
  lastError?: string;
}

/** What the server's answer means for the intent. */
export type CompletionOutcome =
  | { kind: 'applied'; text: string }
  /** The server answered and refused (isError): terminal, shown as a failure of the action. */
  | { kind: 'refused'; text: string }
  /** No usable answer (timeout, dropped, 5xx, 429, 404, protocol error): keep the intent for a retry. */
  | {
      kind: 'unknown';
      text: string;
      reason: UnconfirmedReason;
    };

/** Why an answer did not confirm the outcome of a mutation. */
export type UnconfirmedReason =
  'timeout' | 'unreachable' | 'server' | 'rateLimited' | 'notFound' | 'auth' | 'canceled';

/** The arguments sent to session_complete: the intent's, plus its key — never re-minted. */
export function sessionCompleteArguments(intent: CompletionIntent): Record<string, unknown> {
  const args: Record<string, unknown> = {
    sessionId: intent.args.sessionId,
    status: intent.args.status,
    idempotencyKey: intent.idempotencyKey,
  };
  if (intent.args.summary) args.summary = intent.args.summary;
  if (intent.args.acknowledgedInstructionIds) {
    args.acknowledgedInstructionIds = intent.args.acknowledgedInstructionIds;
  }
  if (intent.args.status === 'completed' && intent.args.requestReview) args.requestReview = true;
  return args;
}

export interface PendingInstruction {
  id: string;
  text: string;
  createdAt?: string;
  processed: boolean;
  author?: string;
}
