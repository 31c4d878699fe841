import { MINUTE_MS } from '../clock.ts';
import type { SeededRandom } from '../random.ts';

export interface AgentRecord {
  readonly key: string;
  readonly name: string;
  readonly description: string;
  readonly first_step_name: string;
  readonly enabled: boolean;
  readonly created_at: string;
  readonly metadata: Readonly<Record<string, string>>;
}

export type AgentSessionStatus = 'unstarted' | 'running' | 'stopped';

/** A stored session; serialized as-is (optional fields absent when unset, as on the wire). */
export interface AgentSession {
  readonly key: string;
  readonly agent_key: string;
  readonly name: string;
  readonly description?: string;
  readonly metadata: Readonly<Record<string, string>>;
  readonly current_step_name: string | null;
  readonly enabled: boolean;
  status: AgentSessionStatus;
  readonly created_by_agent_key?: string;
  readonly created_by_session_key?: string;
  readonly tti_minutes?: number;
  readonly created_at: string;
  readonly alias_key: string | null;
  readonly secrets?: Readonly<Record<string, string>>;
  readonly session_context_usage?: Readonly<Record<string, unknown>>;
  readonly effective_compaction?: Readonly<Record<string, unknown>>;
}

export interface AgentEvent {
  readonly id: string;
  readonly session_key: string;
  readonly created_at: string;
  readonly type: string;
  readonly [field: string]: unknown;
}

export interface StoredAgentEvent {
  readonly event: AgentEvent;
  /** Left out of listings unless include_hidden=true. */
  readonly hidden: boolean;
}

export interface AgentsData {
  readonly agents: readonly AgentRecord[];
  /** agent key → sessions, newest first. */
  readonly sessions: ReadonlyMap<string, AgentSession[]>;
  /** `${agentKey}/${sessionKey}` → events, oldest first. */
  readonly events: Map<string, StoredAgentEvent[]>;
  readonly fixtures: AgentsFixtures;
}

export interface SessionRef {
  readonly agentKey: string;
  readonly sessionKey: string;
}

export interface AgentsFixtures {
  /** Contains at least one event of every type. */
  readonly showcase: SessionRef;
  readonly running: SessionRef;
  readonly stopped: SessionRef;
  readonly unstarted: SessionRef;
  readonly clientToolPending: SessionRef;
  readonly child: SessionRef;
}

export const EVENT_TYPES = [
  'input_message',
  'thinking',
  'agent_output',
  'tool_input',
  'tool_output',
  'structured_output',
  'compaction',
  'context_limit_exceeded',
  'step_transition',
  'session_interrupted',
  'client_tool_pending',
  'image_read',
  'artifact_upload',
  'skill_load',
] as const;

const HIDDEN_TYPES = new Set(['thinking', 'step_transition', 'skill_load']);

const AGENT_SPECS = [
  {
    key: 'customer_support',
    name: 'Customer Support',
    prefix: 'cs_chat',
    count: 28,
    steps: ['greeting', 'triage', 'billing'],
  },
  {
    key: 'release_manager',
    name: 'Release Manager',
    prefix: 'release',
    count: 9,
    steps: ['plan', 'verify', 'ship'],
  },
  {
    key: 'infra_triage',
    name: 'Infra Triage',
    prefix: 'triage',
    count: 6,
    steps: ['collect', 'diagnose'],
  },
] as const;

const QUESTIONS = [
  'My widget installer stops at 80%, what should I do?',
  'Can you check why invoice INV-2207 was charged twice?',
  'Prepare the release notes for 4.12 and run the smoke tests.',
  'Disk usage on db-replica-3 jumped overnight, please look.',
  'How do I rotate the API key for our staging project?',
];
const CLIENT_TOOLS = ['open_browser_tab', 'read_local_file', 'ask_user_confirmation'];
const SERVER_TOOLS = ['search_knowledge_base', 'lookup_invoice', 'query_metrics', 'create_ticket'];

function hex(rng: SeededRandom, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += rng.int(0, 15).toString(16);
  return s;
}

class EventLog {
  readonly items: StoredAgentEvent[] = [];
  private readonly rng: SeededRandom;
  private readonly sessionKey: string;
  private atMs: number;

  constructor(rng: SeededRandom, sessionKey: string, startMs: number) {
    this.rng = rng;
    this.sessionKey = sessionKey;
    this.atMs = startMs;
  }

  add(type: string, fields: Record<string, unknown> = {}): void {
    this.atMs += this.rng.int(300, 40_000);
    const event: AgentEvent = {
      id: `evt_${hex(this.rng, 16)}`,
      session_key: this.sessionKey,
      created_at: new Date(this.atMs).toISOString(),
      type,
      ...fields,
    };
    this.items.push({ event, hidden: HIDDEN_TYPES.has(type) });
  }

  toolCall(name: string, ok: boolean): void {
    const tool_call_id = `call_${hex(this.rng, 12)}`;
    this.add('tool_input', {
      tool_call_id,
      tool_name: name,
      tool_input: { query: this.rng.pick(QUESTIONS).slice(0, 30) },
    });
    this.add('tool_output', {
      tool_call_id,
      tool_output: ok ? { results: this.rng.int(0, 12) } : null,
      error: ok ? null : 'Upstream service returned 502',
    });
  }
}

type Shape = 'showcase' | 'exchanges' | 'inFlight' | 'clientPending' | 'interrupted';

function fillEvents(
  log: EventLog,
  rng: SeededRandom,
  shape: Shape,
  steps: readonly string[],
): void {
  const exchanges = shape === 'showcase' ? 3 : rng.int(1, 5);
  for (let i = 0; i < exchanges; i++) {
    log.add('input_message', { messages: [{ type: 'text', content: rng.pick(QUESTIONS) }] });
    if (i > 0 && steps.length > 1)
      log.add('step_transition', {
        from_step: steps[(i - 1) % steps.length],
        to_step: steps[i % steps.length],
      });
    log.add('thinking', {
      content: 'Checking the knowledge base and account state before answering.',
    });
    for (let t = rng.int(0, 2); t > 0; t--) log.toolCall(rng.pick(SERVER_TOOLS), rng.bool(0.85));
    log.add('agent_output', {
      content: `Here is what I found (${i + 1}/${exchanges}): the issue is resolved by updating the client to 2.3.1.`,
    });
  }
  if (shape === 'showcase') {
    log.add('skill_load', { skill_name: 'billing-policies', skill_version: '3' });
    log.add('image_read', {
      image: { file_name: 'screenshot.png', mime_type: 'image/png', size_bytes: 48_213 },
    });
    log.add('artifact_upload', {
      artifact: {
        artifact_key: `art_${hex(rng, 10)}`,
        file_name: 'diagnostics.zip',
        mime_type: 'application/zip',
        size_bytes: 1_204_332,
      },
    });
    log.add('structured_output', { output: { resolution: 'upgrade_client', confidence: 0.82 } });
    log.add('context_limit_exceeded', { input_tokens: 201_344, model_context_window: 200_000 });
    log.add('compaction', {
      turns_compacted: 6,
      events_compacted: 23,
      summary_text: 'User reported an installer hang; upgrade advised.',
    });
    log.add('session_interrupted', {});
    log.add('input_message', {
      messages: [{ type: 'text', content: 'Please open the install log for me.' }],
    });
    log.add('client_tool_pending', {
      pending_calls: [
        {
          tool_call_id: `call_${hex(rng, 12)}`,
          tool_name: 'read_local_file',
          tool_input: { path: '~/widget/install.log' },
        },
      ],
    });
    return;
  }
  if (shape === 'inFlight') {
    log.add('input_message', { messages: [{ type: 'text', content: rng.pick(QUESTIONS) }] });
    log.add('thinking', { content: 'Working on it.' });
  }
  if (shape === 'clientPending') {
    const calls = Array.from({ length: rng.int(1, 2) }, () => ({
      tool_call_id: `call_${hex(rng, 12)}`,
      tool_name: rng.pick(CLIENT_TOOLS),
      tool_input: { reason: 'Need confirmation from the user before continuing' },
    }));
    log.add('client_tool_pending', { pending_calls: calls });
  }
  if (shape === 'interrupted') log.add('session_interrupted', {});
}

function contextUsage(rng: SeededRandom): Record<string, unknown> {
  const input = rng.int(2_000, 180_000);
  const output = rng.int(100, 8_000);
  return {
    input_tokens: { count: input, cached_tokens: Math.floor(input * rng.next()) },
    output_tokens: { count: output, reasoning_tokens: Math.floor(output * rng.next() * 0.5) },
    total_tokens: input + output,
    model_context_window: 200_000,
  };
}

/** One pass over the agent specs that fills the sessions, events and fixture references together. */
export function buildAgents(rng: SeededRandom, nowMs: number): AgentsData {
  const agents: AgentRecord[] = AGENT_SPECS.map((spec, i) => ({
    key: spec.key,
    name: spec.name,
    description: `${spec.name} agent (demo)`,
    first_step_name: spec.steps[0],
    enabled: true,
    created_at: new Date(nowMs - (200 + i * 20) * 24 * 60 * MINUTE_MS).toISOString(),
    metadata: { owner: 'demo' },
  }));
  const sessions = new Map<string, AgentSession[]>();
  const events = new Map<string, StoredAgentEvent[]>();
  const refs: Partial<Record<keyof AgentsFixtures, SessionRef>> = {};
  const parents: SessionRef[] = [];

  for (const spec of AGENT_SPECS) {
    const list: AgentSession[] = [];
    for (let i = 0; i < spec.count; i++) {
      const r = rng.fork(`${spec.key}:${i}`);
      const key = `${spec.prefix}_${String(i + 1).padStart(4, '0')}`;
      const ref = { agentKey: spec.key, sessionKey: key };
      // Newest first: index 0 is the most recent session.
      const createdMs = nowMs - (i * 97 + r.int(60, 150)) * MINUTE_MS;
      const [shape, status] = sessionShape(spec.key, i);
      const parent = spec.key === 'infra_triage' && i < 4 ? parents[i % parents.length] : undefined;
      const session = agentSession(spec, i, r, { key, status, parent, createdMs });
      list.push(session);
      const log = new EventLog(r, key, createdMs);
      if (shape !== 'none') fillEvents(log, r, shape, spec.steps);
      events.set(`${spec.key}/${key}`, log.items);
      if (spec.key === 'release_manager') parents.push(ref);
      if (shape === 'showcase') refs.showcase = ref;
      if (shape === 'inFlight') refs.running ??= ref;
      if (shape === 'exchanges') refs.stopped ??= ref;
      if (shape === 'none') refs.unstarted ??= ref;
      if (shape === 'clientPending') refs.clientToolPending ??= ref;
      if (parent) refs.child ??= ref;
    }
    sessions.set(spec.key, list);
  }
  return { agents, sessions, events, fixtures: refs as AgentsFixtures };
}

/** Which kind of event history the i-th session of an agent gets, and its status. */
function sessionShape(agentKey: string, i: number): [Shape | 'none', AgentSessionStatus] {
  if (agentKey === 'customer_support' && i === 0) return ['showcase', 'running'];
  if (i % 7 === 3) return ['none', 'unstarted'];
  if (i % 5 === 1) return ['clientPending', 'running'];
  if (i % 6 === 2) return ['inFlight', 'running'];
  if (i % 9 === 4) return ['interrupted', 'stopped'];
  return ['exchanges', 'stopped'];
}

type AgentSpec = (typeof AGENT_SPECS)[number];

function agentSession(
  spec: AgentSpec,
  i: number,
  r: SeededRandom,
  at: { key: string; status: AgentSessionStatus; parent?: SessionRef; createdMs: number },
): AgentSession {
  const { key, status, parent, createdMs } = at;
  const started = status !== 'unstarted';
  return {
    key,
    agent_key: spec.key,
    name: `${spec.name} session ${i + 1}`,
    ...(r.bool(0.8) ? { description: r.pick(QUESTIONS) } : {}),
    metadata: {
      customer_id: String(r.int(10_000, 99_999)),
      priority: r.pick(['low', 'normal', 'high']),
      channel: r.pick(['web_chat', 'email', 'slack']),
    },
    current_step_name: started && r.bool(0.6) ? r.pick(spec.steps) : null,
    enabled: !(i === 5),
    status,
    ...(parent
      ? { created_by_agent_key: parent.agentKey, created_by_session_key: parent.sessionKey }
      : {}),
    ...(r.bool(0.5) ? { tti_minutes: r.pick([0, 60, 1440]) } : {}),
    created_at: new Date(createdMs).toISOString(),
    alias_key: spec.key === 'customer_support' && r.bool(0.3) ? 'support' : null,
    ...(r.bool(0.5) ? { secrets: { slack_user_token: '****', jira_api_key: '****' } } : {}),
    ...(started ? { session_context_usage: contextUsage(r) } : {}),
    ...(r.bool(0.7) ? { effective_compaction: compactionSettings(r) } : {}),
  };
}

function compactionSettings(r: SeededRandom): Record<string, unknown> {
  return {
    enabled: r.bool(0.8),
    threshold_percent: r.pick([50, 80, 95]),
    keep_recent_inputs: r.int(1, 3),
    ...(r.bool(0.5) ? { compaction_message: 'Earlier conversation was summarized.' } : {}),
    ...(r.bool(0.5) ? { tool_event_policy: r.pick(['keep', 'summarize', 'drop']) } : {}),
  };
}
