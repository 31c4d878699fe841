/**
 * The hostile backend's data as a session panel's webview receives it, built in Node with
 * the host's own code: the sources that load sessions, transcripts, comments and manual
 * tasks (src/sources), and the same message shapes the panel host posts (sessionPanels.ts
 * and src/webview/session/*, which need VS Code and cannot run here; they only forward
 * these). The Changes tab's list comes through a VS Code command: it shows its empty state.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ReferenceBackend } from '../../../src/demo/server.ts';
import { formatCost } from '../../../src/domain/format.ts';
import type { SessionSummary } from '../../../src/domain/session.ts';
import type {
  HostMessage,
  TranscriptEntry,
  TranscriptFileView,
  TranscriptStatus,
} from '../../../src/shared/protocol.ts';
import {
  buildSessionUsage,
  commentsView,
  isTranscriptUnavailableError,
  listSessionComments,
  openSessionTranscript,
  placeAnchors,
  searchTranscript,
} from '../../../src/sources/sourcesBundle.ts';
import { createMcpToolClient } from '../../../src/sources/mcp/mcpSdkClient.ts';
import { McpSource } from '../../../src/sources/mcp/mcpSource.ts';
import { AgentsApiSource } from '../../../src/sources/rest/agentsApiSource.ts';
import type { SessionSource } from '../../../src/sources/sessionSource.ts';
import { fetchDashboardData } from '../../../src/sources/usage/connectionUsage.ts';
import type { DashboardData } from '../../../src/sources/usage/dashboardTypes.ts';
import { silentLogger } from '../../../src/util/logger.ts';

/** One transcript file of a session, whole: every entry and every truncated part in full. */
export interface TranscriptFeed {
  fileKey: string;
  files: TranscriptFileView[];
  status: TranscriptStatus;
  entries: TranscriptEntry[];
  /** `${index}:${part}` → the untruncated text. */
  fullTexts: Record<string, string>;
}

/** Full texts longer than this are not handed to the page (see transcriptFeed). */
const FULL_TEXT_MAX = 200_000;
/** Full texts held back, for the test's report. */
export const heldBack: string[] = [];

/**
 * The 1 MB payload (one unbroken word) in a comment or task body is given as its first
 * 20,000 characters: whole, its layout stalls Chromium for minutes (reported to the lead
 * as a webview matter; the transcript view shows long texts as a preview the same way).
 */
function preview<T extends string | undefined>(text: T, where: string): T {
  if (text === undefined || text.length <= FULL_TEXT_MAX) return text;
  heldBack.push(`${where}: ${text.length}`);
  return `${text.slice(0, 20_000)}…` as T;
}

export interface SessionFeed {
  key: string;
  /** session, usage, comments and manual tasks, as the host posts them. */
  messages: HostMessage[];
  transcripts: TranscriptFeed[];
  /** Comment anchors placed in the main transcript: what a click on a comment reveals. */
  reveals: { index: number; highlight?: string }[];
}

export interface HostileConnections {
  sources: SessionSource[];
  storageDir: string;
  close(): Promise<void>;
}

export function connectHostile(backend: ReferenceBackend): HostileConnections {
  const mcp = (id: string, url: string) =>
    new McpSource({
      config: { id, label: id, kind: 'mcp', url },
      token: async () => backend.token,
      loadClient: async () => createMcpToolClient,
      log: silentLogger,
      timeoutMs: 60_000,
      clientVersion: 'webview-tests',
    });
  const rest = new AgentsApiSource({
    config: { id: 'agents', label: 'agents', kind: 'rest', url: backend.url },
    apiKey: async () => backend.token,
    log: silentLogger,
    timeoutMs: 60_000,
  });
  const storageDir = mkdtempSync(path.join(os.tmpdir(), 'asi-webview-hostile-'));
  const sources: SessionSource[] = [
    mcp('reporting', backend.mcpUrls.closedloop),
    mcp('platform', backend.mcpUrls.itential),
    rest,
  ];
  return {
    sources,
    storageDir,
    async close() {
      for (const source of sources) await (source as { dispose?: () => unknown }).dispose?.();
      rmSync(storageDir, { recursive: true, force: true });
    },
  };
}

/** Every session of a source (the reporting one with idle sessions too). */
export async function listAll(source: SessionSource): Promise<SessionSummary[]> {
  const out: SessionSummary[] = [];
  const loaded = new Set<string>();
  let cursor: string | undefined;
  const filters = source.config.id === 'reporting' ? { quality: 'all' as const } : undefined;
  do {
    const page = await source.listSessions({
      cursor,
      limit: 100,
      loaded,
      ...(filters ? { filters } : {}),
    });
    for (const s of page.sessions) {
      loaded.add(s.id);
      out.push(s);
    }
    cursor = page.next;
  } while (cursor);
  return out;
}

async function transcriptFeed(
  session: SessionSummary,
  source: SessionSource,
  storageDir: string,
  fileKey: string,
): Promise<{ feed: TranscriptFeed; search?: ReturnType<typeof searchTranscript> }> {
  const base = { fileKey, files: [] as TranscriptFileView[], entries: [], fullTexts: {} };
  let opened;
  try {
    opened = await openSessionTranscript({ session, source, storageDir, fileKey });
  } catch (error) {
    const status: TranscriptStatus = isTranscriptUnavailableError(error)
      ? { state: 'unavailable', message: error.description, canRetry: error.canRetry }
      : { state: 'failed', message: (error as Error).message, canRetry: true };
    return { feed: { ...base, status } };
  }
  if (!opened) {
    return { feed: { ...base, status: { state: 'none', message: 'No transcript.' } } };
  }
  try {
    await (opened.source as { whenIndexed?: () => Promise<void> }).whenIndexed?.();
    const info = opened.source.info();
    const entries: TranscriptEntry[] = [];
    for (let start = 0; start < info.entryCount; start += 500) {
      entries.push(...(await opened.source.getWindow(start, 500)).entries);
    }
    const fullTexts: Record<string, string> = {};
    for (const entry of entries) {
      for (const part of entry.truncatedParts ?? []) {
        const text = await opened.source.fullText(entry.index, part);
        // The 1 MB payload (one unbroken word) is shown as its preview only: expanded, its
        // layout stalls Chromium for tens of seconds (reported; not an injection matter).
        if (text !== null && text.length <= FULL_TEXT_MAX)
          fullTexts[`${entry.index}:${part}`] = text;
        else if (text !== null)
          heldBack.push(`${session.id} entry ${entry.index} ${part}: ${text.length}`);
      }
    }
    return {
      feed: {
        fileKey: opened.fileKey,
        files: opened.files,
        status: {
          state: 'ready',
          entryCount: info.entryCount,
          complete: info.complete,
          errorCount: info.errorCount,
          format: info.format,
        },
        entries,
        fullTexts,
      },
      search: searchTranscript(opened.source),
    };
  } finally {
    if (fileKey !== 'main') await opened.close();
    else {
      // Kept open for the anchors; closed by the caller through `close`.
      closeLater.push(() => opened.close());
    }
  }
}

const closeLater: (() => Promise<void>)[] = [];

/** What the panel of one session gets, whole. */
export async function sessionFeed(
  session: SessionSummary,
  source: SessionSource,
  storageDir: string,
): Promise<SessionFeed> {
  const kind = source.config.kind;
  const messages: HostMessage[] = [
    {
      type: 'session',
      view: {
        session,
        connectionLabel: source.config.label,
        cost: formatCost(session.estimatedCost),
        actions: {
          complete: source.config.id === 'reporting' && session.status.status !== 'finished',
          interrupt: kind === 'rest' && session.status.raw === 'running',
        },
      },
    },
  ];
  const main = await transcriptFeed(session, source, storageDir, 'main');
  const transcripts = [main.feed];
  for (const file of main.feed.files) {
    if (file.fileKey === main.feed.fileKey || !/^(available|stale)$/.test(file.availability))
      continue;
    transcripts.push((await transcriptFeed(session, source, storageDir, file.fileKey)).feed);
  }
  messages.push({
    type: 'usage',
    view: buildSessionUsage(
      session,
      main.feed.entries.filter((e) => e.usage),
    ),
  });
  const reveals: SessionFeed['reveals'] = [];
  if (source.config.id === 'reporting') {
    try {
      const list = await listSessionComments(source as McpSource, session.id, {});
      const view = commentsView(list, 'ALL');
      if (main.search && list.threads.length > 0) {
        view.threads = await placeAnchors(list.threads, main.search);
        for (const thread of view.threads.slice(0, 3)) {
          if (thread.entryIndex !== undefined)
            reveals.push({ index: thread.entryIndex, highlight: thread.anchor?.selectedText });
        }
      }
      view.threads = view.threads.map((thread) => ({
        ...thread,
        body: preview(thread.body, `${session.id} comment ${thread.id}`),
        replies: thread.replies.map((reply) => ({
          ...reply,
          body: preview(reply.body, `${session.id} reply ${reply.id}`),
        })),
      }));
      messages.push({ type: 'comments', view });
    } catch (error) {
      messages.push({
        type: 'comments',
        view: {
          state: 'failed',
          message: (error as Error).message,
          filter: 'ALL',
          threads: [],
          total: 0,
          hasMore: false,
        },
      });
    }
  } else {
    messages.push({
      type: 'comments',
      view: { state: 'unsupported', filter: 'ALL', threads: [], total: 0, hasMore: false },
    });
  }
  for (const task of session.pendingTasks ?? []) {
    try {
      const detail = await (source as McpSource).describeManualTask(task.id);
      messages.push({
        type: 'manualTask',
        task: { ...detail, body: preview(detail.body, `${session.id} manual task ${task.id}`) },
      });
    } catch (error) {
      messages.push({ type: 'manualTaskFailed', id: task.id, message: (error as Error).message });
    }
  }
  for (const close of closeLater.splice(0)) await close();
  return { key: `${source.config.id}/${session.id}`, messages, transcripts, reveals };
}

/** The usage dashboard's data of the reporting connection (what its panel fetches). */
export function dashboardData(source: SessionSource): Promise<DashboardData> {
  return fetchDashboardData(source as McpSource, { filters: {} });
}
