import * as z from 'zod';

/**
 * Tolerant schemas for the agents REST API v2 (unknown fields pass). Session rows are
 * read with readRow (../rowFields.ts): a wrongly typed field costs that field, not the row.
 */
export const agentSession = z.looseObject({
  key: z.string().min(1),
  // The agent the session was listed under stands in when this cannot be read.
  agent_key: z.string().min(1).nullish(),
  name: z.string().nullish(),
  description: z.string().nullish(),
  status: z.string().nullish(),
  enabled: z.boolean().nullish(),
  created_at: z.string().nullish(),
  created_by_agent_key: z.string().nullish(),
  created_by_session_key: z.string().nullish(),
  alias_key: z.string().nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  current_step_name: z.string().nullish(),
  tti_minutes: z.number().nullish(),
  secrets: z.record(z.string(), z.unknown()).nullish(),
  effective_compaction: z
    .looseObject({
      enabled: z.boolean().nullish(),
      threshold_percent: z.number().nullish(),
      keep_recent_inputs: z.number().nullish(),
    })
    .nullish(),
  session_context_usage: z
    .looseObject({ total_tokens: z.number().nullish(), model_context_window: z.number().nullish() })
    .nullish(),
});
export type AgentSession = z.infer<typeof agentSession>;

/** One session read again for its status alone (other fields may be anything). */
export const sessionStatus = z.looseObject({ status: z.string().nullish() });

export const sessionList = z.looseObject({
  sessions: z.array(z.unknown()),
  metadata: z.looseObject({ page_key: z.string().nullish() }).nullish(),
});

/**
 * GET …/outstanding_client_tool_calls: `{tool_calls: [...]}` (older answers: a bare list or
 * `{calls: [...]}`). Nothing else is read as a count: an object without the list is not
 * "no calls", it is an answer we cannot read.
 */
export const outstandingCalls = z.union([
  z.array(z.unknown()),
  z.looseObject({ tool_calls: z.array(z.unknown()) }),
  z.looseObject({ calls: z.array(z.unknown()) }),
]);

export function outstandingCount(body: z.infer<typeof outstandingCalls>): number {
  if (Array.isArray(body)) return body.length;
  return 'tool_calls' in body && Array.isArray(body.tool_calls)
    ? body.tool_calls.length
    : (body as { calls: unknown[] }).calls.length;
}

export const agentRecord = z.looseObject({ key: z.string() });

export const agentList = z.looseObject({
  agents: z.array(agentRecord),
  metadata: z.looseObject({ page_key: z.string().nullish() }).nullish(),
});

export const eventList = z.looseObject({
  events: z.array(z.unknown()),
  metadata: z.looseObject({ page_key: z.string().nullish() }).nullish(),
});
