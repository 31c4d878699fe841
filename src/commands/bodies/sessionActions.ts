import * as vscode from 'vscode';
import { relativeTime } from '../../domain/format.ts';
import { resumePlan } from '../../domain/resume.ts';
import type { SessionSummary } from '../../domain/session.ts';
import { sessionLink } from '../../domain/sessionLink.ts';
import { plainSurfaceText, surfaceLabel } from '../../domain/surfaceText.ts';
import { showInformation } from '../../views/safeMessage.ts';
import { statusLabel } from '../../views/statusPresentation.ts';
import { sessionOf } from '../commandArgs.ts';
import type {
  ArchiveOptions,
  SessionActionDeps,
  SessionActionId,
} from '../sessionActionCommands.ts';
import { pickSessionFrom } from '../sessionPicker.ts';

/** How long the "Copied …" note stays in the status bar. */
const NOTE_MS = 4_000;

type Action = (deps: SessionActionDeps, session: SessionSummary, ...rest: unknown[]) => unknown;

/** What each command of sessionActionCommands.ts does with its session. */
const ACTIONS: Record<SessionActionId, Action> = {
  'sessionInspector.copySessionId': (_deps, session) => copySessionId(session),
  'sessionInspector.copyResumeCommand': (_deps, session) => copyResumeCommand(session),
  'sessionInspector.copyLink': (_deps, session) => copyLink(session),
  'sessionInspector.archiveSession': (deps, session, options) =>
    archiveSession(deps, session, (options ?? {}) as ArchiveOptions),
  'sessionInspector.unarchiveSession': async (deps, session) => {
    await deps.archive.unarchive(session.connectionId, [session.id]);
    note(vscode.l10n.t('"{0}" is back in the Sessions view', surfaceLabel(session.label)));
    return true;
  },
};

/** Runs a session action on the session given (a row, the panel) or picked from the palette. */
export async function runSessionAction(
  deps: SessionActionDeps,
  id: SessionActionId,
  arg?: unknown,
  ...rest: unknown[]
): Promise<unknown> {
  const session = sessionOf(arg) ?? (await pickSession(deps, id));
  return session ? ACTIONS[id](deps, session, ...rest) : undefined;
}

async function copySessionId(session: SessionSummary): Promise<string> {
  // A local session's row id is its file's path; the harness's own id is what users paste.
  const id = session.resumeId ?? session.id;
  await vscode.env.clipboard.writeText(id);
  note(vscode.l10n.t('Copied the session id {0}', plainSurfaceText(id, { maxLength: 80 })));
  return id;
}

async function copyResumeCommand(session: SessionSummary): Promise<string | undefined> {
  const plan = resumePlan(session);
  if (!plan.ok) {
    void showInformation(
      plan.reason === 'unsafeId'
        ? vscode.l10n.t(
            'The session id of "{0}" is not safe to put on a command line, so there is no command to copy.',
            surfaceLabel(session.label),
          )
        : vscode.l10n.t(
            '"{0}" cannot be resumed from a terminal: only Claude Code and Codex sessions on this machine can.',
            surfaceLabel(session.label),
          ),
    );
    return undefined;
  }
  await vscode.env.clipboard.writeText(plan.command.commandLine);
  note(vscode.l10n.t('Copied: {0}', plan.command.commandLine));
  return plan.command.commandLine;
}

async function copyLink(session: SessionSummary): Promise<string | undefined> {
  const link = sessionLink(session);
  if (!link) {
    void showInformation(
      vscode.l10n.t('The backend gives no web address for "{0}".', surfaceLabel(session.label)),
    );
    return undefined;
  }
  await vscode.env.clipboard.writeText(link);
  note(vscode.l10n.t('Copied the link to "{0}"', surfaceLabel(session.label)));
  return link;
}

/**
 * Archive: the user's "done, not my concern". A remote session that is still waiting or
 * running is not finished by it; the user is asked whether to also complete it through
 * session_complete (the Complete command, with its own confirmation and outcome).
 */
async function archiveSession(
  deps: SessionActionDeps,
  session: SessionSummary,
  options: ArchiveOptions,
): Promise<boolean> {
  const capabilities = deps.store.state(session.connectionId)?.capabilities;
  const open = session.status.status === 'waiting' || session.status.status === 'active';
  let complete = options.complete === true;
  if (options.complete === undefined && open && capabilities?.complete) {
    const archiveOnly = vscode.l10n.t('Archive');
    const both = vscode.l10n.t('Complete and Archive');
    const answer = await showInformation(
      vscode.l10n.t('Archive "{0}"?', surfaceLabel(session.label)),
      {
        modal: true,
        detail: vscode.l10n.t(
          'The session is {0}. Archiving only hides it here (and from the waiting count); the agent is not told. Complete and Archive also marks it completed on the server.',
          statusLabel(session.status.status),
        ),
      },
      archiveOnly,
      both,
    );
    if (answer === undefined) return false;
    complete = answer === both;
  }
  await deps.archive.archive(session.connectionId, [session.id]);
  note(
    vscode.l10n.t(
      'Archived "{0}". Show Archived (Sessions view) brings it back.',
      surfaceLabel(session.label),
    ),
  );
  if (complete) {
    await vscode.commands.executeCommand('sessionInspector.completeSession', {
      kind: 'session',
      session,
    });
  }
  return true;
}

function note(text: string): void {
  vscode.window.setStatusBarMessage(`$(check) ${text}`, NOTE_MS);
}

/** From the palette: sessions the command applies to (archived ones only for Unarchive). */
function pickSession(
  { store, tree, archive }: SessionActionDeps,
  commandId: SessionActionId,
): Promise<SessionSummary | undefined> {
  const applies = (session: SessionSummary): boolean => {
    switch (commandId) {
      case 'sessionInspector.copyResumeCommand':
        return resumePlan(session).ok;
      case 'sessionInspector.copyLink':
        return sessionLink(session) !== undefined;
      case 'sessionInspector.archiveSession':
        return !tree.isArchived(session);
      case 'sessionInspector.unarchiveSession':
        return archive.isArchived(session.connectionId, session.id);
      default:
        return true;
    }
  };
  return pickSessionFrom(
    store
      .connections()
      .flatMap((c) => c.sessions)
      .filter(applies),
    {
      empty: vscode.l10n.t('No loaded session fits this command.'),
      withStatus: true,
      detail: (session) => relativeTime(session.lastActivityAt),
      quickPick: { placeHolder: vscode.l10n.t('Which session?'), matchOnDescription: true },
    },
  );
}
