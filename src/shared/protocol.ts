/**
 * The one message protocol between the extension host and the session webview.
 * Imported by both sides; every message is a member of these unions, so a
 * misspelt type or field fails to compile on either side. Messages from the
 * webview are listed once, in WEBVIEW_MESSAGES, and checked by isWebviewMessage
 * before the host acts on them.
 */
import type { SessionSummary } from './sessionSummary.ts';
import type { SearchResult, TextPart, TranscriptEntry } from './transcriptEntries.ts';
import type { MessageOf, MessageSchema } from './messageSchema.ts';
import { bool, int, messageGuard, oneOf, optional, str } from './messageSchema.ts';
import type { ChangesView } from './changesView.ts';

export type { SearchResult, TextPart, TranscriptEntry };
export type { ChangeRowView } from './changesView.ts';
export type { ChangesView };

/** Which transcript file the panel shows: 'main' or 'subagent:<id>'. */
export interface TranscriptFileView {
  fileKey: string;
  label: string;
  /** available, stale, uploadPending, uploadFailed, permanentlyUnavailable, missing, local. */
  availability: string;
  /** The availability in words a user understands. */
  description: string;
}

export type TranscriptStatus =
  | { state: 'none'; message: string }
  | { state: 'loading'; message: string; bytesDone?: number; bytesTotal?: number }
  | { state: 'ready'; entryCount: number; complete: boolean; errorCount: number; format: string }
  | { state: 'unavailable'; message: string; canRetry: boolean }
  | { state: 'failed'; message: string; canRetry: boolean };

export interface CommentReplyView {
  id: string;
  body: string;
  authorName?: string;
  createdAt?: string;
}

/** A trace comment thread. Bodies and names are untrusted text. */
export interface CommentView extends CommentReplyView {
  threadId: string;
  status: 'OPEN' | 'RESOLVED' | string;
  resolvedByName?: string;
  resolvedAt?: string;
  anchor?: {
    selectedText?: string;
    sourceText?: string;
    turnId?: string;
    row?: number;
    actor?: string;
  };
  /** The transcript entry the anchor points at, when the host could place it. */
  entryIndex?: number;
  replies: CommentReplyView[];
}

export const COMMENT_FILTERS = ['ALL', 'OPEN', 'RESOLVED'] as const;
export type CommentFilter = (typeof COMMENT_FILTERS)[number];

export interface CommentsView {
  state: 'loading' | 'ready' | 'failed' | 'unsupported';
  message?: string;
  filter: CommentFilter;
  threads: CommentView[];
  total: number;
  hasMore: boolean;
}

export interface UsageView {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
  reasoning?: number;
  cost: string;
  /** Per model turn, from the transcript (label = turn number or time). */
  turns: { label: string; input: number; output: number }[];
  /** REST: the most recent call's context use. */
  context?: { used: number; window: number };
}

/** What the session can do from the panel; the host decides from the backend's capabilities. */
export interface SessionActions {
  complete: boolean;
  interrupt: boolean;
  /** Resume in Terminal (local Claude Code and Codex sessions). */
  resume?: boolean;
  /** The user archived the session (Unarchive instead of Archive). */
  archived?: boolean;
  /** The backend gave the session a web address (Copy Link). */
  link?: boolean;
}

export interface SessionView {
  session: SessionSummary;
  connectionLabel: string;
  /** Pre-formatted in the host so both sides agree on wording. */
  cost: string;
  actions: SessionActions;
}

/** An Itential manual task as the panel shows it. Every text field is untrusted. */
export interface ManualTaskView {
  id: string;
  header?: string;
  message?: string;
  body?: string;
  variables?: Record<string, unknown>;
  viewType?: string;
  successLabel?: string;
  failureLabel?: string;
  completionSupported: boolean;
}

/**
 * What the webview needs to speak the user's language: VS Code's display language (for
 * Intl: dates, times, numbers) and this extension's l10n bundle for it (the same
 * bundle.l10n.<lang>.json as the host's strings). The host sends it first, in `init`.
 */
export interface WebviewL10n {
  /** vscode.env.language, e.g. `en`, `de`, `zh-cn`. */
  language: string;
  /** vscode.l10n.bundle: English message → translation; absent when none is loaded (English). */
  bundle?: Record<string, string>;
}

/** Checked in the webview before it configures @vscode/l10n and Intl with it. */
export function isWebviewL10n(value: unknown): value is WebviewL10n {
  if (!value || typeof value !== 'object') return false;
  const { language, bundle } = value as Record<string, unknown>;
  if (typeof language !== 'string' || language.length > 35) return false;
  if (bundle === undefined) return true;
  return (
    !!bundle &&
    typeof bundle === 'object' &&
    !Array.isArray(bundle) &&
    Object.values(bundle).every((v) => typeof v === 'string')
  );
}

/** Host → webview. */
export type HostMessage =
  /** The answer to `ready`, before anything else: language and translations. */
  | { type: 'init'; l10n: WebviewL10n }
  | { type: 'session'; view: SessionView }
  | { type: 'loading' }
  | { type: 'failed'; message: string }
  | { type: 'manualTask'; task: ManualTaskView }
  | { type: 'manualTaskFailed'; id: string; message: string }
  | {
      type: 'transcriptStatus';
      fileKey: string;
      files: TranscriptFileView[];
      status: TranscriptStatus;
    }
  | { type: 'entries'; requestId: number; start: number; entries: TranscriptEntry[]; total: number }
  | { type: 'searchResult'; requestId: number; result: SearchResult }
  | { type: 'fullText'; requestId: number; index: number; part: TextPart; text: string }
  | { type: 'comments'; view: CommentsView }
  | { type: 'usage'; view: UsageView }
  /** Scroll the transcript to an entry (a comment's anchor), highlighting this text. */
  | { type: 'reveal'; index: number; highlight?: string }
  /** The Changes tab: the files the session changed (src/domain/changes). */
  | { type: 'changes'; view: ChangesView };

/**
 * Webview → host, written once: each message's fields as run-time checks (messageSchema.ts).
 * The type WebviewMessage, the host's validator and the session panel's handler table all
 * come from this list. `ready` is the handshake: the host posts nothing before it.
 */
export const WEBVIEW_MESSAGES = {
  ready: {},
  refresh: {},
  complete: {},
  cancel: {},
  interrupt: {},
  resume: {},
  /** The header's Export / Copy / Archive buttons: the tree's commands, on this session. */
  sessionCommand: {
    command: oneOf('export', 'copyId', 'copyResume', 'copyLink', 'archive', 'unarchive'),
  },
  openManualTask: { id: str },
  finishManualTask: { id: str, finish: oneOf('success', 'failure') },
  selectFile: { fileKey: str },
  retryTranscript: {},
  getEntries: { requestId: int, start: int, count: int },
  search: {
    requestId: int,
    query: str,
    from: optional(int),
    direction: oneOf('next', 'previous'),
  },
  nextError: { requestId: int, from: int },
  getFullText: { requestId: int, index: int, part: oneOf('text', 'input', 'output') },
  openFile: { path: str, line: optional(int) },
  /** An http(s) link in transcript Markdown; the host checks it again (src/shared/links.ts). */
  openExternal: { url: str },
  openRaw: {},
  loadComments: { filter: oneOf(...COMMENT_FILTERS), more: bool },
  revealComment: { threadId: str },
  /** The Changes tab: its list, one file's diff, all of them, the workspace comparison. */
  loadChanges: {},
  openChange: { index: int },
  openAllChanges: {},
  compareWithWorkspace: { index: optional(int) },
} as const satisfies MessageSchema;

/** Webview → host: one member per entry of WEBVIEW_MESSAGES. */
export type WebviewMessage = MessageOf<typeof WEBVIEW_MESSAGES>;

/** The host acts only on messages of the protocol, with fields of the right types. */
export const isWebviewMessage = messageGuard(WEBVIEW_MESSAGES);

/** What the webview persists so the panel can be restored after a reload. */
export interface PanelState {
  connectionId: string;
  sessionId: string;
}

export function isPanelState(value: unknown): value is PanelState {
  return (
    !!value &&
    typeof (value as PanelState).connectionId === 'string' &&
    typeof (value as PanelState).sessionId === 'string'
  );
}
