import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import * as vscode from 'vscode';
import { sessionOf } from './commandArgs.ts';
import { pickSessionFrom } from './sessionPicker.ts';
import { relativeTime } from '../domain/format.ts';
import { isResumable, resumePlan, type ResumeCommand, type ResumePlan } from '../domain/resume.ts';
import type { SessionSummary } from '../domain/session.ts';
import { DETAIL_MAX_LENGTH, plainSurfaceText, surfaceLabel } from '../domain/surfaceText.ts';
import type { SessionStore } from '../store/sessionStore.ts';
import { findExecutable } from '../util/findExecutable.ts';
import { showError, showInformation, showWarning } from '../views/safeMessage.ts';

export const RESUME_COMMAND = 'sessionInspector.resumeInTerminal';
const NAME_MAX = 40;

/**
 * "Resume in Terminal": a local Claude Code or Codex session continued in its own CLI
 * (`claude --resume <id>`, `codex resume <id>`) in a new terminal in the session's folder.
 * From a session row, the session panel (a node argument) or the palette (a QuickPick).
 */
export function registerResumeCommands(store: SessionStore): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(RESUME_COMMAND, async (arg?: unknown) => {
      const session = sessionOf(arg) ?? (await pickResumable(store));
      if (session) await resumeInTerminal(store, session);
    }),
  ];
}

/** Whether the session's connection resumes sessions; capabilities load with the first list. */
async function canResume(store: SessionStore, session: SessionSummary): Promise<boolean> {
  if (store.state(session.connectionId)?.capabilities === undefined)
    await store.refresh(session.connectionId);
  return store.state(session.connectionId)?.capabilities?.resume === true;
}

async function resumeInTerminal(store: SessionStore, session: SessionSummary): Promise<void> {
  const plan: ResumePlan = (await canResume(store, session))
    ? resumePlan(session)
    : { ok: false, reason: 'notResumable' };
  if (!plan.ok) {
    if (plan.reason === 'unsafeId') {
      void showError(
        vscode.l10n.t(
          'Not resuming "{0}": its session id "{1}" is not safe to put on a command line (it must be letters, digits, "-" and "_", starting with a letter or digit).',
          surfaceLabel(session.label),
          plainSurfaceText(plan.id, { maxLength: 80 }),
        ),
      );
    } else {
      void showInformation(
        vscode.l10n.t(
          '"{0}" cannot be resumed in a terminal: only Claude Code and Codex sessions on this machine can (their subagents resume with them).',
          surfaceLabel(session.label),
        ),
      );
    }
    return;
  }
  const command = plan.command;
  // A terminal that fails with "command not found" helps nobody: say so, offer the command.
  if (!(await findExecutable(command.cli))) {
    void offerCopy(command, session);
    return;
  }
  const cwd = await workingFolder(session, command);
  const terminal = vscode.window.createTerminal({
    // Terminal tabs render `$(icon)`: the name goes through the sanitiser, one line, short.
    name: vscode.l10n.t('Resume: {0}', plainSurfaceText(session.label, { maxLength: NAME_MAX })),
    cwd,
    iconPath: new vscode.ThemeIcon('debug-continue'),
  });
  // Not disposed with the extension: the terminal and the agent running in it are the user's.
  terminal.show();
  terminal.sendText(command.commandLine, true);
}

async function offerCopy(command: ResumeCommand, session: SessionSummary): Promise<void> {
  const copy = vscode.l10n.t('Copy Command');
  const answer = await showWarning(
    vscode.l10n.t(
      'The {0} command is not on PATH, so "{1}" cannot be resumed here. Install it, or run this where it is installed: {2}',
      command.cli,
      surfaceLabel(session.label),
      command.commandLine,
    ),
    copy,
  );
  if (answer === copy) await vscode.env.clipboard.writeText(command.commandLine);
}

/** The session's folder when it still exists, else the home folder (and the user is told). */
async function workingFolder(session: SessionSummary, command: ResumeCommand): Promise<string> {
  const folder = session.project;
  if (
    folder &&
    (await stat(folder).then(
      (s) => s.isDirectory(),
      () => false,
    ))
  )
    return folder;
  const home = homedir();
  const where = folder
    ? vscode.l10n.t(
        "The session's folder {0} no longer exists: the terminal opens in your home folder.",
        plainSurfaceText(folder, { maxLength: DETAIL_MAX_LENGTH }),
      )
    : vscode.l10n.t(
        'The session does not record its folder: the terminal opens in your home folder.',
      );
  // Claude Code keeps sessions per project folder; Codex finds them from anywhere.
  const hint =
    command.cli === 'claude'
      ? ` ${vscode.l10n.t('Claude Code looks sessions up by folder, so it may not find this one there.')}`
      : '';
  void showInformation(where + hint);
  return home;
}

function pickResumable(store: SessionStore): Promise<SessionSummary | undefined> {
  return pickSessionFrom(
    store
      .connections()
      .filter((c) => c.capabilities?.resume)
      .flatMap((c) => c.sessions)
      .filter(isResumable),
    {
      empty: vscode.l10n.t(
        'No local Claude Code or Codex session is loaded. Add the local connection (Add Connection, then Local transcripts) or refresh it.',
      ),
      detail: (session) =>
        plainSurfaceText(
          [relativeTime(session.lastActivityAt), session.resumeId].filter(Boolean).join(' · '),
          { maxLength: DETAIL_MAX_LENGTH, breakUrls: true },
        ),
      quickPick: {
        placeHolder: vscode.l10n.t('Resume which session in a terminal?'),
        matchOnDescription: true,
        matchOnDetail: true,
      },
    },
  );
}
