import * as vscode from 'vscode';
import { sessionOf } from './commandArgs.ts';
import { failureWhy, unconfirmedWhy } from './outcomeText.ts';
import type { UnconfirmedReason } from '../domain/completionIntent.ts';
import type { PendingTask, SessionSummary } from '../domain/session.ts';
import {
  DETAIL_MAX_LENGTH,
  plainSurfaceText,
  surfaceError,
  surfaceLabel,
} from '../domain/surfaceText.ts';
import { sourceOperation } from '../sources/sessionSource.ts';
import type { ManualTaskDetail, ManualTasks } from '../sources/steering.ts';
import type { SessionStore } from '../store/sessionStore.ts';
import { showError, showInformation, showWarning } from '../views/safeMessage.ts';

/**
 * Completing an Itential manual task: irreversible, so the server's preview
 * (confirm=false) is shown and confirmed in a modal before confirm=true.
 * "Failure" is offered only when the task has a failure button.
 */
export function registerManualTaskCommands(store: SessionStore): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(
      'sessionInspector.completeManualTask',
      async (arg?: unknown) => {
        const session = await resolveSession(store, arg);
        if (!session) return;
        const source = sourceOperation(store.source(session.connectionId), 'manualTasks');
        if (!source) return;
        // From a task node the task is known; from a session or the palette, ask.
        const given =
          arg && typeof arg === 'object' && 'task' in arg
            ? (arg as { task: PendingTask }).task
            : undefined;
        const task = given ?? (await pickTask(session.pendingTasks ?? []));
        if (!task) return;
        await finishManualTask(store, session, source, task.id);
      },
    ),
  ];
}

async function resolveSession(
  store: SessionStore,
  arg: unknown,
): Promise<SessionSummary | undefined> {
  const given = sessionOf(arg);
  if (given) return given;
  const candidates = store
    .connections()
    .flatMap((c) => c.sessions)
    .filter((s) => s.pendingTasks?.some((t) => t.completionSupported));
  if (candidates.length === 0) {
    void showInformation(vscode.l10n.t('No manual task is waiting on you.'));
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    candidates.map((session) => ({
      label: surfaceLabel(session.label),
      description: `${session.pendingTasks?.length ?? 0}`,
      session,
    })),
    { placeHolder: vscode.l10n.t("Which session's manual task?") },
  );
  return picked?.session;
}

async function pickTask(tasks: PendingTask[]): Promise<PendingTask | undefined> {
  const completable = tasks.filter((t) => t.completionSupported);
  if (completable.length <= 1) {
    if (completable.length === 0 && tasks.length > 0) {
      void showWarning(
        vscode.l10n.t(
          'These manual tasks use a form view that cannot be completed from here; open them in the platform.',
        ),
      );
    }
    return completable[0];
  }
  const picked = await vscode.window.showQuickPick(
    completable.map((task) => ({
      label: surfaceLabel(task.title ?? task.id),
      description: task.viewType === undefined ? undefined : surfaceLabel(task.viewType),
      task,
    })),
    { placeHolder: vscode.l10n.t('Which manual task?') },
  );
  return picked?.task;
}

/**
 * Describes the task, lets the user choose how to finish it (unless the panel already
 * did), shows the server's preview in a modal and commits only on confirmation.
 */
export async function finishManualTask(
  store: SessionStore,
  session: SessionSummary,
  source: ManualTasks,
  taskId: string,
  finish?: 'success' | 'failure',
): Promise<void> {
  let task: ManualTaskDetail;
  try {
    task = await source.describeManualTask(taskId);
  } catch (error) {
    void showError(vscode.l10n.t('Could not read the manual task: {0}', surfaceError(error)));
    return;
  }
  // A task finished meanwhile (a lost answer the user retries, or someone else) is said so.
  if (task.state === 'finished') {
    void showInformation(alreadyFinished(task, task));
    return;
  }
  // Button labels, the message and the header are workflow-authored (backend text).
  const detail =
    task.message === undefined
      ? undefined
      : plainSurfaceText(task.message, { maxLength: DETAIL_MAX_LENGTH, breakUrls: true });
  const options = [
    {
      label: surfaceLabel(task.successLabel) || vscode.l10n.t('Success'),
      detail,
      finish: 'success' as const,
    },
    ...(task.failureLabel
      ? [
          {
            label: surfaceLabel(task.failureLabel) || vscode.l10n.t('Failure'),
            detail,
            finish: 'failure' as const,
          },
        ]
      : []),
  ];
  const header = surfaceLabel(task.header ?? task.id);
  const picked = finish
    ? options.find((o) => o.finish === finish)
    : await vscode.window.showQuickPick(options, {
        title: header,
        placeHolder: vscode.l10n.t('How do you finish this task?'),
      });
  if (finish && !picked) {
    void showWarning(vscode.l10n.t('This task has no failure button; only success is possible.'));
    return;
  }
  if (!picked) return;
  let preview: string;
  try {
    preview = await source.previewManualTask(task.id, picked.finish);
  } catch (error) {
    // A preview changes nothing, so "not finished" is the truth here.
    void showError(vscode.l10n.t('The manual task was not finished: {0}', surfaceError(error)));
    return;
  }
  const confirm = picked.label;
  const answer = await showWarning(
    vscode.l10n.t('Finish "{0}" as "{1}"? This cannot be undone.', header, picked.label),
    // The preview and body are the server's: a modal shows them as plain text (cleaned).
    { modal: true, detail: [preview, task.body ? `\n${task.body.slice(0, 2000)}` : ''].join('') },
    confirm,
  );
  if (answer !== confirm) return;
  await commit(store, session, source, task, picked);
}

type Choice = { label: string; finish: 'success' | 'failure' };

/**
 * Sends confirm=true. complete_manual_task has no idempotency key, so when no answer
 * confirms the outcome the task is re-read and the user is told what it shows: finished,
 * still open (Try Again is then safe), or still unknown.
 */
async function commit(
  store: SessionStore,
  session: SessionSummary,
  source: ManualTasks,
  task: ManualTaskDetail,
  picked: Choice,
): Promise<void> {
  for (;;) {
    const outcome = await source.commitManualTask(task.id, picked.finish);
    if (outcome.kind === 'applied') {
      void showInformation(vscode.l10n.t('The manual task was finished as "{0}".', picked.label));
      await store.refresh(session.connectionId);
      return;
    }
    if (outcome.kind === 'refused') {
      // "Already completed" after an earlier answer was lost is not "not finished".
      const reread = await source.describeManualTask(task.id).catch(() => undefined);
      if (reread?.state === 'finished') {
        void showInformation(alreadyFinished(reread, task));
        await store.refresh(session.connectionId);
        return;
      }
      void showError(
        vscode.l10n.t(
          'The manual task was not finished: {0}',
          plainSurfaceText(outcome.text, { maxLength: DETAIL_MAX_LENGTH }),
        ),
      );
      return;
    }
    const settled = await settleByRereading(source, task, picked, outcome.reason);
    if (settled === 'finished') await store.refresh(session.connectionId);
    if (settled !== 'tryAgain') return;
  }
}

async function settleByRereading(
  source: ManualTasks,
  task: ManualTaskDetail,
  picked: Choice,
  reason: UnconfirmedReason,
): Promise<'finished' | 'tryAgain' | 'stop'> {
  const header = surfaceLabel(task.header ?? task.id);
  const why = unconfirmedWhy(reason);
  for (;;) {
    let reread: ManualTaskDetail | undefined;
    let failure: unknown;
    try {
      reread = await source.describeManualTask(task.id);
    } catch (error) {
      failure = error;
    }
    if (reread?.state === 'finished') {
      const as = finishedAs(reread, task);
      void showInformation(
        as === undefined
          ? vscode.l10n.t(
              'The answer to finishing "{0}" was lost ({1}), but the task is now finished.',
              header,
              why,
            )
          : vscode.l10n.t(
              'The answer to finishing "{0}" was lost ({1}), but the task is now finished as "{2}".',
              header,
              why,
              as,
            ),
      );
      return 'finished';
    }
    const tryAgain = vscode.l10n.t('Try Again');
    const checkAgain = vscode.l10n.t('Check Again');
    if (reread?.state === 'open' && reason === 'timeout') {
      // The server may still be working on a request it did not answer in time: open now
      // does not mean nothing will be applied. A task finishes once, so Try Again is safe.
      const answer = await showWarning(
        vscode.l10n.t(
          'Not confirmed: finishing "{0}" as "{1}" got no answer in time. The task is still open for now, but the server may still apply the request; check again in a moment.',
          header,
          picked.label,
        ),
        checkAgain,
        tryAgain,
      );
      if (answer === checkAgain) continue;
      return answer === tryAgain ? 'tryAgain' : 'stop';
    }
    if (reread?.state === 'open') {
      const answer = await showWarning(
        vscode.l10n.t(
          '"{0}" was not finished ({1}): the task is still open, so nothing was applied.',
          header,
          why,
        ),
        tryAgain,
      );
      return answer === tryAgain ? 'tryAgain' : 'stop';
    }
    const answer = await showWarning(
      vscode.l10n.t(
        'Not confirmed: finishing "{0}" as "{1}" got no answer ({2}), and re-reading the task did not tell ({3}). It may or may not have been applied; check it before trying again.',
        header,
        picked.label,
        why,
        reread ? vscode.l10n.t('its status was not given') : failureWhy(failure),
      ),
      checkAgain,
    );
    if (answer !== checkAgain) return 'stop';
  }
}

/** A task that was finished before this request: not an error, and nothing was sent again. */
function alreadyFinished(reread: ManualTaskDetail, task: ManualTaskDetail): string {
  const header = surfaceLabel(task.header ?? task.id);
  const as = finishedAs(reread, task);
  return as === undefined
    ? vscode.l10n.t('"{0}" is already finished; nothing more was applied.', header)
    : vscode.l10n.t('"{0}" is already finished as "{1}"; nothing more was applied.', header, as);
}

/** The button the finished task was finished with, in the task's own words when known. */
function finishedAs(reread: ManualTaskDetail, task: ManualTaskDetail): string | undefined {
  if (reread.finishState === 'success')
    return surfaceLabel(reread.successLabel ?? task.successLabel) || vscode.l10n.t('Success');
  if (reread.finishState === 'failure')
    return surfaceLabel(reread.failureLabel ?? task.failureLabel) || vscode.l10n.t('Failure');
  return reread.finishState === undefined ? undefined : surfaceLabel(reread.finishState);
}
