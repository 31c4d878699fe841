import { MINUTE_MS } from '../clock.ts';
import type { SeededRandom } from '../random.ts';

export const ITENTIAL_STATUSES = [
  'PENDING',
  'RUNNING',
  'PAUSING',
  'PAUSED',
  'COMPLETE',
  'FAILED',
  'CANCELING',
  'CANCELED',
] as const;
export type ItentialStatus = (typeof ITENTIAL_STATUSES)[number];

export type ItentialEventType =
  'AGENT_REASONING' | 'TOOL_EXECUTION' | 'PENDING_INFERENCE' | 'SESSION_STATUS';

/** A raw platform event; `data` may be absent or null exactly as on the real platform. */
export interface ItentialEvent {
  readonly event_id: string;
  readonly sequence_number: number;
  readonly timestamp: string;
  readonly type: ItentialEventType;
  readonly data?: Readonly<Record<string, unknown>> | null;
}

export interface ItentialTurn {
  readonly sequence_number: number;
  readonly timestamp: string;
  readonly event_type: 'succeeded' | 'failed';
  readonly duration_ms: number;
  readonly token_usage: {
    readonly input_tokens: number;
    readonly output_tokens: number;
    readonly cache_read_tokens: number;
    readonly cache_creation_tokens: number;
    readonly total_tokens: number;
  };
  readonly error: string | null;
}

export type ManualTaskViewType =
  'ViewData' | 'ViewHTML' | 'InteractiveHTML' | 'RenderJsonSchema' | 'CustomWidget';

export interface ManualTask {
  readonly work_item_id: string;
  readonly session_id: string;
  readonly job_id: string;
  readonly title: string;
  readonly view_type: ManualTaskViewType;
  readonly created_at: string | null;
  readonly header: string;
  readonly message: string;
  /** Workflow-authored content: untrusted, may contain markup. */
  readonly body: string;
  readonly variables: Readonly<Record<string, unknown>>;
  readonly btn_success: string;
  readonly btn_failure: string;
  state: 'pending' | 'completed';
  finishState: 'success' | 'failure' | null;
  completedAtMs: number | null;
}

export interface ItentialSession {
  readonly session_id: string;
  readonly agent_name: string;
  readonly status: ItentialStatus;
  readonly startedAtMs: number;
  readonly endAtMs: number | null;
  readonly events: readonly ItentialEvent[];
  readonly turns: readonly ItentialTurn[];
  /** The manual-task lookup for this session errors (→ pending_manual_tasks null). */
  readonly manualTaskLookupFails: boolean;
}

export interface ItentialData {
  readonly sessions: readonly ItentialSession[];
  readonly manualTasks: readonly ManualTask[];
  readonly fixtures: ItentialFixtures;
}

/** Session ids chosen to demonstrate one behaviour each (for tests and demos). */
export interface ItentialFixtures {
  readonly runningWithTasks: Readonly<
    Record<'ViewData' | 'ViewHTML' | 'InteractiveHTML' | 'RenderJsonSchema', string>
  >;
  readonly runningWithTwoTasks: string;
  readonly runningLookupFails: string;
  readonly runningNoTasks: string;
  readonly runningUnknownViewType: string;
  readonly pausedWithTaskRecord: string;
  readonly completeTrailingToolUse: string;
  readonly completeNoEndTurn: string;
  readonly taskWithoutFailureButton: string;
}

const AGENTS = [
  'network-config-agent',
  'change-validator',
  'incident-triage',
  'inventory-sync',
  'firewall-auditor',
];

const STATUS_PLAN: readonly ItentialStatus[] = [
  ...Array<ItentialStatus>(8).fill('RUNNING'),
  ...Array<ItentialStatus>(2).fill('PENDING'),
  ...Array<ItentialStatus>(2).fill('PAUSING'),
  ...Array<ItentialStatus>(3).fill('PAUSED'),
  ...Array<ItentialStatus>(15).fill('COMPLETE'),
  ...Array<ItentialStatus>(5).fill('FAILED'),
  ...Array<ItentialStatus>(2).fill('CANCELING'),
  ...Array<ItentialStatus>(3).fill('CANCELED'),
];

const TOOL_NAMES = [
  'get_device_config',
  'run_command_template',
  'query_inventory',
  'render_jinja2',
  'start_workflow',
];
const DEVICES = ['core-sw-01', 'edge-rtr-02', 'dc1-fw-03', 'branch-ap-17', 'lab-sw-09'];

function hex24(rng: SeededRandom): string {
  let s = '';
  for (let i = 0; i < 24; i++) s += rng.int(0, 15).toString(16);
  return s;
}

interface EventBuilder {
  events: ItentialEvent[];
  turns: ItentialTurn[];
  atMs: number;
}

function push(
  b: EventBuilder,
  rng: SeededRandom,
  type: ItentialEventType,
  data?: Record<string, unknown> | null,
): void {
  b.atMs += rng.int(200, 20_000);
  const event: ItentialEvent = {
    event_id: hex24(rng),
    sequence_number: b.events.length + 1,
    timestamp: new Date(b.atMs).toISOString(),
    type,
    ...(data === undefined ? {} : { data }),
  };
  b.events.push(event);
}

function reasoning(
  b: EventBuilder,
  rng: SeededRandom,
  stopReason: string | undefined,
  text: string,
): void {
  const duration = rng.int(400, 9_000);
  push(b, rng, 'AGENT_REASONING', stopReason === undefined ? {} : { stopReason, text });
  const input = rng.int(900, 12_000);
  const output = rng.int(40, 1_500);
  const cacheRead = rng.int(0, 30_000);
  b.turns.push({
    sequence_number: b.events.length,
    timestamp: b.events[b.events.length - 1]!.timestamp,
    event_type: 'succeeded',
    duration_ms: duration,
    token_usage: {
      input_tokens: input,
      output_tokens: output,
      cache_read_tokens: cacheRead,
      cache_creation_tokens: 0,
      total_tokens: input + output,
    },
    error: null,
  });
}

function failedTurn(b: EventBuilder, rng: SeededRandom): void {
  push(b, rng, 'PENDING_INFERENCE', null);
  b.turns.push({
    sequence_number: b.events.length,
    timestamp: b.events[b.events.length - 1]!.timestamp,
    event_type: 'failed',
    duration_ms: rng.int(100, 30_000),
    token_usage: {
      input_tokens: 0,
      output_tokens: 0,
      cache_read_tokens: 0,
      cache_creation_tokens: 0,
      total_tokens: 0,
    },
    error: rng.pick([
      'Model provider returned 529 (overloaded)',
      'Inference timed out after 30000 ms',
    ]),
  });
}

function buildEvents(
  status: ItentialStatus,
  startedAtMs: number,
  rng: SeededRandom,
  variant: 'normal' | 'trailingToolUse' | 'noEndTurn',
): EventBuilder {
  const b: EventBuilder = { events: [], turns: [], atMs: startedAtMs };
  const device = rng.pick(DEVICES);
  push(b, rng, 'SESSION_STATUS', { status: 'RUNNING' });
  if (status === 'PENDING') return b;
  const rounds = rng.int(2, 6);
  for (let round = 0; round < rounds; round++) {
    // Platforms sometimes emit an inference marker with no payload at all.
    push(b, rng, 'PENDING_INFERENCE', rng.bool() ? null : undefined);
    const tool = rng.pick(TOOL_NAMES);
    if (rng.bool(0.15) || (variant === 'trailingToolUse' && round === 0)) {
      // Reasoning events without a payload, in each spelling the platform uses.
      push(b, rng, 'AGENT_REASONING', undefined);
      push(b, rng, 'AGENT_REASONING', null);
      reasoning(b, rng, undefined, '');
    }
    reasoning(b, rng, 'tool_use', `Calling ${tool} for ${device} (step ${round + 1}).`);
    push(b, rng, 'TOOL_EXECUTION', {
      tool,
      status: 'success',
      result: { device, lines: rng.int(3, 400) },
    });
    if (variant !== 'noEndTurn' && rng.bool(0.4)) {
      reasoning(b, rng, 'end_turn', `Checkpoint ${round + 1}: ${device} responded as expected.`);
    }
  }
  const terminal = status === 'COMPLETE' || status === 'FAILED' || status === 'CANCELED';
  if (status === 'COMPLETE' && variant !== 'noEndTurn') {
    reasoning(
      b,
      rng,
      'end_turn',
      `Finished: configuration for ${device} validated, ${rng.int(1, 9)} changes staged and verified.`,
    );
    if (variant === 'trailingToolUse')
      reasoning(b, rng, 'tool_use', 'Preparing an optional follow-up check.');
  }
  if (status === 'FAILED') failedTurn(b, rng);
  if (status === 'RUNNING' || status === 'PAUSING') push(b, rng, 'PENDING_INFERENCE', null);
  if (rng.bool(0.2))
    reasoning(b, rng, 'max_tokens', 'The response was cut off at the token limit.');
  if (terminal || status === 'PAUSED' || status === 'CANCELING') {
    push(b, rng, 'SESSION_STATUS', { status });
  }
  return b;
}

const TASK_SPECS: Readonly<
  Record<ManualTaskViewType, { title: string; body: (device: string) => string }>
> = {
  ViewData: {
    title: 'Review proposed VLAN changes',
    body: (d) =>
      JSON.stringify({ device: d, add: ['vlan 210', 'vlan 211'], remove: ['vlan 99'] }, null, 2),
  },
  ViewHTML: {
    title: 'Approve maintenance window',
    body: (d) =>
      `<h2>Maintenance on ${d}</h2><p>Window: 02:00-04:00 UTC</p>` +
      `<script>alert("workflow-authored")</script><img src=x onerror="alert(1)">`,
  },
  InteractiveHTML: {
    title: 'Confirm firewall rule ordering',
    body: (d) =>
      `<form><label>Rule order for ${d}</label><select><option>allow-first</option></select>` +
      `<button onclick="fetch('https://evil.example/x')">Submit</button></form>`,
  },
  RenderJsonSchema: {
    title: 'Provide rollback contact details',
    body: () =>
      JSON.stringify({
        type: 'object',
        required: ['contact'],
        properties: {
          contact: { type: 'string', title: 'On-call contact' },
          notes: { type: 'string' },
        },
      }),
  },
  CustomWidget: {
    title: 'Acknowledge topology diagram',
    body: (d) => `[widget:topology device=${d}]`,
  },
};

function makeTask(
  rng: SeededRandom,
  session: ItentialSession,
  viewType: ManualTaskViewType,
  options: { createdAt?: string | null; btnFailure?: string } = {},
): ManualTask {
  const device = rng.pick(DEVICES);
  const spec = TASK_SPECS[viewType];
  const createdAt =
    options.createdAt === undefined
      ? new Date(session.startedAtMs + rng.int(1, 30) * MINUTE_MS).toISOString()
      : options.createdAt;
  return {
    work_item_id: hex24(rng),
    session_id: session.session_id,
    job_id: hex24(rng),
    title: spec.title,
    view_type: viewType,
    created_at: createdAt,
    header: `${spec.title} — ${device}`,
    message: `The workflow is paused until someone reviews the change for ${device}.`,
    body: spec.body(device),
    variables: {
      device,
      change_id: `CHG-${rng.int(1000, 9999)}`,
      requested_by: 'network-automation',
    },
    btn_success: 'Approve',
    btn_failure: options.btnFailure ?? 'Reject',
    state: 'pending',
    finishState: null,
    completedAtMs: null,
  };
}

export function buildItential(rng: SeededRandom, nowMs: number): ItentialData {
  const order = STATUS_PLAN.map((status, i) => ({ status, i }));
  const running: ItentialSession[] = [];
  const complete: ItentialSession[] = [];
  const paused: ItentialSession[] = [];
  const sessions = order.map(({ status, i }): ItentialSession => {
    const r = rng.fork(`itential:${i}`);
    const open =
      status === 'RUNNING' || status === 'PENDING' || status === 'PAUSING' || status === 'PAUSED';
    const startedAtMs = nowMs - (open ? r.int(2, 180) : r.int(200, 30 * 24 * 60)) * MINUTE_MS;
    const completeIndex = complete.length;
    const variant =
      status === 'COMPLETE' && completeIndex === 0
        ? 'trailingToolUse'
        : status === 'COMPLETE' && completeIndex === 1
          ? 'noEndTurn'
          : 'normal';
    const built = buildEvents(status, startedAtMs, r, variant);
    const runningIndex = running.length;
    const session: ItentialSession = {
      session_id: hex24(r),
      agent_name: AGENTS[i % AGENTS.length]!,
      status,
      startedAtMs,
      endAtMs:
        status === 'COMPLETE' || status === 'FAILED' || status === 'CANCELED'
          ? built.atMs + 1000
          : null,
      events: built.events,
      turns: built.turns,
      manualTaskLookupFails: status === 'RUNNING' && runningIndex === 5,
    };
    if (status === 'RUNNING') running.push(session);
    if (status === 'COMPLETE') complete.push(session);
    if (status === 'PAUSED') paused.push(session);
    return session;
  });

  const tr = rng.fork('manual-tasks');
  const at = (list: ItentialSession[], index: number) => list[index]!;
  const tasks: ManualTask[] = [
    makeTask(tr, at(running, 0), 'ViewData'),
    makeTask(tr, at(running, 1), 'ViewHTML'),
    makeTask(tr, at(running, 2), 'InteractiveHTML'),
    makeTask(tr, at(running, 3), 'RenderJsonSchema'),
    makeTask(tr, at(running, 4), 'ViewData', { btnFailure: '' }),
    makeTask(tr, at(running, 4), 'ViewHTML'),
    // A task on the failing-lookup session: it exists, the lookup just cannot see it.
    makeTask(tr, at(running, 5), 'ViewData'),
    makeTask(tr, at(running, 7), 'CustomWidget', { createdAt: null }),
    makeTask(tr, at(paused, 0), 'ViewData'),
  ];
  return {
    sessions,
    manualTasks: tasks,
    fixtures: {
      runningWithTasks: {
        ViewData: at(running, 0).session_id,
        ViewHTML: at(running, 1).session_id,
        InteractiveHTML: at(running, 2).session_id,
        RenderJsonSchema: at(running, 3).session_id,
      },
      runningWithTwoTasks: at(running, 4).session_id,
      runningLookupFails: at(running, 5).session_id,
      runningNoTasks: at(running, 6).session_id,
      runningUnknownViewType: at(running, 7).session_id,
      pausedWithTaskRecord: at(paused, 0).session_id,
      completeTrailingToolUse: at(complete, 0).session_id,
      completeNoEndTurn: at(complete, 1).session_id,
      taskWithoutFailureButton: tasks[4]!.work_item_id,
    },
  };
}
