import { MINUTE_MS } from '../clock.ts';
import type { SeededRandom } from '../random.ts';
import type { ClosedloopSession } from './closedloopSessions.ts';
import type { DemoUser, People } from './people.ts';

export type InstructionState = 'pending' | 'acknowledged' | 'closedUnacknowledged';

/** A human instruction sent to a running session (what session_complete acknowledges). */
export interface PendingInstruction {
  readonly id: string;
  readonly sessionId: string;
  readonly text: string;
  readonly createdAtMs: number;
  readonly author: DemoUser;
  /** The agent has received the instruction (it may still not be acknowledged). */
  readonly processed: boolean;
  state: InstructionState;
  closedAtMs: number | null;
}

const TEXTS = [
  'Please also add a regression test for the empty-payload case.',
  'Do not touch the public API signatures; keep this change internal.',
  'Rebase on main before you finish, there was a conflicting migration.',
  'Stop after the investigation and write up what you found, no code changes.',
  'Use the staging credentials from the vault, not the production ones.',
  'Split the refactor into two commits so it is easier to review.',
];

function instructionId(rng: SeededRandom): string {
  let hex = '';
  for (let i = 0; i < 20; i++) hex += rng.int(0, 15).toString(16);
  return `instr_${hex}`;
}

export function buildInstructions(
  rng: SeededRandom,
  sessions: readonly ClosedloopSession[],
  people: People,
): PendingInstruction[] {
  const out: PendingInstruction[] = [];
  for (const session of sessions) {
    if (session.endedAtMs !== null) continue;
    const r = rng.fork(session.id);
    const count = session.awaitingInput ? r.int(2, 3) : r.bool(0.3) ? 1 : 0;
    for (let i = 0; i < count; i++) {
      out.push({
        id: instructionId(r),
        sessionId: session.id,
        text: r.pick(TEXTS),
        createdAtMs: session.lastActivityAtMs - r.int(1, 30) * MINUTE_MS,
        author: r.pick(people.users),
        processed: i === 0 ? true : r.bool(),
        state: 'pending',
        closedAtMs: null,
      });
    }
  }
  return out;
}
