import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ChangedFile } from '../../domain/changes/sessionChanges.ts';
import type { SessionSummary } from '../../domain/session.ts';
import { DETAIL_MAX_LENGTH, plainSurfaceText, surfaceLabel } from '../../domain/surfaceText.ts';
import type { ChangeRowView, ChangesView } from '../../shared/changesView.ts';
import type { LoadedSessionChanges } from '../../sources/transcripts/sessionChanges.ts';
import type { SessionStore } from '../../store/sessionStore.ts';
import { showInformation, showWarning } from '../../views/safeMessage.ts';
import { CHANGE_SCHEME, type ChangesDeps } from '../changesCommands.ts';
import { sessionOf } from '../commandArgs.ts';

type Side = 'before' | 'after';

interface Loaded {
  session: SessionSummary;
  changes: LoadedSessionChanges;
  /** Part of every URI, so a reload never shows an older load's text under the same name. */
  version: number;
}

const keyOf = (s: SessionSummary) => `${s.connectionId}/${s.id}`;
/** Loads kept per session (a reload in the panel must not empty the diffs already open). */
const KEPT_LOADS = 3;

/**
 * Loads a session's changes (kept until loaded again) and serves their texts to the diff
 * editors through the `session-inspector-change:` scheme.
 */
export class SessionChangeDocuments implements vscode.TextDocumentContentProvider {
  /** The last few loads of each session, newest last: open diffs keep showing what they showed. */
  private readonly loaded = new Map<string, Loaded[]>();
  private version = 0;
  private readonly deps: ChangesDeps;

  constructor(deps: ChangesDeps) {
    this.deps = deps;
  }

  /** Reads the session's transcripts again (they may have grown) and keeps the result. */
  async load(session: SessionSummary): Promise<Loaded | undefined> {
    const source = this.deps.store.source(session.connectionId);
    if (!source) return undefined;
    const changes = await this.deps.adapters().loadSessionChanges({
      session,
      source,
      storageDir: this.deps.storageDir,
    });
    if (!changes) return undefined;
    const loaded = { session, changes, version: ++this.version };
    const kept = [...(this.loaded.get(keyOf(session)) ?? []), loaded].slice(-KEPT_LOADS);
    this.loaded.set(keyOf(session), kept);
    return loaded;
  }

  /** The last load of a session, or a new one. */
  async current(session: SessionSummary): Promise<Loaded | undefined> {
    return this.loaded.get(keyOf(session))?.at(-1) ?? this.load(session);
  }

  uri(loaded: Loaded, index: number, side: Side): vscode.Uri {
    const file = loaded.changes.files[index]!;
    const query = new URLSearchParams({
      k: keyOf(loaded.session),
      v: String(loaded.version),
      i: String(index),
      s: side,
    });
    // The file's own path (as a URI path) names the tab and picks the language.
    const filePath = file.path.replaceAll('\\', '/');
    return vscode.Uri.from({
      scheme: CHANGE_SCHEME,
      path: filePath.startsWith('/') ? filePath : `/${filePath}`,
      query: query.toString(),
    });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const query = new URLSearchParams(uri.query);
    const loaded = this.loaded
      .get(query.get('k') ?? '')
      ?.find((l) => String(l.version) === query.get('v'));
    const file = loaded?.changes.files[Number(query.get('i'))];
    if (!file) {
      return vscode.l10n.t(
        "This change is no longer loaded. Open the session's changes again (Show Changes).",
      );
    }
    return sideText(file, query.get('s') === 'before' ? 'before' : 'after');
  }
}

/** The text shown on one side of a file's diff; says so in words where it is not known. */
export function sideText(file: ChangedFile, side: Side): string {
  if (file.before !== undefined && file.after !== undefined)
    return (side === 'before' ? file.before : file.after) ?? '';
  const header =
    file.unknownReason === 'mismatch'
      ? vscode.l10n.t(
          "The whole text is not known: one of the agent's changes did not match the text rebuilt from its earlier tool calls (the file changed outside them). Only the parts its tool calls replaced are shown, before and after.",
        )
      : vscode.l10n.t(
          'Before unknown: the agent changed this file without reading it whole first. Only the parts its tool calls replaced are shown, before and after.',
        );
  const parts = [header, ''];
  file.fragments.forEach((fragment, i) => {
    parts.push(
      vscode.l10n.t('──── change {0} of {1} ────', i + 1, file.fragments.length),
      side === 'before' ? fragment.before : fragment.after,
      '',
    );
  });
  return parts.join('\n');
}

function fileName(file: ChangedFile): string {
  return plainSurfaceText(path.posix.basename(file.path.replaceAll('\\', '/')), {
    maxLength: DETAIL_MAX_LENGTH,
  });
}

function diffTitle(file: ChangedFile, session: SessionSummary): string {
  const name = fileName(file);
  const label = surfaceLabel(session.label) || surfaceLabel(session.id);
  return file.before === undefined || file.after === undefined
    ? vscode.l10n.t('{0} ({1}): before unknown ↔ after', name, label)
    : vscode.l10n.t('{0} ({1}): before ↔ after', name, label);
}

function rowLabel(file: ChangedFile, project: string | undefined): string {
  if (project) {
    const relative = path.relative(project, file.path);
    if (relative && !relative.startsWith('..') && !path.isAbsolute(relative)) return relative;
  }
  return file.path;
}

export function changesView(loaded: Loaded | undefined): ChangesView {
  if (!loaded) {
    return {
      state: 'none',
      message: vscode.l10n.t('This backend keeps no transcript for its sessions.'),
      files: [],
      failedCalls: 0,
      missingSubagents: 0,
    };
  }
  const files: ChangeRowView[] = loaded.changes.files.map((file, index) => ({
    index,
    path: file.path,
    label: rowLabel(file, loaded.session.project),
    kind: file.kind,
    ...(file.movedFrom !== undefined ? { movedFrom: file.movedFrom } : {}),
    added: file.added,
    removed: file.removed,
    beforeKnown: file.before !== undefined,
    calls: file.calls.length,
    failedCalls: file.failedCalls,
    bySubagent: file.calls.some((c) => c.agentId !== undefined),
  }));
  return {
    state: 'ready',
    files,
    failedCalls: loaded.changes.failedCalls,
    missingSubagents: loaded.changes.missingSubagents.length,
  };
}

/** The file on this machine that a changed path stands for: as written, or under a workspace folder. */
async function workspaceFile(
  file: ChangedFile,
  session: SessionSummary,
): Promise<vscode.Uri | undefined> {
  const candidates: vscode.Uri[] = [];
  if (path.isAbsolute(file.path)) candidates.push(vscode.Uri.file(file.path));
  const relative = session.project ? path.relative(session.project, file.path) : file.path;
  if (relative && !relative.startsWith('..') && !path.isAbsolute(relative)) {
    for (const folder of vscode.workspace.workspaceFolders ?? [])
      candidates.push(vscode.Uri.joinPath(folder.uri, relative));
  }
  for (const uri of candidates) {
    try {
      await vscode.workspace.fs.stat(uri);
      return uri;
    } catch {
      // Not here; try the next place.
    }
  }
  return undefined;
}

/** What Show Changes and the Changes tab's commands do, over one set of loaded changes. */
export class ChangesController {
  readonly documents: SessionChangeDocuments;
  private readonly deps: ChangesDeps;

  constructor(deps: ChangesDeps) {
    this.deps = deps;
    this.documents = new SessionChangeDocuments(deps);
  }

  /** Show Changes: every changed file of a session (picked from the palette) in one view. */
  async show(arg?: unknown): Promise<void> {
    const session = sessionOf(arg) ?? (await pickSessionWithTranscript(this.deps.store));
    if (!session) return;
    try {
      const loaded = await this.loadWithProgress(session);
      if (!loaded) {
        void showInformation(vscode.l10n.t('This backend keeps no transcript for its sessions.'));
        return;
      }
      await openAll(this.documents, loaded);
    } catch (error) {
      this.failed(error);
    }
  }

  /** The Changes tab's list, loaded again (the transcripts may have grown). */
  async list(session: SessionSummary): Promise<ChangesView> {
    try {
      return changesView(await this.documents.load(session));
    } catch (error) {
      this.deps.log.warn(`changes of ${session.id}: ${(error as Error).message}`);
      return {
        state: 'failed',
        message: (error as Error).message,
        files: [],
        failedCalls: 0,
        missingSubagents: 0,
      };
    }
  }

  /** One file's diff, or all of them when no index is given. */
  async open(session: SessionSummary, index?: number): Promise<void> {
    try {
      const loaded = await this.documents.current(session);
      if (!loaded) return;
      await (index === undefined
        ? openAll(this.documents, loaded)
        : openOne(this.documents, loaded, index));
    } catch (error) {
      this.failed(error);
    }
  }

  /** The agent's last version of one file (or of all) against the file in the workspace. */
  async compareWithWorkspace(session: SessionSummary, index?: number): Promise<void> {
    try {
      const loaded = await this.documents.current(session);
      if (!loaded) return;
      await (index === undefined
        ? compareAll(this.documents, loaded)
        : compareOne(this.documents, loaded, index));
    } catch (error) {
      this.failed(error);
    }
  }

  private loadWithProgress(session: SessionSummary): Thenable<Loaded | undefined> {
    return vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Window,
        title: vscode.l10n.t("Reading the session's changes…"),
      },
      () => this.documents.load(session),
    );
  }

  private failed(error: unknown): void {
    this.deps.log.warn(`changes: ${(error as Error).message}`);
    void showWarning(
      vscode.l10n.t("The session's changes could not be read: {0}", (error as Error).message),
    );
  }
}

/** From the palette: sessions whose backend keeps transcripts. */
async function pickSessionWithTranscript(store: SessionStore): Promise<SessionSummary | undefined> {
  const sessions = store
    .connections()
    .filter((c) => c.capabilities?.transcripts)
    .flatMap((c) => c.sessions);
  if (sessions.length === 0) {
    void showInformation(vscode.l10n.t('No session with a transcript is loaded.'));
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    sessions.map((s) => ({
      label: surfaceLabel(s.label) || surfaceLabel(s.id),
      description: plainSurfaceText(
        [s.harness, s.project ?? s.repository].filter(Boolean).join(' · '),
        { maxLength: DETAIL_MAX_LENGTH },
      ),
      session: s,
    })),
    {
      placeHolder: vscode.l10n.t('Show the changes of which session?'),
      matchOnDescription: true,
    },
  );
  return picked?.session;
}

const sessionName = (session: SessionSummary) =>
  surfaceLabel(session.label) || surfaceLabel(session.id);

/** Every changed file in VS Code's multi-file diff (or a note when there is none). */
async function openAll(documents: SessionChangeDocuments, loaded: Loaded): Promise<void> {
  const { files, failedCalls } = loaded.changes;
  if (files.length === 0) {
    void showInformation(
      failedCalls > 0
        ? vscode.l10n.t(
            'This session changed no files ({0} failed tool calls changed nothing).',
            failedCalls,
          )
        : vscode.l10n.t('This session changed no files.'),
    );
    return;
  }
  await vscode.commands.executeCommand(
    'vscode.changes',
    vscode.l10n.t('Changes of {0}', sessionName(loaded.session)),
    files.map((_, i) => [
      documents.uri(loaded, i, 'after'),
      documents.uri(loaded, i, 'before'),
      documents.uri(loaded, i, 'after'),
    ]),
  );
}

async function openOne(
  documents: SessionChangeDocuments,
  loaded: Loaded,
  index: number,
): Promise<void> {
  const file = loaded.changes.files[index];
  if (!file) return;
  await vscode.commands.executeCommand(
    'vscode.diff',
    documents.uri(loaded, index, 'before'),
    documents.uri(loaded, index, 'after'),
    diffTitle(file, loaded.session),
    { preview: true },
  );
}

/** Every file the agent left (not deleted) against its workspace copy, in one view. */
async function compareAll(documents: SessionChangeDocuments, loaded: Loaded): Promise<void> {
  const rows: [vscode.Uri, vscode.Uri, vscode.Uri | undefined][] = [];
  for (let i = 0; i < loaded.changes.files.length; i++) {
    const file = loaded.changes.files[i]!;
    if (file.after === null) continue;
    const disk = await workspaceFile(file, loaded.session);
    rows.push([disk ?? documents.uri(loaded, i, 'after'), documents.uri(loaded, i, 'after'), disk]);
  }
  if (rows.length === 0) {
    void showInformation(vscode.l10n.t('No file of this session is left to compare.'));
    return;
  }
  await vscode.commands.executeCommand(
    'vscode.changes',
    vscode.l10n.t("{0}: the agent's last versions ↔ workspace", sessionName(loaded.session)),
    rows,
  );
}

async function compareOne(
  documents: SessionChangeDocuments,
  loaded: Loaded,
  index: number,
): Promise<void> {
  const file = loaded.changes.files[index];
  if (!file) return;
  if (file.after === null) {
    void showInformation(
      vscode.l10n.t('The agent deleted {0}: there is no last version to compare.', fileName(file)),
    );
    return;
  }
  const disk = await workspaceFile(file, loaded.session);
  if (!disk) {
    void showWarning(
      vscode.l10n.t(
        '{0} is not on this machine or in the open workspace.',
        plainSurfaceText(file.path, { maxLength: DETAIL_MAX_LENGTH }),
      ),
    );
    return;
  }
  await vscode.commands.executeCommand(
    'vscode.diff',
    documents.uri(loaded, index, 'after'),
    disk,
    vscode.l10n.t(
      "{0} ({1}): the agent's last version ↔ workspace",
      fileName(file),
      sessionName(loaded.session),
    ),
    { preview: true },
  );
}
