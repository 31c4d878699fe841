import type { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import type { ItentialEvent, ItentialSession, ItentialTurn } from '../data/itential.ts';
import type { ToolContext } from './context.ts';
import { manualTaskSummary } from './itentialManualTasks.ts';
import { errorResult, okResult, READ_ONLY } from './results.ts';

const TERMINAL = new Set(['COMPLETE', 'FAILED', 'CANCELED']);

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

function text(event: ItentialEvent): string | null {
  const value = event.data?.['text'];
  return typeof value === 'string' ? value : null;
}

function header(session: ItentialSession): Record<string, unknown> {
  return {
    session_id: session.session_id,
    agent_name: session.agent_name,
    status: session.status,
    started_at: iso(session.startedAtMs),
    end_time: iso(session.endAtMs),
    duration_ms: session.endAtMs === null ? null : session.endAtMs - session.startedAtMs,
  };
}

function find(ctx: ToolContext, sessionId: string): ItentialSession | undefined {
  return ctx.dataset.itential.sessions.find((s) => s.session_id === sessionId);
}

const notFound = (id: string) => errorResult(404, 'not_found', `Agent session ${id} was not found`);

/** The older servers' shape: every event as a message, output from inference-succeeded. */
function legacyMessage(event: ItentialEvent): Record<string, unknown> {
  const stopReason = event.data?.['stopReason'];
  switch (event.type) {
    case 'AGENT_REASONING':
      if (stopReason === 'end_turn')
        return {
          type: 'inference-succeeded',
          category: 'inference',
          text: text(event),
          timestamp: event.timestamp,
        };
      if (stopReason === 'tool_use')
        return {
          type: 'tool-call',
          category: 'inference',
          text: text(event),
          timestamp: event.timestamp,
        };
      return { type: 'inference', category: null, text: text(event), timestamp: event.timestamp };
    case 'TOOL_EXECUTION':
      return {
        type: 'tool-result',
        category: 'tool',
        text: JSON.stringify(event.data ?? null),
        timestamp: event.timestamp,
      };
    case 'PENDING_INFERENCE':
      return { type: 'inference-pending', category: null, text: null, timestamp: event.timestamp };
    case 'SESSION_STATUS':
      return {
        type: 'session-status',
        category: 'status',
        text: String(event.data?.['status'] ?? ''),
        timestamp: event.timestamp,
      };
  }
}

export function describeSession(
  ctx: ToolContext,
  session: ItentialSession,
): Record<string, unknown> {
  const terminal = TERMINAL.has(session.status);
  if (ctx.state.legacyItentialShape) {
    const messages = session.events.map(legacyMessage);
    const last = messages.filter((m) => m['type'] === 'inference-succeeded').at(-1);
    return { ...header(session), output: terminal ? (last?.['text'] ?? null) : null, messages };
  }
  const kept = session.events.filter(
    (e) => e.type === 'AGENT_REASONING' && e.data?.['stopReason'] === 'end_turn',
  );
  const nowMs = ctx.clock.nowMs();
  let pending: Record<string, unknown>[] | null = [];
  // The lookup only runs while RUNNING; a failed lookup is "unknown" (null), not "none".
  if (session.status === 'RUNNING') {
    pending = session.manualTaskLookupFails
      ? null
      : ctx.dataset.itential.manualTasks
          .filter((t) => t.session_id === session.session_id && t.state === 'pending')
          .map((t) => manualTaskSummary(t, nowMs));
  }
  return {
    ...header(session),
    // "None if the session has not completed": a running session's checkpoints are not its output.
    output: terminal ? (kept.length > 0 ? text(kept.at(-1)!) : null) : null,
    reasoning_events: kept.map((e) => ({
      event_id: e.event_id,
      sequence_number: e.sequence_number,
      timestamp: e.timestamp,
      text: text(e),
    })),
    pending_manual_tasks: pending,
  };
}

export function registerItentialSessions(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'get_sessions',
    {
      title: 'Get Sessions',
      description: 'List agent sessions, optionally for one agent.',
      inputSchema: z.object({
        agent_name: z.string().optional().describe('Only sessions of this agent'),
      }),
      annotations: READ_ONLY,
    },
    ({ agent_name }) => {
      const rows = ctx.dataset.itential.sessions
        .filter((s) => agent_name === undefined || s.agent_name === agent_name)
        .sort((a, b) => b.startedAtMs - a.startedAtMs || a.session_id.localeCompare(b.session_id))
        .map((s) => {
          if (ctx.state.legacyItentialShape) return header(s);
          const input = s.turns.reduce((n, t) => n + t.token_usage.input_tokens, 0);
          const output = s.turns.reduce((n, t) => n + t.token_usage.output_tokens, 0);
          return { ...header(s), total_input_tokens: input, total_output_tokens: output };
        });
      // FastMCP wraps a list return value as {"result": [...]} in structured output.
      return {
        content: [{ type: 'text', text: JSON.stringify(rows) }],
        structuredContent: { result: rows },
      };
    },
  );

  server.registerTool(
    'describe_session',
    {
      title: 'Describe Session',
      description:
        'Get detailed information about a specific agent session, including the reasoning events whose ' +
        'data.stopReason is "end_turn", the final text output and pending manual tasks (null when unknown).',
      inputSchema: z.object({
        session_id: z.string().describe('The session ID to retrieve full details for'),
      }),
      annotations: READ_ONLY,
    },
    ({ session_id }) => {
      const session = find(ctx, session_id);
      if (!session) return notFound(session_id);
      const failure = ctx.hostile?.errorFor('describe_session', session.session_id);
      if (failure !== undefined) return errorResult(500, 'internal_error', failure);
      return okResult(describeSession(ctx, session));
    },
  );

  server.registerTool(
    'describe_session_token_usage',
    {
      title: 'Describe Session Token Usage',
      description: 'Per-turn token usage of one agent session with a summary.',
      inputSchema: z.object({ session_id: z.string() }),
      annotations: READ_ONLY,
    },
    ({ session_id }) => {
      const session = find(ctx, session_id);
      if (!session) return notFound(session_id);
      const turns = session.turns;
      const sum = (pick: (t: ItentialTurn) => number) => turns.reduce((n, t) => n + pick(t), 0);
      return okResult({
        summary: {
          session_id: session.session_id,
          turn_count: session.turns.length,
          total_duration_ms: sum((t) => t.duration_ms),
          total_input_tokens: sum((t) => t.token_usage.input_tokens),
          total_output_tokens: sum((t) => t.token_usage.output_tokens),
          total_tokens: sum((t) => t.token_usage.total_tokens),
        },
        turns: session.turns,
      });
    },
  );
}
