import type { SeededRandom } from '../random.ts';
import type { ClosedloopSession } from './closedloopSessions.ts';

export type Availability =
  'available' | 'stale' | 'uploadPending' | 'uploadFailed' | 'permanentlyUnavailable' | 'missing';

export const ALL_AVAILABILITIES: readonly Availability[] = [
  'available',
  'stale',
  'uploadPending',
  'uploadFailed',
  'permanentlyUnavailable',
  'missing',
];

/** Only these states carry a signed URL (seed 002). */
export function hasUrl(availability: Availability): boolean {
  return availability === 'available' || availability === 'stale';
}

/** How one session's archived transcript files are generated and what state each is in. */
export interface TranscriptPlan {
  readonly format: 'claude-code' | 'codex' | 'none';
  /** Seed handed to the transcript generator. */
  readonly seed: number;
  readonly turns: number;
  readonly subagents: number;
  readonly compaction: boolean;
  readonly quirks: boolean;
  readonly legacyCodex: boolean;
  /** Served from a generated file on disk, size set by the server option. */
  large: boolean;
  main: Availability;
  permanentFailureReason: string | null;
  /** One entry per subagent file, in generator order. */
  subagentStates: Availability[];
}

const PERMANENT_REASONS = [
  'Transcript exceeded the 512 MB archive limit',
  'Source file was deleted before the upload completed',
];

function mainAvailability(session: ClosedloopSession, rng: SeededRandom): Availability {
  if (session.turnCount === 0) return 'missing';
  const r = rng.next();
  if (session.endedAtMs === null) {
    // A live run is archived periodically: the last copy is older than the run.
    return r < 0.6 ? 'stale' : r < 0.9 ? 'uploadPending' : 'available';
  }
  return r < 0.85
    ? 'available'
    : r < 0.9
      ? 'uploadFailed'
      : r < 0.95
        ? 'permanentlyUnavailable'
        : 'missing';
}

export function planTranscript(session: ClosedloopSession, rng: SeededRandom): TranscriptPlan {
  const format =
    session.harness === 'claude-code'
      ? 'claude-code'
      : session.harness === 'codex'
        ? 'codex'
        : 'none';
  const subagents = session.agentCount - 1;
  let main: Availability;
  let permanentFailureReason: string | null = null;
  if (format === 'none') {
    main = 'permanentlyUnavailable';
    permanentFailureReason = `Transcript capture is not supported for harness ${session.harness}`;
  } else {
    main = mainAvailability(session, rng);
    if (main === 'permanentlyUnavailable') permanentFailureReason = rng.pick(PERMANENT_REASONS);
  }
  const subagentStates = Array.from({ length: subagents }, (): Availability => {
    const r = rng.next();
    return r < 0.85 ? 'available' : r < 0.95 ? 'uploadPending' : 'missing';
  });
  return {
    format,
    seed: rng.int(1, 2 ** 31 - 1),
    turns: Math.max(2, Math.min(session.turnCount, 24)),
    subagents,
    compaction: session.turnCount > 40,
    quirks: rng.bool(0.3),
    // Codex rollouts before ~Sept 2025 had no envelope; the oldest demo rows use it.
    legacyCodex: format === 'codex' && rng.bool(0.15),
    large: false,
    main,
    permanentFailureReason,
    subagentStates,
  };
}

/** Subagent files are only listed while the run's main file is known to the archive. */
export function listsSubagents(plan: TranscriptPlan): boolean {
  return plan.main !== 'missing' && plan.main !== 'permanentlyUnavailable';
}
