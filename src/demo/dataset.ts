import { buildAgents, type AgentsData } from './data/agents.ts';
import { buildClosedloopSessions, type ClosedloopSession } from './data/closedloopSessions.ts';
import { buildInstructions, type PendingInstruction } from './data/instructions.ts';
import { buildItential, type ItentialData } from './data/itential.ts';
import { buildPeople, type People } from './data/people.ts';
import {
  ALL_AVAILABILITIES,
  planTranscript,
  type Availability,
  type TranscriptPlan,
} from './data/transcriptPlan.ts';
import { SeededRandom } from './random.ts';

export interface DatasetOptions {
  readonly seed: number;
  /** The instant the data is laid out around. */
  readonly now: Date;
}

/** Closedloop session ids chosen to demonstrate one behaviour each. */
export interface ClosedloopFixtures {
  readonly largeTranscript: string;
  readonly manyComments: string;
  readonly mixedSubagentFiles: string;
  /** A session whose main transcript file is in each availability state. */
  readonly mainAvailability: Readonly<Record<Availability, string>>;
  /** Stored with a status the server does not recognise, yet surfaces as 'waiting'. */
  readonly unrecognisedButWaiting: string;
  readonly withPendingInstructions: string;
  readonly openWithoutInstructions: string;
  /** A finished Claude Code session whose agent changes three files (the Changes view). */
  readonly editsThreeFiles: string;
  /** A team the demo viewer belongs to (for viewerScope "team"). */
  readonly viewerTeamId: string;
}

export interface ClosedloopData {
  readonly sessions: readonly ClosedloopSession[];
  readonly byId: ReadonlyMap<string, ClosedloopSession>;
  readonly transcripts: ReadonlyMap<string, TranscriptPlan>;
  /** Number of comment threads to generate (lazily) per session id. */
  readonly commentCounts: ReadonlyMap<string, number>;
  readonly instructions: readonly PendingInstruction[];
  readonly fixtures: ClosedloopFixtures;
}

export interface Dataset {
  readonly seed: number;
  readonly nowMs: number;
  readonly people: People;
  readonly closedloop: ClosedloopData;
  readonly itential: ItentialData;
  readonly agents: AgentsData;
}

export const MANY_COMMENTS_COUNT = 60;

function isEndedClaude(s: ClosedloopSession): boolean {
  return s.harness === 'claude-code' && s.endedAtMs !== null && s.turnCount > 0;
}

/**
 * Picks the fixture sessions and forces their transcript plans so that every
 * behaviour the tests rely on exists for any seed, not just for lucky ones. One function
 * because the order of the picks matters: the rarest rows are taken first.
 */
function assignFixtures(
  people: People,
  sessions: readonly ClosedloopSession[],
  plans: Map<string, TranscriptPlan>,
  instructions: readonly PendingInstruction[],
): ClosedloopFixtures {
  const used = new Set<string>();
  const take = (predicate: (s: ClosedloopSession) => boolean): ClosedloopSession => {
    const found = sessions.find((s) => !used.has(s.id) && predicate(s));
    if (!found) throw new Error('demo data set has no session for a required fixture');
    used.add(found.id);
    return found;
  };
  const plan = (s: ClosedloopSession) => plans.get(s.id)!;

  // The rarest rows first, so a broader fixture cannot take them.
  const unrecognisedButWaiting = take(
    (s) => s.storedStatus === 'paused_by_admin' && s.awaitingInput,
  );
  const large = take(isEndedClaude);
  Object.assign(plan(large), {
    large: true,
    main: 'available',
    permanentFailureReason: null,
    subagentStates: [],
  });

  const many = take((s) => isEndedClaude(s) && s.agentCount > 1);
  Object.assign(plan(many), { main: 'available', permanentFailureReason: null });

  const mixed = take((s) => isEndedClaude(s) && s.agentCount >= 3);
  const mixedStates: Availability[] = ['available', 'uploadPending', 'missing'];
  Object.assign(plan(mixed), {
    main: 'available',
    permanentFailureReason: null,
    subagentStates: plan(mixed).subagentStates.map((_, i) => mixedStates[i % mixedStates.length]!),
  });

  const mainAvailability = {} as Record<Availability, string>;
  for (const state of ALL_AVAILABILITIES) {
    const openState = state === 'stale' || state === 'uploadPending';
    const session = take(
      (s) => s.harness === 'claude-code' && s.turnCount > 0 && (s.endedAtMs === null) === openState,
    );
    Object.assign(plan(session), {
      main: state,
      permanentFailureReason:
        state === 'permanentlyUnavailable' ? 'Transcript exceeded the 512 MB archive limit' : null,
    });
    mainAvailability[state] = session.id;
  }

  const pendingBySession = new Map<string, number>();
  for (const i of instructions)
    pendingBySession.set(i.sessionId, (pendingBySession.get(i.sessionId) ?? 0) + 1);
  const withPending = take((s) => (pendingBySession.get(s.id) ?? 0) >= 2);
  const openWithout = take(
    (s) =>
      s.endedAtMs === null &&
      s.storedStatus === 'active' &&
      !s.awaitingInput &&
      !pendingBySession.has(s.id),
  );

  // Last, so the fixtures above keep the sessions they had.
  const threeFiles = take(
    (s) => isEndedClaude(s) && s.turnCount >= 2 && s.agentCount <= 1 && !plan(s).large,
  );
  Object.assign(plan(threeFiles), {
    main: 'available',
    permanentFailureReason: null,
    quirks: false,
  });

  return {
    largeTranscript: large.id,
    manyComments: many.id,
    mixedSubagentFiles: mixed.id,
    mainAvailability,
    unrecognisedButWaiting: unrecognisedButWaiting.id,
    withPendingInstructions: withPending.id,
    openWithoutInstructions: openWithout.id,
    editsThreeFiles: threeFiles.id,
    viewerTeamId: people.viewer.teamIds[0]!,
  };
}

/** Builds the whole demo data set; the same seed and `now` always give the same data. */
export function buildDataset(options: DatasetOptions): Dataset {
  const root = new SeededRandom(options.seed);
  const nowMs = options.now.getTime();
  const people = buildPeople(root.fork('people'));
  const sessions = buildClosedloopSessions(root.fork('closedloop'), people, nowMs);
  const planRng = root.fork('transcripts');
  const plans = new Map(sessions.map((s) => [s.id, planTranscript(s, planRng.fork(s.id))]));
  const instructions = buildInstructions(root.fork('instructions'), sessions, people);
  const fixtures = assignFixtures(people, sessions, plans, instructions);

  const commentRng = root.fork('comment-counts');
  const commentCounts = new Map<string, number>();
  for (const s of sessions) {
    const p = plans.get(s.id)!;
    if (p.large || (p.main !== 'available' && p.main !== 'stale')) continue;
    if (s.id === fixtures.manyComments) commentCounts.set(s.id, MANY_COMMENTS_COUNT);
    else if (commentRng.bool(0.25)) commentCounts.set(s.id, commentRng.int(1, 6));
  }

  return {
    seed: options.seed,
    nowMs,
    people,
    closedloop: {
      sessions,
      byId: new Map(sessions.map((s) => [s.id, s])),
      transcripts: plans,
      commentCounts,
      instructions,
      fixtures,
    },
    itential: buildItential(root.fork('itential'), nowMs),
    agents: buildAgents(root.fork('agents'), nowMs),
  };
}
