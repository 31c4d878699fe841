import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SessionSummary } from '../domain/session.ts';
import { DETAIL_MAX_LENGTH, plainSurfaceText } from '../domain/surfaceText.ts';
import type { TranscriptEntry } from '../domain/transcript/model.ts';
import type {
  CommentFilter,
  CommentView,
  HostMessage,
  TranscriptStatus,
  WebviewMessage,
} from '../shared/protocol.ts';
import type { SourceAdapters } from '../sources/sourceFactory.ts';
import type { OpenedTranscript } from '../sources/transcripts/openTranscript.ts';
import { watchFiles } from '../services/fileWatch.ts';
import type { SessionStore } from '../store/sessionStore.ts';
import type { Logger } from '../util/logger.ts';
import { showInformation, showWarning } from '../views/safeMessage.ts';

/** Entries read for the per-turn usage chart; beyond this the chart shows the first turns. */
const USAGE_SCAN_ENTRIES = 20_000;
/** A live transcript's writes are read in batches this far apart at most. */
const LIVE_BATCH_MS = 100;
/** The per-turn chart of a growing transcript is rebuilt at most this often. */
const LIVE_USAGE_MS = 5_000;

/** A transcript file that can index what was appended to it (TranscriptDocument). */
interface Refreshable {
  refresh(): Promise<{ appendedEntries: number; reset: boolean }>;
}
function isRefreshable(source: object): source is Refreshable {
  return typeof (source as Partial<Refreshable>).refresh === 'function';
}

type TranscriptMessage = Extract<
  WebviewMessage,
  {
    type:
      | 'getEntries'
      | 'search'
      | 'nextError'
      | 'getFullText'
      | 'selectFile'
      | 'retryTranscript'
      | 'openRaw'
      | 'openFile'
      | 'loadComments'
      | 'revealComment';
  }
>;

/**
 * The data behind one session panel: its transcript (downloaded and indexed on the
 * host; the webview asks for windows), comments and usage. Nothing is sent to the
 * webview that it did not ask for, and never a whole file.
 */
export class PanelData {
  private opened: OpenedTranscript | undefined;
  /** Watches the open transcript's file while it may grow. */
  private live: { dispose(): void } | undefined;
  private usageCollectedAt = 0;
  private fileKey = 'main';
  private abort = new AbortController();
  private threads: CommentView[] = [];
  private anchorsPlaced = false;
  private readonly deps: {
    adapters: () => SourceAdapters;
    store: SessionStore;
    storageDir: string;
    post: (message: HostMessage) => void;
    log: Logger;
  };
  private session: SessionSummary;

  constructor(deps: PanelData['deps'], session: SessionSummary) {
    this.deps = deps;
    this.session = session;
  }

  /** Called on `ready` (also after a webview reload): send what the panel needs to start. */
  async start(session: SessionSummary): Promise<void> {
    this.session = session;
    this.postUsage();
    await Promise.all([this.loadTranscript(this.fileKey), this.loadComments('ALL')]);
  }

  update(session: SessionSummary): void {
    this.session = session;
    this.postUsage();
  }

  async handle(message: TranscriptMessage): Promise<void> {
    const source = this.opened?.source;
    switch (message.type) {
      case 'selectFile':
        return this.loadTranscript(message.fileKey);
      case 'retryTranscript':
        return this.loadTranscript(this.fileKey);
      case 'getEntries': {
        if (!source) return;
        const window = await source.getWindow(message.start, Math.min(message.count, 500));
        this.deps.post({
          type: 'entries',
          requestId: message.requestId,
          start: window.start,
          entries: window.entries,
          total: window.total,
        });
        return;
      }
      case 'search': {
        if (!source) return;
        const result = await source.search(message.query, {
          from: message.from,
          direction: message.direction,
        });
        this.deps.post({ type: 'searchResult', requestId: message.requestId, result });
        return;
      }
      case 'nextError': {
        if (!source) return;
        const index = source.nextError(message.from);
        const total = source.info().errorCount;
        this.deps.post({
          type: 'searchResult',
          requestId: message.requestId,
          result: {
            index,
            ordinal: index === null ? 0 : 1,
            total,
            complete: source.info().complete,
          },
        });
        return;
      }
      case 'getFullText': {
        if (!source) return;
        const text = (await source.fullText(message.index, message.part)) ?? '';
        this.deps.post({
          type: 'fullText',
          requestId: message.requestId,
          index: message.index,
          part: message.part,
          text,
        });
        return;
      }
      case 'openRaw':
        return this.openRaw();
      case 'openFile':
        return openWorkspaceFile(message.path, message.line);
      case 'loadComments':
        return this.loadComments(message.filter);
      case 'revealComment':
        return this.revealComment(message.threadId);
    }
  }

  /** What the open transcript holds now (the integration tests read it). */
  transcriptInfo(): ReturnType<OpenedTranscript['source']['info']> | undefined {
    return this.opened?.source.info();
  }

  dispose(): void {
    this.abort.abort();
    this.live?.dispose();
    this.live = undefined;
    void this.opened?.close();
    this.opened = undefined;
  }

  private usageEntries: TranscriptEntry[] = [];

  private postUsage(): void {
    this.deps.post({
      type: 'usage',
      view: this.deps.adapters().buildSessionUsage(this.session, this.usageEntries),
    });
  }

  /**
   * Per-turn tokens come from the transcript: read its entries in windows (bounded). A
   * panel closed (or switched to another file) meanwhile closes the file under the read:
   * that is not a failure, and must not surface as an unhandled rejection.
   */
  private async collectUsage(signal: AbortSignal): Promise<void> {
    const source = this.opened?.source;
    if (!source) return;
    this.usageCollectedAt = Date.now();
    const found: TranscriptEntry[] = [];
    const limit = Math.min(source.info().entryCount, USAGE_SCAN_ENTRIES);
    try {
      for (let start = 0; start < limit && !signal.aborted; start += 1000) {
        const window = await source.getWindow(start, 1000);
        found.push(...window.entries.filter((e) => e.usage));
      }
    } catch (error) {
      if (!signal.aborted)
        this.deps.log.warn(`usage of ${this.session.id}: ${(error as Error).message}`);
      return;
    }
    if (signal.aborted) return;
    this.usageEntries = found;
    this.postUsage();
  }

  private postStatus(status: TranscriptStatus): void {
    this.deps.post({
      type: 'transcriptStatus',
      fileKey: this.fileKey,
      files: this.opened?.files ?? [],
      status,
    });
  }

  private async loadTranscript(fileKey: string): Promise<void> {
    this.abort.abort();
    this.abort = new AbortController();
    const signal = this.abort.signal;
    this.live?.dispose();
    this.live = undefined;
    await this.opened?.close();
    this.opened = undefined;
    this.fileKey = fileKey;
    this.anchorsPlaced = false;
    const source = this.deps.store.source(this.session.connectionId);
    if (!source)
      return this.postStatus({ state: 'none', message: vscode.l10n.t('The connection is gone.') });
    this.postStatus({ state: 'loading', message: vscode.l10n.t('Loading the transcript…') });
    try {
      const opened = await this.deps.adapters().openSessionTranscript({
        session: this.session,
        source,
        storageDir: this.deps.storageDir,
        fileKey,
        signal,
        onProgress: (p) =>
          this.postStatus({
            state: 'loading',
            message: vscode.l10n.t('Downloading the transcript…'),
            bytesDone: p.bytesDone,
            bytesTotal: p.bytesTotal,
          }),
      });
      if (signal.aborted) {
        await opened?.close();
        return;
      }
      if (!opened) {
        return this.postStatus({
          state: 'none',
          message: vscode.l10n.t('This backend keeps no transcript for its sessions.'),
        });
      }
      this.opened = opened;
      // The server may key the file differently from the transcript's reference to it.
      this.fileKey = opened.fileKey;
      this.postReady();
      if (opened.live && opened.path) this.watchLive(opened, signal);
      // Entry counts grow while a large file is indexed in the background.
      const doc = opened.source as { whenIndexed?: () => Promise<void> };
      const indexed = doc.whenIndexed ? doc.whenIndexed() : Promise.resolve();
      void indexed.then(
        async () => {
          if (signal.aborted) return;
          this.postReady();
          if (fileKey === 'main') await this.collectUsage(signal);
        },
        () => undefined,
      );
    } catch (error) {
      if (signal.aborted) return;
      const adapters = this.deps.adapters();
      if (adapters.isTranscriptUnavailableError(error)) {
        return this.postStatus({
          state: 'unavailable',
          message: error.description,
          canRetry: error.canRetry,
        });
      }
      this.deps.log.warn(`transcript of ${this.session.id}: ${(error as Error).message}`);
      this.postStatus({ state: 'failed', message: (error as Error).message, canRetry: true });
    }
  }

  /**
   * An agent still writing this file: index what it appends (only the new bytes; an
   * unfinished last line waits for its end) and tell the webview the new entry count.
   */
  private watchLive(opened: OpenedTranscript, signal: AbortSignal): void {
    const source = opened.source;
    const file = opened.path;
    if (!file || !isRefreshable(source)) return;
    this.live = watchFiles(
      // The folder, not the file: a watch on the file would miss it being replaced.
      [
        {
          dir: path.dirname(file),
          recursive: false,
          accept: (name) => name === path.basename(file),
        },
      ],
      async () => {
        if (signal.aborted) return;
        const { appendedEntries, reset } = await source.refresh();
        if (signal.aborted || (appendedEntries === 0 && !reset)) return;
        this.postReady();
        if (this.fileKey === 'main' && Date.now() - this.usageCollectedAt > LIVE_USAGE_MS)
          await this.collectUsage(signal);
      },
      { delayMs: LIVE_BATCH_MS, log: this.deps.log, what: `live transcript ${file}` },
    );
  }

  private postReady(): void {
    const info = this.opened?.source.info();
    if (!info) return;
    this.postStatus({
      state: 'ready',
      entryCount: info.entryCount,
      complete: info.complete,
      errorCount: info.errorCount,
      format: info.format,
    });
  }

  private async loadComments(filter: CommentFilter): Promise<void> {
    const source = this.deps.store.source(this.session.connectionId);
    const capabilities = this.deps.store.state(this.session.connectionId)?.capabilities;
    if (!source || !capabilities?.comments || !('callJson' in source)) {
      this.deps.post({
        type: 'comments',
        view: { state: 'unsupported', filter, threads: [], total: 0, hasMore: false },
      });
      return;
    }
    this.deps.post({
      type: 'comments',
      view: { state: 'loading', filter, threads: [], total: 0, hasMore: false },
    });
    try {
      const adapters = this.deps.adapters();
      const list = await adapters.listSessionComments(
        source as Parameters<SourceAdapters['listSessionComments']>[0],
        this.session.id,
        { filter: filter === 'ALL' ? undefined : filter, signal: this.abort.signal },
      );
      this.threads = list.threads;
      this.anchorsPlaced = false;
      this.deps.post({ type: 'comments', view: adapters.commentsView(list, filter) });
    } catch (error) {
      this.deps.post({
        type: 'comments',
        view: {
          state: 'failed',
          message: (error as Error).message,
          filter,
          threads: [],
          total: 0,
          hasMore: false,
        },
      });
    }
  }

  /** Places anchors on first use (a search per comment), then scrolls the transcript. */
  private async revealComment(threadId: string): Promise<void> {
    const source = this.opened?.source;
    if (!source) return;
    if (!this.anchorsPlaced) {
      const doc = source as { whenIndexed?: () => Promise<void> };
      await doc.whenIndexed?.();
      this.threads = await this.deps
        .adapters()
        .placeAnchors(this.threads, this.deps.adapters().searchTranscript(source));
      this.anchorsPlaced = true;
    }
    const thread = this.threads.find((t) => t.threadId === threadId || t.id === threadId);
    if (thread?.entryIndex === undefined) {
      void showInformation(
        vscode.l10n.t('The text this comment points at is not in the transcript.'),
      );
      return;
    }
    this.deps.post({
      type: 'reveal',
      index: thread.entryIndex,
      highlight: thread.anchor?.selectedText,
    });
  }

  private async openRaw(): Promise<void> {
    if (!this.opened?.path) {
      void showInformation(vscode.l10n.t('This transcript has no raw file.'));
      return;
    }
    const document = await vscode.workspace.openTextDocument(vscode.Uri.file(this.opened.path));
    await vscode.window.showTextDocument(document, { preview: true });
    await vscode.commands.executeCommand('workbench.action.files.setActiveEditorReadonlyInSession');
  }
}

/** Opens a path from a tool call only when it lies inside an open workspace folder. */
async function openWorkspaceFile(filePath: string, line?: number): Promise<void> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  const candidates = path.isAbsolute(filePath)
    ? [vscode.Uri.file(path.normalize(filePath))]
    : folders.map((f) => vscode.Uri.joinPath(f.uri, filePath));
  const inside = candidates.find((uri) =>
    folders.some((f) => {
      const relative = path.relative(f.uri.fsPath, uri.fsPath);
      return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
    }),
  );
  if (!inside) {
    // The path comes from a tool call in the transcript.
    void showWarning(
      vscode.l10n.t(
        '{0} is not inside the open workspace, so it is not opened.',
        plainSurfaceText(filePath, { maxLength: DETAIL_MAX_LENGTH }),
      ),
    );
    return;
  }
  try {
    await vscode.workspace.fs.stat(inside);
  } catch {
    void showWarning(
      vscode.l10n.t(
        '{0} does not exist in this workspace.',
        plainSurfaceText(filePath, { maxLength: DETAIL_MAX_LENGTH }),
      ),
    );
    return;
  }
  const position = new vscode.Position(Math.max(0, (line ?? 1) - 1), 0);
  await vscode.window.showTextDocument(inside, {
    selection: new vscode.Range(position, position),
    preview: true,
  });
}
