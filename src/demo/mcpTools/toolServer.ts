import { McpServer } from '@modelcontextprotocol/server';
import { registerAnalytics } from './analytics.ts';
import { registerComments } from './comments.ts';
import type { ToolContext } from './context.ts';
import { registerItentialManualTasks } from './itentialManualTasks.ts';
import { registerItentialSessions } from './itentialSessions.ts';
import { registerListAgentSessions } from './listAgentSessions.ts';
import { registerPendingInstructions } from './pendingInstructions.ts';
import { registerSessionComplete } from './sessionComplete.ts';
import { registerTranscript } from './transcript.ts';
import { registerUsage } from './usage.ts';

/**
 * The seed systems are separate servers in real life; the demo serves each on its
 * own path and all of them together on /mcp so one connection can show everything.
 */
export type ToolGroup = 'closedloop' | 'itential';
export const TOOL_GROUPS: readonly ToolGroup[] = ['closedloop', 'itential'];

const REGISTRARS: Readonly<
  Record<ToolGroup, readonly ((server: McpServer, ctx: ToolContext) => void)[]>
> = {
  closedloop: [
    registerListAgentSessions,
    registerUsage,
    registerAnalytics,
    registerTranscript,
    registerComments,
    registerSessionComplete,
    registerPendingInstructions,
  ],
  itential: [registerItentialSessions, registerItentialManualTasks],
};

export function createToolServer(ctx: ToolContext, groups: readonly ToolGroup[]): McpServer {
  const server = new McpServer(
    { name: 'agent-session-inspector-reference-backend', version: '0.1.0' },
    { capabilities: { tools: {} } },
  );
  for (const group of groups) for (const register of REGISTRARS[group]) register(server, ctx);
  return server;
}
