import { homedir } from 'node:os';
import * as vscode from 'vscode';
import type { ExportProgress } from '../../domain/export/exportRunner.ts';
import {
  exportFileName,
  type ExportFormat,
  type ExportMeta,
} from '../../domain/export/transcriptExport.ts';
import { relativeTime } from '../../domain/format.ts';
import type { SessionSummary } from '../../domain/session.ts';
import { DETAIL_MAX_LENGTH, plainSurfaceText, surfaceLabel } from '../../domain/surfaceText.ts';
import type { SessionStore } from '../../store/sessionStore.ts';
import { showError, showInformation } from '../../views/safeMessage.ts';
import { statusLabel } from '../../views/statusPresentation.ts';
import { sessionOf } from '../commandArgs.ts';
import type { ExportDeps, ExportOptions, ExportOutcome } from '../exportCommands.ts';
import { pickSessionFrom } from '../sessionPicker.ts';

/**
 * "Export Transcript…": a session's transcript as Markdown or one self-contained HTML file,
 * from a session row, the session panel (a node argument) or the palette. A target URI as
 * the second argument skips the save dialog.
 */
export async function exportCommand(
  deps: ExportDeps,
  arg?: unknown,
  target?: unknown,
  options?: ExportOptions,
): Promise<ExportOutcome | undefined> {
  const session = sessionOf(arg) ?? (await pickExportable(deps.store));
  if (!session) return undefined;
  return exportTranscript(
    deps,
    session,
    target instanceof vscode.Uri ? target : undefined,
    options,
  );
}

async function exportTranscript(
  deps: ExportDeps,
  session: SessionSummary,
  target: vscode.Uri | undefined,
  options: ExportOptions = {},
): Promise<ExportOutcome | undefined> {
  const state = deps.store.state(session.connectionId);
  const source = deps.store.source(session.connectionId);
  if (!state || !source) {
    void showInformation(vscode.l10n.t('The connection is gone.'));
    return undefined;
  }
  if (state.capabilities && !state.capabilities.transcripts) {
    void showInformation(vscode.l10n.t('This backend keeps no transcript for its sessions.'));
    return undefined;
  }
  const choice =
    options.format !== undefined
      ? { format: options.format, includeSubagents: options.includeSubagents ?? false }
      : await pickFormat(session);
  if (!choice) return undefined;
  const uri = target ?? (await pickTarget(session, choice.format));
  if (!uri) return undefined;
  // The export streams to a file beside the target; another file system gets a copy of it.
  const local = uri.scheme === 'file';
  const path = local
    ? uri.fsPath
    : vscode.Uri.joinPath(vscode.Uri.file(deps.storageDir), `export-${Date.now()}`).fsPath;
  const started = Date.now();
  try {
    const result = await exportWithProgress(
      deps,
      {
        session,
        source,
        storageDir: deps.storageDir,
        format: choice.format,
        meta: metaOf(session, state.config.label, deps.version),
        path,
        includeSubagents: choice.includeSubagents,
      },
      local,
    );
    if (!result.found) {
      void showInformation(vscode.l10n.t('This backend keeps no transcript for its sessions.'));
      return undefined;
    }
    if (!local) {
      await vscode.workspace.fs.copy(vscode.Uri.file(path), uri, { overwrite: true });
      await vscode.workspace.fs.delete(vscode.Uri.file(path));
    }
    const outcome: ExportOutcome = {
      uri,
      format: choice.format,
      entries: result.entries,
      subagents: result.subagents,
      failed: result.failed,
      bytes: result.bytes,
    };
    void announce(outcome, Date.now() - started);
    return outcome;
  } catch (error) {
    if ((error as Error).name === 'AbortError') {
      void showInformation(vscode.l10n.t('Export canceled: no file was written.'));
      return undefined;
    }
    void showError(
      vscode.l10n.t(
        'The transcript could not be exported: {0}',
        plainSurfaceText((error as Error).message, { maxLength: DETAIL_MAX_LENGTH }),
      ),
    );
    return undefined;
  }
}

type ExportRequest = Omit<
  Parameters<ReturnType<ExportDeps['adapters']>['exportSessionTranscript']>[0],
  'signal' | 'onProgress'
>;

/** The export under a cancellable notification; a file elsewhere than on disk waits in storage. */
function exportWithProgress(deps: ExportDeps, request: ExportRequest, local: boolean) {
  return vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: vscode.l10n.t('Exporting "{0}"', surfaceLabel(request.session.label)),
      cancellable: true,
    },
    async (progress, token) => {
      const abort = new AbortController();
      const cancel = token.onCancellationRequested(() => abort.abort());
      try {
        if (!local) await vscode.workspace.fs.createDirectory(vscode.Uri.file(deps.storageDir));
        return await deps.adapters().exportSessionTranscript({
          ...request,
          signal: abort.signal,
          onProgress: progressReporter(progress),
        });
      } finally {
        cancel.dispose();
      }
    },
  );
}

/** The parent's transcript fills the bar; subagents' parts only name themselves. */
function progressReporter(
  progress: vscode.Progress<{ message?: string; increment?: number }>,
): (p: ExportProgress & { part: string }) => void {
  let reported = 0;
  return (p) => {
    const share = p.entriesTotal ? (p.entriesDone / p.entriesTotal) * 100 : 0;
    const main = p.part === 'main';
    progress.report({
      increment: main ? Math.max(0, share - reported) : undefined,
      message: main
        ? vscode.l10n.t('{0} of {1} entries', p.entriesDone, p.entriesTotal)
        : vscode.l10n.t(
            'subagent {0}: {1} of {2} entries',
            plainSurfaceText(p.part, { maxLength: 60 }),
            p.entriesDone,
            p.entriesTotal,
          ),
    });
    if (main) reported = Math.max(reported, share);
  };
}

async function announce(outcome: ExportOutcome, _ms: number): Promise<void> {
  const open = vscode.l10n.t('Open');
  const reveal = vscode.l10n.t('Reveal in File Explorer');
  const name = plainSurfaceText(outcome.uri.path.split('/').pop() ?? '', { maxLength: 80 });
  const failed = outcome.failed.length
    ? ` ${vscode.l10n.t('{0} subagent transcripts could not be read (noted in the file).', outcome.failed.length)}`
    : '';
  const answer = await showInformation(
    vscode.l10n.t('Exported {0} entries to {1}.', outcome.entries, name) + failed,
    open,
    ...(outcome.uri.scheme === 'file' ? [reveal] : []),
  );
  if (answer === open) {
    // HTML opens in the browser (it is a page); Markdown in the editor.
    if (outcome.format === 'html') await vscode.env.openExternal(outcome.uri);
    else await vscode.window.showTextDocument(outcome.uri, { preview: true });
  } else if (answer === reveal) {
    await vscode.commands.executeCommand('revealFileInOS', outcome.uri);
  }
}

function metaOf(session: SessionSummary, connection: string, version: string): ExportMeta {
  const fields: [string, string][] = [
    ['Connection', connection],
    ['Status', statusLabel(session.status.status)],
    ['Harness', session.harness ?? ''],
    ['Model', session.model ?? ''],
    ['Project', session.project ?? session.repository ?? ''],
    ['Branch', session.branch ?? ''],
    ['User', session.user ?? ''],
    ['Started', session.startedAt ?? ''],
    ['Last activity', session.lastActivityAt ?? ''],
    ['Ended', session.endedAt ?? ''],
  ];
  return {
    title: session.label,
    sessionId: session.resumeId ?? session.id,
    fields,
    exportedAt: new Date().toISOString(),
    generator: `Agent Session Inspector ${version}`,
  };
}

interface FormatItem extends vscode.QuickPickItem {
  format?: ExportFormat;
  includeSubagents?: boolean;
}

async function pickFormat(
  session: SessionSummary,
): Promise<{ format: ExportFormat; includeSubagents: boolean } | undefined> {
  const items: FormatItem[] = [
    {
      label: vscode.l10n.t('Markdown'),
      description: '.md',
      detail: vscode.l10n.t('Text as written; tool calls and edits as fenced code and diffs'),
      format: 'markdown',
      includeSubagents: false,
    },
    {
      label: vscode.l10n.t('HTML'),
      description: '.html',
      detail: vscode.l10n.t('One self-contained page: no scripts, light and dark themes'),
      format: 'html',
      includeSubagents: false,
    },
  ];
  // Subagents run under a top-level session; their transcripts can follow the parent's.
  if (!session.parentId) {
    items.push(
      { label: vscode.l10n.t('With subagents'), kind: vscode.QuickPickItemKind.Separator },
      {
        label: vscode.l10n.t('Markdown, with subagents'),
        description: '.md',
        detail: vscode.l10n.t("Each subagent's transcript after the session's"),
        format: 'markdown',
        includeSubagents: true,
      },
      {
        label: vscode.l10n.t('HTML, with subagents'),
        description: '.html',
        detail: vscode.l10n.t("Each subagent's transcript after the session's"),
        format: 'html',
        includeSubagents: true,
      },
    );
  }
  const picked = await vscode.window.showQuickPick(items, {
    placeHolder: vscode.l10n.t('Export "{0}" as…', surfaceLabel(session.label)),
  });
  return picked?.format
    ? { format: picked.format, includeSubagents: picked.includeSubagents ?? false }
    : undefined;
}

async function pickTarget(
  session: SessionSummary,
  format: ExportFormat,
): Promise<vscode.Uri | undefined> {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.file(homedir());
  const name = exportFileName(session.label, session.resumeId ?? session.id, format);
  return vscode.window.showSaveDialog({
    defaultUri: vscode.Uri.joinPath(folder, name),
    filters:
      format === 'html'
        ? { [vscode.l10n.t('HTML')]: ['html', 'htm'] }
        : { [vscode.l10n.t('Markdown')]: ['md', 'markdown'] },
    saveLabel: vscode.l10n.t('Export'),
    title: vscode.l10n.t('Export Transcript'),
  });
}

function pickExportable(store: SessionStore): Promise<SessionSummary | undefined> {
  return pickSessionFrom(
    store
      .connections()
      .filter((c) => c.capabilities?.transcripts !== false)
      .flatMap((c) => c.sessions),
    {
      empty: vscode.l10n.t(
        'No sessions are loaded yet. Open the Sessions view or add a connection.',
      ),
      detail: (session) => relativeTime(session.lastActivityAt),
      quickPick: { placeHolder: vscode.l10n.t('Export which session?'), matchOnDescription: true },
    },
  );
}
