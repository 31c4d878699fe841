import * as z from 'zod';

/** Tolerant schemas for the agents REST API v2 (unknown fields pass). */
export const agentSession = z.looseObject({
  key: z.string(),
  agent_key: z.string(),
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
  tti_minutes: z.number().nullish().catch(undefined),
  secrets: z.record(z.string(), z.unknown()).nullish().catch(undefined),
  effective_compaction: z
    .looseObject({
      enabled: z.boolean().nullish(),
      threshold_percent: z.number().nullish(),
      keep_recent_inputs: z.number().nullish(),
    })
    .nullish()
    .catch(undefined),
  session_context_usage: z
    .looseObject({ total_tokens: z.number().nullish(), model_context_window: z.number().nullish() })
    .nullish()
    .catch(undefined),
});
export type AgentSession = z.infer<typeof agentSession>;

export const sessionList = z.looseObject({
  sessions: z.array(z.unknown()),
  metadata: z.looseObject({ page_key: z.string().nullish() }).nullish(),
});

export const outstandingCalls = z.union([
  z.array(z.unknown()),
  z.looseObject({
    calls: z.array(z.unknown()).optional(),
    tool_calls: z.array(z.unknown()).optional(),
  }),
]);

export const agentRecord = z.looseObject({ key: z.string() });

export const agentList = z.looseObject({
  agents: z.array(agentRecord),
  metadata: z.looseObject({ page_key: z.string().nullish() }).nullish(),
});

export const eventList = z.looseObject({
  events: z.array(z.unknown()),
  metadata: z.looseObject({ page_key: z.string().nullish() }).nullish(),
});
