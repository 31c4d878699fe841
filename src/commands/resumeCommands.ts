import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import * as vscode from 'vscode';
import { sessionOf } from './commandArgs.ts';
import { relativeTime } from '../domain/format.ts';
import { isResumable, resumePlan, type ResumeCommand, type ResumePlan } from '../domain/resume.ts';
import type { SessionSummary } from '../domain/session.ts';
import type { SessionStore } from '../store/sessionStore.ts';
import { findExecutable } from '../util/findExecutable.ts';

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

const isLocal = (store: SessionStore, session: SessionSummary) =>
  store.state(session.connectionId)?.config.kind === 'local';

async function resumeInTerminal(store: SessionStore, session: SessionSummary): Promise<void> {
  const plan: ResumePlan = isLocal(store, session)
    ? resumePlan(session)
    : { ok: false, reason: 'notResumable' };
  if (!plan.ok) {
    if (plan.reason === 'unsafeId') {
      void vscode.window.showErrorMessage(
        vscode.l10n.t(
          'Not resuming "{0}": its session id "{1}" is not safe to put on a command line (it must be letters, digits, "-" and "_", starting with a letter or digit).',
          session.label,
          plan.id.slice(0, 80),
        ),
      );
    } else {
      void vscode.window.showInformationMessage(
        vscode.l10n.t(
          '"{0}" cannot be resumed in a terminal: only Claude Code and Codex sessions on this machine can (their subagents resume with them).',
          session.label,
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
    name: vscode.l10n.t('Resume: {0}', shorten(session.label)),
    cwd,
    iconPath: new vscode.ThemeIcon('debug-continue'),
  });
  // Not disposed with the extension: the terminal and the agent running in it are the user's.
  terminal.show();
  terminal.sendText(command.commandLine, true);
}

async function offerCopy(command: ResumeCommand, session: SessionSummary): Promise<void> {
  const copy = vscode.l10n.t('Copy Command');
  const answer = await vscode.window.showWarningMessage(
    vscode.l10n.t(
      'The {0} command is not on PATH, so "{1}" cannot be resumed here. Install it, or run this where it is installed: {2}',
      command.cli,
      session.label,
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
        folder,
      )
    : vscode.l10n.t(
        'The session does not record its folder: the terminal opens in your home folder.',
      );
  // Claude Code keeps sessions per project folder; Codex finds them from anywhere.
  const hint =
    command.cli === 'claude'
      ? ` ${vscode.l10n.t('Claude Code looks sessions up by folder, so it may not find this one there.')}`
      : '';
  void vscode.window.showInformationMessage(where + hint);
  return home;
}

function shorten(label: string): string {
  // Control characters and line breaks become spaces: a terminal name is one line.
  const oneLine = label.replace(/[\p{Cc}\s]+/gu, ' ').trim();
  return oneLine.length > NAME_MAX ? `${oneLine.slice(0, NAME_MAX - 1)}…` : oneLine;
}

async function pickResumable(store: SessionStore): Promise<SessionSummary | undefined> {
  const sessions = store
    .connections()
    .filter((c) => c.config.kind === 'local')
    .flatMap((c) => c.sessions)
    .filter(isResumable);
  if (sessions.length === 0) {
    void vscode.window.showInformationMessage(
      vscode.l10n.t(
        'No local Claude Code or Codex session is loaded. Add the local connection (Add Connection, then Local transcripts) or refresh it.',
      ),
    );
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    sessions.map((session) => ({
      label: session.label,
      description: [session.harness, session.repository].filter(Boolean).join(' · '),
      detail: [relativeTime(session.lastActivityAt), session.resumeId].filter(Boolean).join(' · '),
      session,
    })),
    {
      placeHolder: vscode.l10n.t('Resume which session in a terminal?'),
      matchOnDescription: true,
      matchOnDetail: true,
    },
  );
  return picked?.session;
}
