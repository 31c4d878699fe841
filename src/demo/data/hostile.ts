/**
 * The hostile data mode: the same data set as for the seed, with an injection payload
 * (hostilePayloads.ts) in every text field the backend serves. Which payload lands where
 * depends only on the seed, the field and the record, so tests know what to expect.
 *
 * Fields set up front: session names, slugs, harnesses, models, repositories, projects,
 * branches; users and teams; analytics dimensions (tool names, agent types); instruction
 * texts; transcript failure reasons; platform agent names, reasoning texts, tool names and
 * results, turn errors and every text of a manual task; agents-API agents, sessions,
 * metadata and every text of every event. Fields made on first use (transcripts and
 * comments are generated lazily) take theirs from `keyed`, which depends on a stable key
 * and not on the order of requests: transcript text and tool input/output/paths, comment
 * bodies and replies. Some detail requests answer with an error whose message is a
 * payload (`errorFor`).
 */
import type { Dataset } from '../dataset.ts';
import { SeededRandom } from '../random.ts';
import type { AgentEvent, AgentRecord, AgentSession } from './agents.ts';
import type { ClosedloopSession } from './closedloopSessions.ts';
import type { ItentialEvent, ItentialSession, ManualTask } from './itential.ts';
import type { DemoTeam, DemoUser } from './people.ts';
import { DEFAULT_CANARY_URL, hostilePayloads } from './hostilePayloads.ts';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Fields that may carry the 1 MB payload; elsewhere its turn goes to the next payload. */
const HUGE_FIELDS = new Set([
  'session.name',
  'instruction.text',
  'comment.body',
  'manualTask.body',
  'rest.event.content',
  'itential.reasoning',
]);

/** Detail requests that fail, for about one record in ERROR_EVERY, with a payload as message. */
export type HostileErrorKind =
  'comments' | 'transcript' | 'describe_session' | 'describe_manual_task' | 'events';
const ERROR_EVERY = 7;

/** Turns per hostile transcript (the payloads, not the length, are the point). */
const HOSTILE_TRANSCRIPT_TURNS = 6;

/** Longest payload in a transcript text, except in the one that carries the 1 MB payload. */
export const TRANSCRIPT_PAYLOAD_MAX = 4096;

/** Extra users (beyond the eight of the normal data set) so names vary across rows. */
const EXTRA_USERS = 32;

function fnv(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

export interface HostileReport {
  readonly canaryUrl: string;
  readonly payloads: readonly string[];
  /** Field name → distinct payload indexes placed in it so far (lazy fields grow on use). */
  placements(): Record<string, number>;
}

/** Picks payloads for fields, deterministically, and remembers where they went. */
export class HostileCorpus implements HostileReport {
  readonly canaryUrl: string;
  readonly payloads: readonly string[];
  private readonly seed: number;
  private readonly placed = new Map<string, Set<number>>();

  constructor(seed: number, canaryUrl: string = DEFAULT_CANARY_URL) {
    this.seed = seed;
    this.canaryUrl = canaryUrl;
    this.payloads = hostilePayloads(canaryUrl);
  }

  /** The payload for record `index` of `field`: consecutive records walk the corpus. */
  at(field: string, index: number): string {
    return this.take(field, fnv(`${this.seed}|${field}`) + index);
  }

  /**
   * The payload for a record known by a stable key (lazily generated data); `maxLength`
   * passes over the longer payloads (to the next one short enough).
   */
  keyed(field: string, key: string, maxLength = Infinity): string {
    return this.take(field, fnv(`${this.seed}|${field}|${key}`), maxLength);
  }

  /** The payload a canary-aware test should expect in an avatar or other URL-only field. */
  canary(what: string): string {
    return `${this.canaryUrl.replace(/\/+$/, '')}/leak?${what}`;
  }

  /** A payload as the error message of this request, for about one record in seven. */
  errorFor(kind: HostileErrorKind, id: string): string | undefined {
    if (fnv(`${this.seed}|error|${kind}|${id}`) % ERROR_EVERY !== 0) return undefined;
    return this.keyed(`error.${kind}`, id);
  }

  placements(): Record<string, number> {
    return Object.fromEntries([...this.placed].map(([field, set]) => [field, set.size]));
  }

  private take(field: string, n: number, maxLength = Infinity): string {
    let index = n % this.payloads.length;
    if (index === 0 && !HUGE_FIELDS.has(field)) index = 1;
    while (this.payloads[index]!.length > maxLength) index = (index + 1) % this.payloads.length;
    let set = this.placed.get(field);
    if (!set) this.placed.set(field, (set = new Set()));
    set.add(index);
    return this.payloads[index]!;
  }
}

function hostileUser(corpus: HostileCorpus, user: DemoUser, i: number): DemoUser {
  const u = user as Mutable<DemoUser>;
  // The service account keeps its null names (the e-mail stands in for them).
  if (u.firstName !== null || i >= 8) {
    u.firstName = corpus.at('user.firstName', i);
    u.lastName = corpus.at('user.lastName', i);
  }
  u.email = corpus.at('user.email', i);
  u.avatarUrl = corpus.canary(`avatar=${i}`);
  return u;
}

function closedloop(corpus: HostileCorpus, dataset: Dataset): void {
  const { people } = dataset;
  const users = people.users as DemoUser[];
  const rng = new SeededRandom(dataset.seed).fork('hostile-users');
  for (let i = 0; i < EXTRA_USERS; i++) {
    users.push({
      id: rng.uuid(),
      email: '',
      firstName: null,
      lastName: null,
      avatarUrl: null,
      teamIds: [rng.pick(people.teams).id],
    });
  }
  users.forEach((user, i) => hostileUser(corpus, user, i));
  (people.teams as DemoTeam[]).forEach((team, i) => {
    (team as Mutable<DemoTeam>).name = corpus.at('team.name', i);
  });
  (people.organization as Mutable<typeof people.organization>).name = corpus.at('org.name', 0);

  dataset.closedloop.sessions.forEach((s, i) => {
    const session = s as Mutable<ClosedloopSession>;
    session.name = corpus.at('session.name', i);
    session.slug = corpus.at('session.slug', i);
    session.harness = corpus.at('session.harness', i) as ClosedloopSession['harness'];
    session.model = corpus.at('session.model', i);
    session.repositoryFullName = corpus.at('session.repository', i);
    session.project = corpus.at('session.project', i);
    session.baseBranch = corpus.at('session.baseBranch', i);
    // The viewer keeps the rows it owns ('self' scope); the others spread over every user.
    if (session.user.id !== people.viewer.id) session.user = users[i % users.length]!;
    session.toolUses = Object.fromEntries(
      Object.entries(session.toolUses).map(([tool, n]) => [
        corpus.keyed('analytics.toolName', tool),
        n,
      ]),
    );
    session.subagentTypes = session.subagentTypes.map((t) =>
      corpus.keyed('analytics.agentType', t),
    );
    const plan = dataset.closedloop.transcripts.get(session.id);
    if (plan) {
      // Every transcript is generated in memory, so every one carries payloads; a few
      // turns show every kind of line, and keep the downloads of every session cheap.
      plan.large = false;
      (plan as Mutable<typeof plan>).turns = Math.min(plan.turns, HOSTILE_TRANSCRIPT_TURNS);
      if (plan.permanentFailureReason !== null)
        plan.permanentFailureReason = corpus.at('transcript.permanentFailureReason', i);
    }
  });

  dataset.closedloop.instructions.forEach((instruction, i) => {
    const mutable = instruction as Mutable<typeof instruction>;
    mutable.text = corpus.at('instruction.text', i);
    mutable.author = users[(i * 7) % users.length]!;
  });
}

function itential(corpus: HostileCorpus, dataset: Dataset): void {
  let reasoning = 0;
  let tools = 0;
  let errors = 0;
  dataset.itential.sessions.forEach((s, i) => {
    const session = s as Mutable<ItentialSession>;
    session.agent_name = corpus.at('itential.agentName', i);
    session.events = session.events.map((event): ItentialEvent => {
      const data = event.data;
      if (!data) return event;
      if (event.type === 'AGENT_REASONING' && typeof data['text'] === 'string') {
        return { ...event, data: { ...data, text: corpus.at('itential.reasoning', reasoning++) } };
      }
      if (event.type === 'TOOL_EXECUTION') {
        const n = tools++;
        return {
          ...event,
          data: {
            ...data,
            tool: corpus.at('itential.toolName', n),
            result: {
              device: corpus.at('itential.toolResult', n),
              [corpus.at('itential.toolResultKey', n)]: corpus.at('itential.toolResult', n + 1),
            },
          },
        };
      }
      return event;
    });
    session.turns = session.turns.map((turn) =>
      turn.error === null ? turn : { ...turn, error: corpus.at('itential.turnError', errors++) },
    );
  });
  dataset.itential.manualTasks.forEach((t, i) => {
    const task = t as Mutable<ManualTask>;
    task.title = corpus.at('manualTask.title', i);
    task.header = corpus.at('manualTask.header', i);
    task.message = corpus.at('manualTask.message', i);
    task.body = corpus.at('manualTask.body', i);
    task.variables = {
      device: corpus.at('manualTask.variable', i),
      [corpus.at('manualTask.variableName', i)]: corpus.at('manualTask.variable', i + 1),
      nested: {
        [corpus.at('manualTask.variableName', i + 1)]: [corpus.at('manualTask.variable', i + 2)],
      },
    };
    task.btn_success = corpus.at('manualTask.button', 2 * i);
    // An empty failure button means "success only" (a fixture): it stays empty.
    if (task.btn_failure !== '') task.btn_failure = corpus.at('manualTask.button', 2 * i + 1);
  });
}

/** Event fields that are ids, times or types: kept, as the client pairs and orders by them. */
const EVENT_KEEP = new Set([
  'id',
  'session_key',
  'created_at',
  'type',
  'tool_call_id',
  'artifact_key',
  'mime_type',
  'size_bytes',
]);

function hostileValue(
  corpus: HostileCorpus,
  value: unknown,
  key: string,
  next: (field: string) => string,
): unknown {
  if (typeof value === 'string') return EVENT_KEEP.has(key) ? value : next(key);
  if (Array.isArray(value)) return value.map((v) => hostileValue(corpus, v, key, next));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, hostileValue(corpus, v, k, next)]),
    );
  }
  return value;
}

function agents(corpus: HostileCorpus, dataset: Dataset): void {
  const data = dataset.agents;
  data.agents.forEach((a, i) => {
    const agent = a as Mutable<AgentRecord>;
    agent.name = corpus.at('rest.agent.name', i);
    agent.description = corpus.at('rest.agent.description', i);
    agent.first_step_name = corpus.at('rest.agent.step', i);
    agent.metadata = { owner: corpus.at('rest.agent.metadata', i) };
  });
  let n = 0;
  for (const sessions of data.sessions.values()) {
    for (const s of sessions) {
      const i = n++;
      const session = s as Mutable<AgentSession>;
      session.name = corpus.at('rest.session.name', i);
      if (session.description !== undefined)
        session.description = corpus.at('rest.session.description', i);
      session.metadata = Object.fromEntries(
        Object.keys(session.metadata).map((key, k) => [
          key,
          corpus.at('rest.session.metadata', 3 * i + k),
        ]),
      );
      if (session.current_step_name !== null)
        session.current_step_name = corpus.at('rest.session.step', i);
    }
  }
  const counters = new Map<string, number>();
  const next = (key: string) => {
    const field = `rest.event.${key}`;
    const count = counters.get(field) ?? 0;
    counters.set(field, count + 1);
    return corpus.at(field, count);
  };
  for (const stored of data.events.values()) {
    stored.forEach((item, k) => {
      const { id, session_key, created_at, type, ...fields } = item.event;
      const event: AgentEvent = {
        id,
        session_key,
        created_at,
        type,
        ...(hostileValue(corpus, fields, '', next) as Record<string, unknown>),
      };
      stored[k] = { ...item, event };
    });
  }
}

/** Records of the hostile data set that tests look for. */
export interface HostileFixtures {
  /** The session whose main transcript starts with the 1 MB payload. */
  readonly hugeTranscript: string;
  /** The session named with the 1 MB payload, when the seed's walk gives it one. */
  readonly hugeName: string | undefined;
}

/** Puts a payload in every text field of the data set (in place); see the module comment. */
export function makeHostile(dataset: Dataset, corpus: HostileCorpus): HostileFixtures {
  closedloop(corpus, dataset);
  itential(corpus, dataset);
  agents(corpus, dataset);
  const { sessions, transcripts, fixtures } = dataset.closedloop;
  const huge = corpus.payloads[0];
  const withTranscript = sessions.find(
    (s) =>
      s.id !== fixtures.manyComments &&
      transcripts.get(s.id)?.format !== 'none' &&
      transcripts.get(s.id)?.main === 'available',
  );
  if (!withTranscript) throw new Error('hostile data set: no session with a transcript');
  return {
    hugeTranscript: withTranscript.id,
    hugeName: sessions.find((s) => s.name === huge)?.id,
  };
}
