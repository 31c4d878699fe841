import * as z from 'zod';
import type { CommentReplyView, CommentView } from '../../shared/protocol.ts';

/**
 * Tolerant schemas for list-session-comments (seed 002): unknown fields pass, nullable
 * fields may be null or absent, a malformed optional field is dropped instead of the
 * comment. Only a comment without an id or body is unreadable.
 */
const text = z.string().nullish().catch(null);

const replyRow = z.looseObject({
  id: z.string().min(1),
  body: z.string(),
  authorName: text,
  createdAt: text,
});

const anchorRow = z.looseObject({
  selectedText: text,
  sourceText: text,
  turnId: text,
  row: z.number().int().nonnegative().nullish().catch(null),
  actor: z
    .looseObject({
      name: text,
      human: z.looseObject({ name: text }).nullish().catch(null),
    })
    .nullish()
    .catch(null),
});

const commentRow = z.looseObject({
  id: z.string().min(1),
  threadId: text,
  body: z.string(),
  status: text,
  resolvedAt: text,
  resolvedByName: text,
  authorName: text,
  createdAt: text,
  anchor: anchorRow.nullish().catch(null),
  replies: z.array(z.unknown()).nullish().catch(null),
});

const count = z.number().int().nonnegative().nullish().catch(null);

export const commentsEnvelope = z.looseObject({
  items: z.array(z.unknown()),
  total: count,
  offset: count,
  limit: count,
  returned: count,
  hasMore: z.boolean().nullish().catch(null),
  nextOffset: count,
});

const opt = (v: string | null | undefined) => (v === null || v === undefined ? undefined : v);

/** One comment thread, or undefined when unreadable; `badReplies` counts replies dropped. */
export function toCommentView(item: unknown): { view?: CommentView; badReplies: number } {
  const parsed = commentRow.safeParse(item);
  if (!parsed.success) return { badReplies: 0 };
  const c = parsed.data;
  const replies: CommentReplyView[] = [];
  let badReplies = 0;
  for (const raw of c.replies ?? []) {
    const r = replyRow.safeParse(raw);
    if (!r.success) {
      badReplies++;
      continue;
    }
    replies.push({
      id: r.data.id,
      body: r.data.body,
      authorName: opt(r.data.authorName),
      createdAt: opt(r.data.createdAt),
    });
  }
  const a = c.anchor;
  const status = c.status?.toUpperCase() || (c.resolvedAt ? 'RESOLVED' : 'OPEN');
  return {
    badReplies,
    view: {
      id: c.id,
      threadId: c.threadId || c.id,
      body: c.body,
      authorName: opt(c.authorName),
      createdAt: opt(c.createdAt),
      status,
      resolvedByName: opt(c.resolvedByName),
      resolvedAt: opt(c.resolvedAt),
      anchor: a
        ? {
            selectedText: opt(a.selectedText),
            sourceText: opt(a.sourceText),
            turnId: opt(a.turnId),
            row: a.row ?? undefined,
            actor: opt(a.actor?.human?.name) ?? opt(a.actor?.name),
          }
        : undefined,
      replies,
    },
  };
}
