/**
 * Trace comments of one session (list-session-comments, seed 002), paged to the end
 * and mapped to the panel's CommentView. Bad items are counted and skipped, never fatal.
 */
import { BackendError } from '../../domain/errors.ts';
import type { CommentFilter, CommentsView, CommentView } from '../../shared/protocol.ts';
import type { JsonToolCaller } from '../mcp/jsonToolCaller.ts';
import { commentsEnvelope, toCommentView } from './commentSchemas.ts';

export {
  placeAnchors,
  searchEntries,
  searchTranscript,
  type AnchorSearch,
} from './commentAnchors.ts';

export const COMMENTS_TOOL = 'list-session-comments';
/** The demo and the real server clamp larger limits to 100; asking for more gains nothing. */
export const COMMENTS_PAGE_SIZE = 100;
/** Safety bound on one traversal; past it the list is marked incomplete. */
export const MAX_COMMENT_THREADS = 5_000;

export interface CommentPage {
  threads: CommentView[];
  /** Matching comments on the server (for this filter). */
  total: number;
  hasMore: boolean;
  /** Where the next page starts (null on the last page). */
  nextOffset: number | null;
  /** Comments and replies that could not be read. */
  invalidItems: number;
  /** Items the server sent on this page, readable or not. */
  received: number;
}

export interface CommentPageRequest {
  filter?: CommentFilter;
  offset?: number;
  limit?: number;
  signal?: AbortSignal;
}

/** One page. ALL sends no status filter; OPEN/RESOLVED are passed to the server. */
export async function fetchCommentPage(
  caller: JsonToolCaller,
  sessionId: string,
  request: CommentPageRequest = {},
): Promise<CommentPage> {
  const offset = request.offset ?? 0;
  const limit = request.limit ?? COMMENTS_PAGE_SIZE;
  const filter = request.filter ?? 'ALL';
  const args: Record<string, unknown> = { sessionId, offset, limit };
  if (filter !== 'ALL') args.status = filter;
  const parsed = commentsEnvelope.safeParse(
    await caller.callJson(COMMENTS_TOOL, args, request.signal),
  );
  if (!parsed.success) {
    throw new BackendError(
      'invalidResponse',
      `${COMMENTS_TOOL} answered in an unexpected shape (no list of items).`,
    );
  }
  const page = parsed.data;
  const threads: CommentView[] = [];
  let invalidItems = 0;
  for (const item of page.items) {
    const { view, badReplies } = toCommentView(item);
    invalidItems += badReplies + (view ? 0 : 1);
    if (view) threads.push(view);
  }
  const seen = offset + page.items.length;
  // hasMore is authoritative; older or drifting servers may only send nextOffset or total.
  const hasMore =
    page.hasMore ??
    (page.nextOffset !== null && page.nextOffset !== undefined
      ? true
      : page.total !== null && page.total !== undefined
        ? seen < page.total
        : page.items.length >= limit);
  return {
    threads,
    total: page.total ?? seen,
    hasMore: hasMore && page.items.length > 0,
    nextOffset: hasMore ? (page.nextOffset ?? seen) : null,
    invalidItems,
    received: page.items.length,
  };
}

export interface CommentList {
  threads: CommentView[];
  total: number;
  invalidItems: number;
  /** False when the traversal stopped early (bound reached, or the server's paging stalled). */
  complete: boolean;
  /**
   * The server's paging repeated itself: a next offset at or before the current one, or a
   * page of comments already read. The traversal stopped with what it had.
   */
  repeated?: boolean;
}

/**
 * Every comment for the filter, following nextOffset until hasMore is false; each thread
 * once (the first copy). Ends early, incomplete, when the paging repeats itself or
 * `maxThreads` items were read.
 */
export async function listSessionComments(
  caller: JsonToolCaller,
  sessionId: string,
  options: {
    filter?: CommentFilter;
    signal?: AbortSignal;
    pageSize?: number;
    maxThreads?: number;
  } = {},
): Promise<CommentList> {
  const maxThreads = options.maxThreads ?? MAX_COMMENT_THREADS;
  const threads: CommentView[] = [];
  const ids = new Set<string>();
  let invalidItems = 0;
  let received = 0;
  let total: number;
  let offset = 0;
  for (;;) {
    const page = await fetchCommentPage(caller, sessionId, {
      filter: options.filter,
      offset,
      limit: options.pageSize,
      signal: options.signal,
    });
    total = page.total;
    invalidItems += page.invalidItems;
    received += page.received;
    // Offsets are over a fresh read each call: a comment added meanwhile can shift one
    // already seen into the next page. Keep the first copy.
    const before = threads.length;
    for (const t of page.threads) if (!ids.has(t.id) && ids.add(t.id)) threads.push(t);
    if (!page.hasMore) return { threads, total, invalidItems, complete: true };
    const next = page.nextOffset ?? offset;
    // A page of nothing but threads already read means the server serves the same
    // comments whatever the offset: following it would never end.
    const nothingNew = page.threads.length > 0 && threads.length === before;
    if (next <= offset || nothingNew)
      return { threads, total, invalidItems, complete: false, repeated: true };
    if (threads.length >= maxThreads || received >= maxThreads)
      return { threads, total, invalidItems, complete: false };
    offset = next;
  }
}

/** The panel's view of a loaded list. */
export function commentsView(list: CommentList, filter: CommentFilter): CommentsView {
  const unread = list.invalidItems;
  return {
    state: 'ready',
    filter,
    threads: list.threads,
    total: list.total,
    // Loading again cannot help when the server's paging goes round in circles.
    hasMore: !list.complete && !list.repeated,
    message:
      [
        unread > 0
          ? `${unread} comment${unread === 1 ? '' : 's'} or repl${unread === 1 ? 'y' : 'ies'} could not be read.`
          : '',
        list.repeated
          ? "The server's paging repeated itself: the comments read before that are shown."
          : '',
      ]
        .filter(Boolean)
        .join(' ') || undefined,
  };
}
