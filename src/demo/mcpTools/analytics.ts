import type { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import type { ClosedloopSession } from '../data/closedloopSessions.ts';
import { applySharedFilters, sharedFilterShape } from './closedloopQuery.ts';
import type { ToolContext } from './context.ts';
import { okResult, READ_ONLY } from './results.ts';
import { money } from './usage.ts';

function countBy<T>(
  items: readonly T[],
  keys: (item: T) => Iterable<[string, number]>,
): Map<string, { total: number; sessions: number }> {
  const out = new Map<string, { total: number; sessions: number }>();
  for (const item of items) {
    for (const [key, n] of keys(item)) {
      const entry = out.get(key) ?? { total: 0, sessions: 0 };
      entry.total += n;
      entry.sessions++;
      out.set(key, entry);
    }
  }
  return out;
}

function sorted<T extends Record<string, unknown>>(rows: T[], by: keyof T, name: keyof T): T[] {
  return rows.sort(
    (a, b) =>
      (b[by] as number) - (a[by] as number) || String(a[name]).localeCompare(String(b[name])),
  );
}

function agentTypes(s: ClosedloopSession): [string, number][] {
  const counts = new Map<string, number>([['main', 1]]);
  for (const t of s.subagentTypes) counts.set(t, (counts.get(t) ?? 0) + 1);
  return [...counts];
}

export function registerAnalytics(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'get-agent-session-analytics',
    {
      title: 'Get Agent-Session Analytics',
      description:
        'Analytics breakdowns by tool, agent type, repository and project. Unlike list and usage, ' +
        'startDate/endDate here are a session start window on sessionStartedAt.',
      inputSchema: z.object(sharedFilterShape),
      annotations: READ_ONLY,
    },
    (args) => {
      const filtered = applySharedFilters(ctx, args, 'startedAt');
      if (!filtered.ok) return filtered.error;
      const sessions = filtered.sessions;
      const tools = countBy(sessions, (s) => Object.entries(s.toolUses));
      const types = countBy(sessions, agentTypes);
      const byRepo = new Map<string, ClosedloopSession[]>();
      const byProject = new Map<string, ClosedloopSession[]>();
      for (const s of sessions) {
        byRepo.set(s.repositoryFullName, [...(byRepo.get(s.repositoryFullName) ?? []), s]);
        byProject.set(s.project, [...(byProject.get(s.project) ?? []), s]);
      }
      const group = (list: ClosedloopSession[]) => ({
        sessionCount: list.length,
        toolUseCount: list.reduce((n, s) => n + s.toolUseCount, 0),
        errorCount: list.reduce((n, s) => n + s.errorCount, 0),
        estimatedCost: money(list.reduce((n, s) => n + s.estimatedCost, 0)),
      });
      return okResult({
        viewerScope: filtered.viewerScope,
        totalSessions: sessions.length,
        byTool: sorted(
          [...tools].map(([toolName, v]) => ({
            toolName,
            useCount: v.total,
            sessionCount: v.sessions,
          })),
          'useCount',
          'toolName',
        ),
        byAgentType: sorted(
          [...types].map(([agentType, v]) => ({
            agentType,
            agentCount: v.total,
            sessionCount: v.sessions,
          })),
          'agentCount',
          'agentType',
        ),
        byRepository: sorted(
          [...byRepo].map(([repositoryFullName, list]) => ({ repositoryFullName, ...group(list) })),
          'sessionCount',
          'repositoryFullName',
        ),
        byProject: sorted(
          [...byProject].map(([project, list]) => ({ project, ...group(list) })),
          'sessionCount',
          'project',
        ),
      });
    },
  );
}
