import type { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { findSessionById, monitoringError, pagingShape } from './closedloopQuery.ts';
import type { ToolContext } from './context.ts';
import { errorResult, isUuid, okResult, READ_ONLY } from './results.ts';

export const DEFAULT_COMMENTS_LIMIT = 25;
export const MAX_COMMENTS_LIMIT = 100;

const SESSION_URL =
  /\/sessions\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\/?$/i;

/** One registerTool call: the tool's description, input schema and handler read together. */
export function registerComments(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'list-session-comments',
    {
      title: 'List Session Comments',
      description:
        'List read-only trace comments for one agent session. Provide exactly one of sessionId or sessionUrl. ' +
        'Offset-based pagination; restart at offset 0 for a refreshed traversal.',
      inputSchema: z.object({
        sessionId: z
          .string()
          .optional()
          .describe('UUID — the `id` from list-agent-sessions; SES-* slugs are not accepted'),
        sessionUrl: z
          .string()
          .optional()
          .describe('Canonical Closedloop URL ending in /sessions/{uuid}'),
        computeTargetId: z
          .string()
          .optional()
          .describe('Optional UUID for desktop-local session resolution'),
        status: z.enum(['OPEN', 'RESOLVED']).optional(),
        ...pagingShape('comments', MAX_COMMENTS_LIMIT),
      }),
      annotations: READ_ONLY,
    },
    async (args) => {
      const denied = monitoringError(ctx);
      if (denied) return denied;
      if ((args.sessionId === undefined) === (args.sessionUrl === undefined)) {
        return errorResult(
          400,
          'validation_error',
          'Provide exactly one of sessionId or sessionUrl',
        );
      }
      if (args.computeTargetId !== undefined && !isUuid(args.computeTargetId)) {
        return errorResult(400, 'validation_error', 'computeTargetId must be a UUID');
      }
      let sessionId = args.sessionId;
      if (args.sessionUrl !== undefined) {
        let path: string;
        try {
          path = new URL(args.sessionUrl).pathname;
        } catch {
          return errorResult(400, 'validation_error', 'sessionUrl is not a valid URL');
        }
        const match = SESSION_URL.exec(path);
        if (!match)
          return errorResult(400, 'validation_error', 'sessionUrl must end in /sessions/{uuid}');
        sessionId = match[1]!;
      }
      const found = findSessionById(ctx, sessionId!);
      if (!found.ok) return found.error;
      const failure = ctx.hostile?.errorFor('comments', found.session.id);
      if (failure !== undefined) return errorResult(500, 'internal_error', failure);
      const all = await ctx.comments.comments(found.session);
      const matching = all.filter((c) => args.status === undefined || c.status === args.status);
      const offset = args.offset ?? 0;
      // Larger limits are clamped, not refused: clients must follow hasMore anyway.
      const limit = Math.min(args.limit ?? DEFAULT_COMMENTS_LIMIT, MAX_COMMENTS_LIMIT);
      const items = matching.slice(offset, offset + limit);
      const hasMore = offset + items.length < matching.length;
      return okResult({
        total: matching.length,
        offset,
        limit,
        returned: items.length,
        hasMore,
        nextOffset: hasMore ? offset + items.length : null,
        items,
      });
    },
  );
}
