import { HOUR_MS, MINUTE_MS } from '../clock.ts';
import type { SeededRandom } from '../random.ts';
import type { DemoUser, People } from './people.ts';

export type Harness = 'claude-code' | 'codex' | 'cursor' | 'gemini-cli';

/**
 * One Closedloop-style session as stored. `storedStatus` is the raw database value;
 * the status a client sees is derived from it at read time (see closedloopStatus.ts).
 */
export interface ClosedloopSession {
  readonly index: number;
  readonly id: string;
  readonly slug: string;
  readonly externalSessionId: string;
  readonly name: string;
  storedStatus: string;
  awaitingInput: boolean;
  readonly harness: Harness;
  readonly model: string;
  readonly repositoryFullName: string;
  readonly project: string;
  readonly baseBranch: string;
  readonly gitBranch: string;
  readonly cwd: string;
  readonly startedAtMs: number;
  lastActivityAtMs: number;
  endedAtMs: number | null;
  readonly estimatedCost: number;
  readonly billing: 'subscription' | 'api';
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  readonly turnCount: number;
  readonly agentCount: number;
  readonly toolUseCount: number;
  readonly errorCount: number;
  /** toolName → uses; sums to toolUseCount. */
  readonly toolUses: Readonly<Record<string, number>>;
  /** Subagent types this run spawned (length agentCount - 1). */
  readonly subagentTypes: readonly string[];
  readonly user: DemoUser;
}

/** What a row was generated to demonstrate; drives its timestamps and stored status. */
type Kind =
  | 'active'
  | 'awaiting'
  | 'storedWaiting'
  | 'stale'
  | 'storedStale'
  | 'inactive'
  | 'error'
  | 'completed'
  | 'abandoned'
  | 'pausedByAdmin'
  | 'pausedAwaiting'
  | 'idleActive'
  | 'idleInactive';

const KIND_COUNTS: readonly [Kind, number][] = [
  ['active', 22],
  ['awaiting', 8],
  ['storedWaiting', 2],
  ['stale', 10],
  ['storedStale', 1],
  ['inactive', 150],
  ['error', 16],
  ['completed', 4],
  ['abandoned', 3],
  ['pausedByAdmin', 1],
  ['pausedAwaiting', 1],
  ['idleActive', 3],
  ['idleInactive', 19],
];

export const CLOSEDLOOP_SESSION_COUNT = KIND_COUNTS.reduce((sum, [, n]) => sum + n, 0);

const REPOSITORIES: readonly [string, string][] = [
  ['acme/payments-api', 'Payments'],
  ['acme/web-dashboard', 'Dashboard'],
  ['acme/robot-firmware', 'Firmware'],
  ['acme/infra-terraform', 'Infrastructure'],
  ['acme/mobile-app', 'Mobile'],
  ['acme/data-pipeline', 'Analytics'],
  ['acme/docs-site', 'Docs'],
  ['acme/auth-service', 'Identity'],
];

const MODELS: Readonly<Record<Harness, readonly string[]>> = {
  'claude-code': ['claude-sonnet-4-5', 'claude-sonnet-4-5', 'claude-opus-4-1', 'claude-haiku-4-5'],
  codex: ['gpt-5-codex', 'gpt-5-codex', 'gpt-5'],
  cursor: ['claude-sonnet-4-5', 'gpt-5'],
  'gemini-cli': ['gemini-2.5-pro'],
};

// USD per million tokens: input, output, cache read, cache write.
const PRICES: Readonly<Record<string, readonly [number, number, number, number]>> = {
  'claude-sonnet-4-5': [3, 15, 0.3, 3.75],
  'claude-opus-4-1': [15, 75, 1.5, 18.75],
  'claude-haiku-4-5': [1, 5, 0.1, 1.25],
  'gpt-5-codex': [1.25, 10, 0.125, 0],
  'gpt-5': [1.25, 10, 0.125, 0],
  'gemini-2.5-pro': [1.25, 10, 0.31, 0],
};

const TOOLS: Readonly<Record<Harness, readonly string[]>> = {
  'claude-code': ['Read', 'Edit', 'Bash', 'Grep', 'Glob', 'Write', 'Task', 'TodoWrite', 'WebFetch'],
  codex: ['shell', 'apply_patch', 'update_plan', 'view_image'],
  cursor: ['read_file', 'edit_file', 'run_terminal_cmd', 'codebase_search'],
  'gemini-cli': ['read_file', 'replace', 'run_shell_command', 'google_web_search'],
};

const SUBAGENT_TYPES = ['general-purpose', 'Explore', 'code-reviewer', 'test-runner'];

const VERBS = [
  'Fix',
  'Add',
  'Refactor',
  'Investigate',
  'Speed up',
  'Document',
  'Remove',
  'Migrate',
];
const SUBJECTS = [
  'flaky retry in webhook handler',
  'pagination for the invoices endpoint',
  'OAuth token refresh race',
  'motor controller watchdog',
  'Terraform state drift alerts',
  'dark mode contrast in settings',
  'nightly ETL memory spike',
  'deprecated logging calls',
  'CSV export with unicode names',
  'rate limiter configuration',
  'broken links in API reference',
  'session cookie SameSite policy',
];

function expandKinds(rng: SeededRandom): Kind[] {
  const kinds: Kind[] = [];
  for (const [kind, count] of KIND_COUNTS) for (let i = 0; i < count; i++) kinds.push(kind);
  for (let i = kinds.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [kinds[i], kinds[j]] = [kinds[j]!, kinds[i]!];
  }
  return kinds;
}

function pickHarness(rng: SeededRandom): Harness {
  const r = rng.next();
  if (r < 0.55) return 'claude-code';
  if (r < 0.85) return 'codex';
  if (r < 0.93) return 'cursor';
  return 'gemini-cli';
}

function pickUser(rng: SeededRandom, people: People): DemoUser {
  // The viewer owns about a quarter of the rows so 'self' scope is never empty.
  return rng.bool(0.25) ? people.viewer : rng.pick(people.users);
}

interface Timing {
  startedAtMs: number;
  lastActivityAtMs: number;
  endedAtMs: number | null;
}

function timingFor(kind: Kind, nowMs: number, rng: SeededRandom): Timing {
  const open = (lastAgoMin: number, lastAgoMax: number): Timing => {
    const lastActivityAtMs = nowMs - rng.int(lastAgoMin, lastAgoMax) * MINUTE_MS;
    return {
      startedAtMs: lastActivityAtMs - rng.int(5, 360) * MINUTE_MS,
      lastActivityAtMs,
      endedAtMs: null,
    };
  };
  switch (kind) {
    case 'active':
    case 'idleActive':
      return open(0, 20);
    case 'awaiting':
    case 'storedWaiting':
    case 'pausedAwaiting':
      return open(1, 45);
    case 'stale':
    case 'storedStale':
      // Well past the one-hour staleness cutoff so the derivation is stable.
      return open(150, 3 * 24 * 60);
    case 'pausedByAdmin':
      return open(30, 600);
    default: {
      const endedAtMs = nowMs - rng.int(10, 45 * 24 * 60) * MINUTE_MS;
      const lastActivityAtMs = endedAtMs - rng.int(0, 90) * 1000;
      return {
        startedAtMs: lastActivityAtMs - rng.int(2, 240) * MINUTE_MS,
        lastActivityAtMs,
        endedAtMs,
      };
    }
  }
}

const STORED_STATUS: Readonly<Record<Kind, string>> = {
  active: 'active',
  awaiting: 'active',
  storedWaiting: 'waiting',
  stale: 'active',
  storedStale: 'stale',
  inactive: 'inactive',
  error: 'error',
  completed: 'completed',
  abandoned: 'abandoned',
  pausedByAdmin: 'paused_by_admin',
  pausedAwaiting: 'paused_by_admin',
  idleActive: 'active',
  idleInactive: 'inactive',
};

function splitUses(
  total: number,
  tools: readonly string[],
  rng: SeededRandom,
): Record<string, number> {
  const uses: Record<string, number> = {};
  for (let i = 0; i < total; i++) {
    // Skewed towards the first tools, like real runs (reads and edits dominate).
    const tool = tools[Math.min(tools.length - 1, Math.floor(rng.next() ** 2 * tools.length))]!;
    uses[tool] = (uses[tool] ?? 0) + 1;
  }
  return uses;
}

function round4(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}

export function buildClosedloopSessions(
  rng: SeededRandom,
  people: People,
  nowMs: number,
): ClosedloopSession[] {
  const kinds = expandKinds(rng.fork('kinds'));
  return kinds.map((kind, index) => {
    const r = rng.fork(`session:${index}`);
    const idle = kind === 'idleActive' || kind === 'idleInactive';
    const harness = pickHarness(r);
    const model = r.pick(MODELS[harness]);
    const [repositoryFullName, project] = r.pick(REPOSITORIES);
    const user = pickUser(r, people);
    const timing = timingFor(kind, nowMs, r);
    const turnCount = idle ? 0 : r.int(2, 60);
    const inputTokens = turnCount * r.int(800, 9_000);
    const outputTokens = turnCount * r.int(150, 2_500);
    const cacheReadTokens = harness === 'gemini-cli' ? 0 : turnCount * r.int(5_000, 60_000);
    const cacheWriteTokens = harness === 'claude-code' ? turnCount * r.int(500, 6_000) : 0;
    const [pIn, pOut, pRead, pWrite] = PRICES[model] ?? [3, 15, 0.3, 3.75];
    const estimatedCost = round4(
      (inputTokens * pIn +
        outputTokens * pOut +
        cacheReadTokens * pRead +
        cacheWriteTokens * pWrite) /
        1_000_000,
    );
    const subagentCount = harness === 'claude-code' && !idle && r.bool(0.35) ? r.int(1, 3) : 0;
    const subagentTypes = Array.from({ length: subagentCount }, () => r.pick(SUBAGENT_TYPES));
    const toolUseCount = idle ? 0 : Math.round(turnCount * (0.5 + r.next() * 2.5));
    const toolUses = splitUses(toolUseCount, TOOLS[harness], r);
    const errorCount = kind === 'error' ? r.int(1, 5) : idle ? 0 : r.bool(0.2) ? r.int(1, 2) : 0;
    const repoName = repositoryFullName.split('/')[1]!;
    const home = user.firstName ? user.firstName.toLowerCase() : 'ci';
    const subject = r.pick(SUBJECTS);
    return {
      index,
      id: r.uuid(),
      slug: `SES-${String(4100 + index)}`,
      externalSessionId: harness === 'cursor' ? `cur_${r.uuid().replace(/-/g, '')}` : r.uuid(),
      name: idle ? 'Untitled session' : `${r.pick(VERBS)} ${subject}`,
      storedStatus: STORED_STATUS[kind],
      awaitingInput: kind === 'awaiting' || kind === 'pausedAwaiting',
      harness,
      model,
      repositoryFullName,
      project,
      baseBranch: r.bool(0.8) ? 'main' : r.pick(['develop', 'release/2026.07']),
      gitBranch: `${home}/${subject.split(' ').slice(0, 3).join('-').toLowerCase()}`,
      cwd: `/home/${home}/src/${repoName}`,
      ...timing,
      estimatedCost,
      billing: harness === 'claude-code' && r.bool(0.6) ? 'subscription' : 'api',
      inputTokens,
      outputTokens,
      cacheReadTokens,
      cacheWriteTokens,
      turnCount,
      agentCount: 1 + subagentCount,
      toolUseCount,
      errorCount,
      toolUses,
      subagentTypes,
      user,
    };
  });
}

/** The display staleness cutoff: an open run silent for longer derives as 'stale'. */
export const STALE_AFTER_MS = HOUR_MS;
