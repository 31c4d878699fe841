import type { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import {
  applySharedFilters,
  pagingShape,
  sessionRow,
  sharedFilterShape,
  STATUS_FILTERS,
} from './closedloopQuery.ts';
import type { ToolContext } from './context.ts';
import { errorResult, isUuid, okResult, READ_ONLY } from './results.ts';

export const DEFAULT_LIST_LIMIT = 50;
export const MAX_LIST_LIMIT = 100;

const inputSchema = z.object({
  ...sharedFilterShape,
  status: z
    .enum(STATUS_FILTERS)
    .optional()
    .describe('"inactive" covers finished (non-failed) runs; compared with the stored status'),
  userId: z.string().optional().describe("UUID — filter to a single user's sessions"),
  ...pagingShape('sessions', MAX_LIST_LIMIT),
});

export function registerListAgentSessions(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'list-agent-sessions',
    {
      title: 'List Agent Sessions',
      description:
        'Enumerates individual agent sessions with harness, model, repository, token usage, cost and status. ' +
        'startDate/endDate are an activity window on lastActivityAt. The returned status is derived at read ' +
        'time and may differ from the filter values.',
      inputSchema,
      annotations: READ_ONLY,
    },
    (args) => {
      const filtered = applySharedFilters(ctx, args, 'lastActivityAt');
      if (!filtered.ok) return filtered.error;
      if (args.userId !== undefined && !isUuid(args.userId)) {
        return errorResult(400, 'validation_error', 'userId must be a UUID');
      }
      const nowMs = ctx.clock.nowMs();
      // The status filter is applied to the stored value in the query, before the
      // read-time derivation: re-sending a returned status does not always find
      // the row that carried it (seed 002 warns clients about exactly this).
      const rows = filtered.sessions
        .filter((s) => args.status === undefined || s.storedStatus === args.status)
        .filter((s) => args.userId === undefined || s.user.id === args.userId.toLowerCase())
        .sort((a, b) => b.lastActivityAtMs - a.lastActivityAtMs || a.id.localeCompare(b.id));
      const offset = args.offset ?? 0;
      // Larger limits are clamped, not refused: clients must page by total anyway.
      const page = rows.slice(
        offset,
        offset + Math.min(args.limit ?? DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT),
      );
      return okResult({
        items: page.map((s) => sessionRow(s, nowMs)),
        returned: page.length,
        total: rows.length,
        viewerScope: filtered.viewerScope,
      });
    },
  );
}
