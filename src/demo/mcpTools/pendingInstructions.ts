import type { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { displayName } from '../data/people.ts';
import { findSessionById } from './closedloopQuery.ts';
import type { ToolContext } from './context.ts';
import { okResult, READ_ONLY } from './results.ts';

export function registerPendingInstructions(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'list-pending-instructions',
    {
      title: 'List Pending Instructions',
      description:
        'Human instructions sent to a session that are still waiting. Their ids are what session_complete ' +
        'expects in acknowledgedInstructionIds.',
      inputSchema: z.object({ sessionId: z.string().describe('Session UUID') }),
      annotations: READ_ONLY,
    },
    ({ sessionId }) => {
      const found = findSessionById(ctx, sessionId);
      if (!found.ok) return found.error;
      const items = ctx.dataset.closedloop.instructions
        .filter((i) => i.sessionId === found.session.id && i.state === 'pending')
        .sort((a, b) => a.createdAtMs - b.createdAtMs || a.id.localeCompare(b.id))
        .map((i) => ({
          id: i.id,
          text: i.text,
          createdAt: new Date(i.createdAtMs).toISOString(),
          processed: i.processed,
          author: { id: i.author.id, name: displayName(i.author) },
        }));
      return okResult({ sessionId: found.session.id, total: items.length, items });
    },
  );
}
