import * as vscode from 'vscode';
import { sessionOf } from './commandArgs.ts';
import { failureWhy, unconfirmedWhy } from './outcomeText.ts';
import type {
  CompletionIntent,
  CompletionOutcome,
  PendingInstruction,
} from '../domain/completionIntent.ts';
import { findBackendError } from '../domain/errors.ts';
import type { SessionSummary } from '../domain/session.ts';
import {
  DETAIL_MAX_LENGTH,
  LABEL_MAX_LENGTH,
  plainSurfaceText,
  surfaceError,
  surfaceLabel,
} from '../domain/surfaceText.ts';
import { sourceOperation } from '../sources/sessionSource.ts';
import type { SessionCompletion, SessionInterrupt } from '../sources/steering.ts';
import type { CompletionService } from '../store/completions.ts';
import type { SessionStore } from '../store/sessionStore.ts';
import { showError, showInformation, showWarning } from '../views/safeMessage.ts';

interface Deps {
  store: SessionStore;
  completions: CompletionService;
}

/**
 * Complete / Cancel (session_complete with one idempotency key per intent),
 * resuming unfinished intents, and Interrupt for the agents REST API.
 */
export function registerSteeringCommands(deps: Deps): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('sessionInspector.completeSession', (arg?: unknown) =>
      finish(deps, arg, 'completed'),
    ),
    vscode.commands.registerCommand('sessionInspector.cancelSession', (arg?: unknown) =>
      finish(deps, arg, 'canceled'),
    ),
    vscode.commands.registerCommand('sessionInspector.retryCompletions', () =>
      offerUnfinished(deps, true),
    ),
    vscode.commands.registerCommand('sessionInspector.interruptSession', (arg?: unknown) =>
      interrupt(deps, arg),
    ),
  ];
}

/** Sessions whose connection exposes session_complete and that have not finished. */
function eligible(store: SessionStore): SessionSummary[] {
  return store
    .connections()
    .filter((c) => c.capabilities?.complete)
    .flatMap((c) => c.sessions)
    .filter((s) => s.status.status !== 'finished');
}

async function finish(deps: Deps, arg: unknown, status: 'completed' | 'canceled'): Promise<void> {
  const session =
    sessionOf(arg) ??
    (await pickSession(
      eligible(deps.store),
      status === 'completed'
        ? vscode.l10n.t('Complete which session?')
        : vscode.l10n.t('Cancel which session?'),
      vscode.l10n.t(
        'No loaded session can be finished from here (their backends lack session_complete).',
      ),
    ));
  if (!session) return;
  const source = sourceOperation(deps.store.source(session.connectionId), 'complete');
  const offered = source ? await checkOffered(source) : false;
  if (offered === 'unchecked') return;
  if (!source || !offered) {
    void showWarning(
      vscode.l10n.t(
        'This connection does not offer session_complete, so sessions cannot be finished from here.',
      ),
    );
    return;
  }
  const earlier = deps.completions.unfinishedFor(session.connectionId, session.id);
  if (earlier) {
    const resume = vscode.l10n.t('Retry Earlier Request');
    const discard = vscode.l10n.t('Discard It and Start Over');
    const answer = await showWarning(
      vscode.l10n.t(
        'An earlier request to {0} "{1}" never got a confirmed answer. Retrying sends it again with the same idempotency key, so it cannot apply twice.',
        earlier.args.status === 'completed' ? vscode.l10n.t('complete') : vscode.l10n.t('cancel'),
        surfaceLabel(earlier.sessionLabel),
      ),
      { modal: true },
      resume,
      discard,
    );
    if (answer === resume) return send(deps, earlier);
    if (answer !== discard) return;
    await deps.completions.discard(earlier);
  }
  const args = await (status === 'completed' ? askCompletion(session, source) : askCancel(session));
  if (!args) return;
  // The label is kept with the intent until the server answers: shortened, so state stays small.
  const intent = await deps.completions.create(
    session.connectionId,
    surfaceLabel(session.label),
    args,
  );
  await send(deps, intent);
}

/**
 * Whether the server lists session_complete. A failed check (429, 5xx, a reset) is not a
 * "no": the user is told it could not be checked and may retry; 'unchecked' if they do not.
 */
async function checkOffered(source: SessionCompletion): Promise<boolean | 'unchecked'> {
  for (;;) {
    try {
      return await source.canComplete();
    } catch (error) {
      if (findBackendError(error)?.kind === 'canceled') return 'unchecked';
      const retry = vscode.l10n.t('Retry');
      const answer = await showWarning(
        vscode.l10n.t(
          'Could not check whether this connection offers session_complete ({0}). Nothing was sent.',
          failureWhy(error),
        ),
        retry,
      );
      if (answer !== retry) return 'unchecked';
    }
  }
}

async function pickSession(
  sessions: SessionSummary[],
  placeHolder: string,
  noneText: string,
): Promise<SessionSummary | undefined> {
  if (sessions.length === 0) {
    void showInformation(noneText);
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    sessions.map((session) => ({
      label: surfaceLabel(session.label),
      description: plainSurfaceText(
        [session.status.raw, session.repository].filter(Boolean).join(' · '),
        { maxLength: DETAIL_MAX_LENGTH, breakUrls: true },
      ),
      session,
    })),
    { placeHolder },
  );
  return picked?.session;
}

type SendableArgs = CompletionIntent['args'];

async function askCompletion(
  session: SessionSummary,
  source: SessionCompletion,
): Promise<SendableArgs | undefined> {
  const summary = await vscode.window.showInputBox({
    title: vscode.l10n.t('Complete "{0}" (1/3): summary', surfaceLabel(session.label)),
    prompt: vscode.l10n.t('What was done; shown to reviewers.'),
    ignoreFocusOut: true,
  });
  if (summary === undefined) return undefined;
  const pending = await readPendingInstructions(session, source);
  if (!pending) return undefined;
  const { instructions, unreadable } = pending;
  let acknowledged: string[] = [];
  if (instructions.length > 0) {
    const picked = await pickAcknowledged(session, instructions);
    if (!picked) return undefined;
    acknowledged = picked;
  }
  const review = await askReview(session);
  if (!review) return undefined;
  const requestReview = review.review;
  const completed = { sessionId: session.id, status: 'completed' as const, summary };
  if (unreadable !== undefined) {
    const message = vscode.l10n.t(
      'The pending instructions of "{0}" could not be read ({1}). Completing now closes any instruction still waiting visibly as unacknowledged.',
      surfaceLabel(session.label),
      unreadable,
    );
    return (await confirmAnyway(message)) ? { ...completed, requestReview } : undefined;
  }
  const missing = instructions.length - acknowledged.length;
  if (missing > 0) {
    // session_complete refuses an incomplete acknowledgement list; without the list the
    // server completes and closes every pending instruction visibly as unacknowledged.
    const message = vscode.l10n.t(
      '{0} of {1} pending instructions are not acknowledged. Completing now closes all pending instructions visibly as unacknowledged.',
      missing,
      instructions.length,
    );
    return (await confirmAnyway(message)) ? { ...completed, requestReview } : undefined;
  }
  return { ...completed, acknowledgedInstructionIds: acknowledged, requestReview };
}

/**
 * The session's pending instructions; undefined when the user canceled the call.
 * Unreadable instructions are not "none": acknowledging [] would be refused while any
 * wait, so the field is left out and the user is told what that does before confirming.
 */
async function readPendingInstructions(
  session: SessionSummary,
  source: SessionCompletion,
): Promise<{ instructions: PendingInstruction[]; unreadable: string | undefined } | undefined> {
  let instructions: PendingInstruction[] = [];
  let unreadable: string | undefined;
  try {
    const listed = await source.listPendingInstructions(session.id);
    if (listed) instructions = listed;
    else unreadable = vscode.l10n.t('this server offers no list-pending-instructions tool');
  } catch (error) {
    if (findBackendError(error)?.kind === 'canceled') return undefined;
    unreadable = failureWhy(error);
  }
  return { instructions, unreadable };
}

/** Step 2: the ids of the instructions the user acknowledges; undefined when dismissed. */
async function pickAcknowledged(
  session: SessionSummary,
  instructions: PendingInstruction[],
): Promise<string[] | undefined> {
  const picked = await vscode.window.showQuickPick(
    instructions.map((i) => ({
      // Instruction text, author and id are the server's.
      label: plainSurfaceText(i.text, { maxLength: DETAIL_MAX_LENGTH }),
      description: [
        i.author
          ? plainSurfaceText(i.author, { maxLength: LABEL_MAX_LENGTH, breakUrls: true })
          : '',
        i.processed ? vscode.l10n.t('processed') : vscode.l10n.t('not processed'),
      ]
        .filter(Boolean)
        .join(' · '),
      detail: plainSurfaceText(i.id, { maxLength: LABEL_MAX_LENGTH, breakUrls: true }),
      picked: i.processed,
      id: i.id,
    })),
    {
      title: vscode.l10n.t(
        'Complete "{0}" (2/3): acknowledge instructions',
        surfaceLabel(session.label),
      ),
      placeHolder: vscode.l10n.t('Check every instruction the agent received and processed'),
      canPickMany: true,
      ignoreFocusOut: true,
    },
  );
  return picked?.map((p) => p.id);
}

/** Step 3: whether to request a review; undefined when dismissed. */
function askReview(session: SessionSummary): Thenable<{ review: boolean } | undefined> {
  return vscode.window.showQuickPick(
    [
      { label: vscode.l10n.t('No review needed'), review: false },
      {
        label: vscode.l10n.t('Request review'),
        detail: vscode.l10n.t('Ask a person to review this work'),
        review: true,
      },
    ],
    {
      title: vscode.l10n.t('Complete "{0}" (3/3): review', surfaceLabel(session.label)),
      ignoreFocusOut: true,
    },
  );
}

/** A modal warning with "Complete Anyway"; true when the user chose it. */
async function confirmAnyway(message: string): Promise<boolean> {
  const go = vscode.l10n.t('Complete Anyway');
  return (await showWarning(message, { modal: true }, go)) === go;
}

async function askCancel(session: SessionSummary): Promise<SendableArgs | undefined> {
  const summary = await vscode.window.showInputBox({
    title: vscode.l10n.t('Cancel "{0}": reason', surfaceLabel(session.label)),
    prompt: vscode.l10n.t('Optional: why the session is canceled.'),
    ignoreFocusOut: true,
  });
  if (summary === undefined) return undefined;
  const confirm = vscode.l10n.t('Cancel Session');
  const answer = await showWarning(
    vscode.l10n.t(
      'Cancel "{0}"? The agent stops and the session cannot be resumed.',
      surfaceLabel(session.label),
    ),
    { modal: true },
    confirm,
  );
  if (answer !== confirm) return undefined;
  return { sessionId: session.id, status: 'canceled', summary: summary || undefined };
}

/** One attempt, with progress and cancellation; says honestly what happened. */
async function send(deps: Deps, intent: CompletionIntent): Promise<void> {
  const outcome: CompletionOutcome = await vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title:
        intent.args.status === 'completed'
          ? vscode.l10n.t('Completing "{0}"…', surfaceLabel(intent.sessionLabel))
          : vscode.l10n.t('Canceling "{0}"…', surfaceLabel(intent.sessionLabel)),
      cancellable: true,
    },
    async (_progress, cancellation) => {
      const abort = new AbortController();
      const listener = cancellation.onCancellationRequested(() => abort.abort());
      try {
        return await deps.completions.send(intent, abort.signal);
      } finally {
        listener.dispose();
      }
    },
  );
  await report(deps, intent, outcome);
}

async function report(
  deps: Deps,
  intent: CompletionIntent,
  outcome: CompletionOutcome,
): Promise<void> {
  const label = surfaceLabel(intent.sessionLabel);
  if (outcome.kind === 'applied') {
    void showInformation(
      intent.args.status === 'completed'
        ? vscode.l10n.t('"{0}" was completed.', label)
        : vscode.l10n.t('"{0}" was canceled.', label),
    );
    return;
  }
  if (outcome.kind === 'refused') {
    void showError(
      vscode.l10n.t(
        'The server refused to finish "{0}": {1}',
        label,
        plainSurfaceText(outcome.text, { maxLength: DETAIL_MAX_LENGTH }),
      ),
    );
    return;
  }
  const retry = vscode.l10n.t('Retry');
  const discard = vscode.l10n.t('Discard');
  const answer = await showWarning(
    vscode.l10n.t(
      'Not confirmed: {0} for "{1}" ({2}). It may or may not have been applied. Retrying reuses the same idempotency key, so it cannot apply twice.',
      intent.args.status === 'completed'
        ? vscode.l10n.t('completion')
        : vscode.l10n.t('cancellation'),
      label,
      unconfirmedWhy(outcome.reason),
    ),
    retry,
    discard,
  );
  const current = deps.completions.unfinishedFor(intent.connectionId, intent.args.sessionId);
  if (answer === retry && current) await send(deps, current);
  if (answer === discard && current) await deps.completions.discard(current);
}

/** At startup (no request made) and from the palette: unfinished intents, never dropped silently. */
export async function offerUnfinished(deps: Deps, fromPalette = false): Promise<void> {
  const unfinished = deps.completions.unfinished();
  if (unfinished.length === 0) {
    if (fromPalette) void showInformation(vscode.l10n.t('No completion is waiting for an answer.'));
    return;
  }
  const review = vscode.l10n.t('Review');
  const answer = fromPalette
    ? review
    : await showWarning(
        vscode.l10n.t('{0} session completion(s) never got a confirmed answer.', unfinished.length),
        review,
      );
  if (answer !== review) return;
  const picked = await vscode.window.showQuickPick(
    unfinished.map((intent) => ({
      label: surfaceLabel(intent.sessionLabel),
      description: `${intent.args.status} · ${vscode.l10n.t('{0} attempts', intent.attempts)}`,
      detail:
        intent.lastError === undefined
          ? undefined
          : plainSurfaceText(intent.lastError, { maxLength: DETAIL_MAX_LENGTH, breakUrls: true }),
      intent,
    })),
    { placeHolder: vscode.l10n.t('Retry which one? (same idempotency key)') },
  );
  if (picked) await send(deps, picked.intent);
}

async function interrupt(deps: Deps, arg: unknown): Promise<void> {
  const session =
    sessionOf(arg) ??
    (await pickSession(
      deps.store
        .connections()
        .filter((c) => c.capabilities?.interrupt)
        .flatMap((c) => c.sessions)
        .filter((s) => s.status.raw === 'running'),
      vscode.l10n.t('Interrupt which session?'),
      vscode.l10n.t('No loaded session is running, so there is nothing to interrupt.'),
    ));
  if (!session) return;
  const source = sourceOperation(deps.store.source(session.connectionId), 'interrupt');
  if (!source) return;
  const label = surfaceLabel(session.label);
  for (;;) {
    try {
      const result = await source.interrupt(session.id);
      void showInformation(
        result === 'nothingToInterrupt'
          ? vscode.l10n.t('"{0}" had nothing running to interrupt.', label)
          : vscode.l10n.t('"{0}" was interrupted.', label),
      );
      await deps.store.refresh(session.connectionId);
      return;
    } catch (error) {
      if (!UNCONFIRMED_KINDS.has(findBackendError(error)?.kind ?? 'toolError')) {
        // The server answered and refused (or rejected the credentials): nothing was applied.
        void showError(vscode.l10n.t('Could not interrupt "{0}": {1}', label, surfaceError(error)));
        return;
      }
      if ((await settleInterrupt(source, session, error)) !== 'tryAgain') {
        await deps.store.refresh(session.connectionId);
        return;
      }
    }
  }
}

/** Failures after which the interrupt may or may not have reached the session. */
const UNCONFIRMED_KINDS: ReadonlySet<string> = new Set([
  'network',
  'timeout',
  'server',
  'rateLimited',
  'invalidResponse',
  'canceled',
]);

/**
 * The interrupt got no usable answer: the session is read again and the user told what it
 * shows — no longer running (done), still running (nothing applied; Try Again), or still
 * running after a timeout, when the server may still apply it.
 */
async function settleInterrupt(
  source: SessionInterrupt,
  session: SessionSummary,
  error: unknown,
): Promise<'tryAgain' | 'stop'> {
  const label = surfaceLabel(session.label);
  const why = failureWhy(error);
  const timedOut = findBackendError(error)?.kind === 'timeout';
  const tryAgain = vscode.l10n.t('Try Again');
  const checkAgain = vscode.l10n.t('Check Again');
  for (;;) {
    let status: string | undefined;
    let failure: unknown;
    try {
      status = await source.sessionStatus(session.id);
    } catch (readError) {
      failure = readError;
    }
    if (status !== undefined && status !== 'running') {
      void showInformation(
        vscode.l10n.t(
          'The answer to interrupting "{0}" was lost ({1}), but it is no longer running.',
          label,
          why,
        ),
      );
      return 'stop';
    }
    let answer: string | undefined;
    if (status === 'running' && !timedOut) {
      answer = await showWarning(
        vscode.l10n.t(
          '"{0}" was not interrupted ({1}): it is still running, so nothing was applied.',
          label,
          why,
        ),
        tryAgain,
      );
    } else if (status === 'running') {
      answer = await showWarning(
        vscode.l10n.t(
          'Not confirmed: interrupting "{0}" got no answer in time. It is still running for now, but the server may still apply the interrupt; check again in a moment.',
          label,
        ),
        checkAgain,
        tryAgain,
      );
    } else {
      answer = await showWarning(
        vscode.l10n.t(
          'Not confirmed: interrupting "{0}" got no answer ({1}), and reading the session again did not tell ({2}). It may or may not have been applied.',
          label,
          why,
          status === undefined && failure === undefined
            ? vscode.l10n.t('its status was not given')
            : failureWhy(failure),
        ),
        checkAgain,
      );
    }
    if (answer === tryAgain) return 'tryAgain';
    if (answer !== checkAgain) return 'stop';
  }
}
