/**
 * A second corpus of local transcripts, shaped like a heavy user's machine rather than like
 * localCorpus.ts: many files of modest size over months, several projects, Claude Code
 * 1.0.x / 2.0.x / 2.1.x files (2.1.11–2.1.29 write only stream-start output counts),
 * subagent files, pasted screenshots and Read of images as base64 image blocks, tool
 * outputs of 100 KB–2 MB on one line, and a Codex share spread over the pre-envelope
 * layout, 0.4x and 0.5x rollouts (one token_count per request, `info: null` first,
 * `resets_in_seconds` rate limits and `sandbox_policy.mode` in 0.4x) and current ones.
 *
 * The sessions come from the demo transcript generators, each line then reshaped as the
 * version it stands for wrote it; only fields those formats have are written (see
 * /work/shared/notes/backends-and-formats.md and test/fixtures/real). Its own seed and its
 * own mix of shapes: it is the bench's check that our scanner is not tuned to one corpus.
 *
 * The expected totals come from localCorpus.ts's referenceTotals(): every line
 * JSON.parsed, the de-duplication rules applied literally.
 */
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SeededRandom } from '../../src/demo/random.ts';
import {
  generateClaudeCodeTranscript,
  generateCodexTranscript,
} from '../../src/demo/transcripts/index.ts';
import {
  referenceTotals,
  writeCorpusFile,
  type CorpusFile,
  type LocalCorpus,
} from './localCorpus.ts';

export interface HeavyUserCorpusOptions {
  /**
   * About this many bytes in total (the last session may go a little over; a small target
   * still gets one session of every version and layout).
   */
  targetBytes: number;
  /** Default 1847 (localCorpus uses 7 and the bench 2026). */
  seed?: number;
  /** Share of the bytes in Codex rollouts (default 0.15). */
  codexShare?: number;
}

/** The shapes written, counted, so a test can check that each one is present. */
export interface HeavyUserShapes {
  /** Claude Code session and subagent files by the version their lines carry. */
  claudeVersions: Record<string, number>;
  /** Codex rollouts by layout: legacy, 0.4x, 0.5x, current. */
  codexVariants: Record<string, number>;
  subagentFiles: number;
  /** Pasted screenshots (user prompts) and images read with the Read tool. */
  pastedImages: number;
  readImages: number;
  /** Tool outputs of 100 KB or more on one line (Claude Code Bash and Codex shell). */
  largeOutputs: number;
  projects: number;
  /** First and last UTC day of the sessions. */
  firstDay: string;
  lastDay: string;
}

export interface HeavyUserCorpus extends LocalCorpus {
  shapes: HeavyUserShapes;
}

type Obj = Record<string, unknown>;

const DAY = 86_400_000;
const KB = 1024;
/** Sessions start between these days: about eight months of history. */
const FIRST_MS = Date.parse('2025-06-02T00:00:00.000Z');
const LAST_MS = Date.parse('2026-01-30T00:00:00.000Z');
/** Codex sessions start later (a user who took it up in the summer). */
const CODEX_FIRST_MS = Date.parse('2025-08-01T00:00:00.000Z');

/** Working directories: several projects, two machines' home folders. */
const CWDS = [
  '/home/maria/src/orbit-api',
  '/home/maria/src/ledger-service',
  '/home/maria/src/web-console',
  '/home/maria/src/infra-tools',
  '/home/maria/src/mobile-app',
  '/home/maria/work/billing-worker',
  '/home/maria/work/data-pipeline',
  '/Users/maria/code/design-system',
  '/Users/maria/code/docs-site',
];

interface ClaudeEra {
  /** Sessions that start before this day use this era. */
  until: number;
  versions: readonly string[];
  models: readonly string[];
  /** Writes subagent files (2.1.x) or none (older files here have no Task calls). */
  subagents: boolean;
  /** Every line of a response carries only the stream-start output count (2.1.11–2.1.29). */
  streamStartOnly: boolean;
  /** Older files: no file-history-snapshot or progress lines. */
  plain: boolean;
}

const CLAUDE_ERAS: readonly ClaudeEra[] = [
  {
    until: Date.parse('2025-09-29'),
    versions: ['1.0.98', '1.0.108', '1.0.111'],
    models: ['claude-sonnet-4-20250514', 'claude-opus-4-1-20250805', 'claude-sonnet-4-20250514'],
    subagents: false,
    streamStartOnly: false,
    plain: true,
  },
  {
    until: Date.parse('2025-12-10'),
    versions: ['2.0.37', '2.0.69', '2.0.76'],
    models: [
      'claude-sonnet-4-5-20250929',
      'claude-haiku-4-5-20251001',
      'claude-sonnet-4-5-20250929',
    ],
    subagents: false,
    streamStartOnly: false,
    plain: false,
  },
  {
    until: Date.parse('2026-01-08'),
    versions: ['2.1.5', '2.1.17', '2.1.27'],
    models: ['claude-opus-4-5-20251101', 'claude-sonnet-4-5-20250929'],
    subagents: true,
    streamStartOnly: true,
    plain: false,
  },
  {
    until: Number.POSITIVE_INFINITY,
    versions: ['2.1.38', '2.1.39', '2.1.45'],
    models: ['claude-opus-4-5-20251101', 'claude-sonnet-4-5-20250929', 'claude-haiku-4-5-20251001'],
    subagents: true,
    streamStartOnly: false,
    plain: false,
  },
];

type CodexVariant = 'legacy' | '0.4x' | '0.5x' | 'current';

interface CodexEra {
  until: number;
  variant: CodexVariant;
  versions: readonly string[];
  models: readonly string[];
}

const CODEX_ERAS: readonly CodexEra[] = [
  {
    until: Date.parse('2025-09-05'),
    variant: 'legacy',
    versions: [''],
    models: ['codex-mini-latest'],
  },
  {
    until: Date.parse('2025-11-01'),
    variant: '0.4x',
    versions: ['0.42.0', '0.46.0', '0.48.0'],
    models: ['gpt-5-codex', 'gpt-5'],
  },
  {
    until: Date.parse('2025-12-10'),
    variant: '0.5x',
    versions: ['0.53.0', '0.58.0'],
    models: ['gpt-5.1-codex', 'gpt-5-codex'],
  },
  {
    until: Number.POSITIVE_INFINITY,
    variant: 'current',
    versions: ['0.77.0', '0.98.0'],
    models: ['gpt-5.1-codex', 'gpt-5.2-codex', 'gpt-5.1'],
  },
];

const eraOf = <T extends { until: number }>(eras: readonly T[], ms: number): T =>
  eras.find((e) => ms < e.until)!;
/** The days of era `n` within the corpus's months: [from, to). */
const eraRange = (
  eras: readonly { until: number }[],
  n: number,
  firstMs: number,
): [number, number] => [n === 0 ? firstMs : eras[n - 1]!.until, Math.min(eras[n]!.until, LAST_MS)];

/**
 * Base64 for image blocks: one pool drawn once from the seed, sliced per image (lengths a
 * multiple of 4, so every slice is valid base64), each image starting with a PNG header.
 */
class ImagePool {
  private readonly pool: string;
  constructor(rng: SeededRandom) {
    const bytes = Buffer.allocUnsafe(1_600 * KB);
    for (let i = 0; i < bytes.length; i += 4) bytes.writeUInt32LE((rng.next() * 2 ** 32) >>> 0, i);
    this.pool = bytes.toString('base64');
  }
  image(rng: SeededRandom, minBytes: number, maxBytes: number): string {
    const len = rng.int(minBytes, Math.min(maxBytes, this.pool.length - 64)) & ~3;
    const at = rng.int(0, (this.pool.length - len) >> 2) << 2;
    return `iVBORw0KGgoAAAANSUhEUgAA${this.pool.slice(at + 24, at + len)}`;
  }
}

/** Build and test logs for large tool outputs: quotes, backslashes, tabs and non-ASCII, as real logs have. */
class LogPool {
  private readonly text: string;
  constructor(rng: SeededRandom) {
    const levels = ['INFO', 'INFO', 'DEBUG', 'WARN', 'ERROR'];
    const paths = [
      '/api/v1/items',
      '/api/v1/orders',
      '/healthz',
      '/api/v2/search',
      '/static/app.js',
    ];
    const parts: string[] = [];
    let size = 0;
    let ms = Date.parse('2025-10-01T08:00:00.000Z');
    for (let i = 0; size < 2_200 * KB; i++) {
      ms += rng.int(1, 900);
      const ts = new Date(ms).toISOString();
      const r = rng.next();
      const line =
        r < 0.55
          ? `${ts} ${rng.pick(levels)} [worker-${rng.int(1, 8)}] ${rng.pick(['GET', 'POST', 'PUT'])} ${rng.pick(paths)}?id=${rng.int(1, 99_999)} ${rng.pick([200, 200, 201, 304, 404, 500])} "Mozilla/5.0 (X11; Linux x86_64)" ${rng.int(1, 900)}ms`
          : r < 0.75
            ? `    at Object.<anonymous> (/home/maria/src/orbit-api/src/routes/items.ts:${rng.int(1, 400)}:${rng.int(1, 80)})`
            : r < 0.88
              ? `\t✓ handles "${rng.pick(['empty', 'unicode – ünïcödé', 'quoted \\"value\\"', 'C:\\temp\\x'])}" input (${rng.int(1, 90)} ms)`
              : `{"level":"${rng.pick(levels).toLowerCase()}","msg":"batch ${i} done","rows":${rng.int(0, 5_000)},"path":"C:\\\\data\\\\in"}`;
      parts.push(line);
      size += line.length + 1;
    }
    this.text = parts.join('\n') + '\n';
  }
  /** About `length` characters of whole log lines. */
  slice(rng: SeededRandom, length: number): string {
    const start = this.text.indexOf('\n', rng.int(0, this.text.length - length - 1)) + 1;
    const end = this.text.lastIndexOf('\n', start + length);
    return this.text.slice(start, end + 1);
  }
}

/** 100 KB–2 MB, most of them near the low end (log-uniform). */
function largeOutputSize(rng: SeededRandom): number {
  return Math.round(100 * KB * Math.pow(20, rng.next()));
}

/** A stable 1–12 per response, so a response's stream-start count is the same in every copy. */
function streamStart(id: string): number {
  let h = 2166136261;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 16777619);
  return 1 + ((h >>> 0) % 12);
}

interface Context {
  rng: SeededRandom;
  images: ImagePool;
  logs: LogPool;
  shapes: HeavyUserShapes;
  /** A Codex output was made large (the first candidate always is). */
  codexLarge: boolean;
}

/** Claude Code: one transcript's lines, reshaped for its era. */
function reshapeClaude(text: string, era: ClaudeEra, main: boolean, ctx: Context): string {
  const { rng, shapes } = ctx;
  const out: string[] = [];
  const readImages = new Set<string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const o = JSON.parse(line) as Obj;
    if (era.plain && (o.type === 'file-history-snapshot' || o.type === 'progress')) continue;
    const message = o.message as Obj | undefined;
    if (era.streamStartOnly) setStreamStart(o);
    if (main && o.type === 'assistant' && message && Array.isArray(message.content)) {
      const block = message.content[0] as Obj | undefined;
      if (
        block?.type === 'tool_use' &&
        block.name === 'Read' &&
        (shapes.readImages === 0 || rng.bool(0.006))
      ) {
        const cwd = String(o.cwd);
        block.input = {
          file_path: `${cwd}/docs/screenshots/${rng.pick(['login', 'dashboard', 'error', 'settings'])}-${rng.int(1, 40)}.png`,
        };
        readImages.add(String(block.id));
      }
    }
    if (main && o.type === 'user' && message) {
      const content = message.content;
      if (
        typeof content === 'string' &&
        !o.isMeta &&
        !o.isCompactSummary &&
        !content.startsWith('<')
      ) {
        if (shapes.pastedImages === 0 || rng.bool(0.01)) {
          const count = rng.bool(0.2) ? 2 : 1;
          const blocks: Obj[] = [{ type: 'text', text: content }];
          for (let i = 0; i < count; i++) {
            blocks.push({
              type: 'image',
              source: {
                type: 'base64',
                media_type: 'image/png',
                data: ctx.images.image(rng, 50 * KB, 1000 * KB),
              },
            });
            shapes.pastedImages++;
          }
          message.content = blocks;
        }
      } else if (Array.isArray(content)) {
        const result = content[0] as Obj | undefined;
        if (result?.type === 'tool_result' && readImages.has(String(result.tool_use_id))) {
          const data = ctx.images.image(rng, 50 * KB, 1000 * KB);
          result.content = [
            { type: 'image', source: { type: 'base64', data, media_type: 'image/png' } },
          ];
          o.toolUseResult = {
            type: 'image',
            file: {
              base64: data,
              type: 'image/png',
              originalSize: Math.floor((data.length * 3) / 4),
            },
          };
          shapes.readImages++;
        } else if (
          result?.type === 'tool_result' &&
          typeof result.content === 'string' &&
          typeof (o.toolUseResult as Obj | undefined)?.stdout === 'string' &&
          (shapes.largeOutputs === 0 || rng.bool(0.005))
        ) {
          const log = ctx.logs.slice(rng, largeOutputSize(rng));
          result.content = log;
          (o.toolUseResult as Obj).stdout = log;
          shapes.largeOutputs++;
        }
      }
    }
    out.push(JSON.stringify(o));
  }
  return out.join('\n') + '\n';
}

/** 2.1.11–2.1.29: each line of a response, and each agent_progress copy, has the stream-start count. */
function setStreamStart(o: Obj): void {
  const data = o.data as Obj | undefined;
  const inner =
    o.type === 'progress'
      ? ((data?.message as Obj | undefined)?.message as Obj | undefined)
      : undefined;
  const message = o.type === 'assistant' ? (o.message as Obj | undefined) : inner;
  const usage = message?.usage as Obj | undefined;
  if (usage && typeof message!.id === 'string') usage.output_tokens = streamStart(message!.id);
}

/** Codex: the current layout's lines reshaped as 0.4x/0.5x wrote them; big command outputs. */
function reshapeCodex(text: string, variant: CodexVariant, ctx: Context): string {
  const { rng, shapes } = ctx;
  const out: string[] = [];
  let previous = '';
  for (const line of text.split('\n')) {
    if (line === '') continue;
    // 0.9x writes every token_count twice; older versions once.
    if (variant !== 'current' && line === previous && line.includes('"token_count"')) continue;
    previous = line;
    const o = JSON.parse(line) as Obj;
    const payload = (variant === 'legacy' ? o : o.payload) as Obj | undefined;
    if (payload?.type === 'function_call_output' && (!ctx.codexLarge || rng.bool(0.006))) {
      ctx.codexLarge = true;
      const log = ctx.logs.slice(rng, largeOutputSize(rng));
      let output: unknown = log;
      try {
        const parsed = JSON.parse(String(payload.output)) as Obj;
        if (parsed && typeof parsed === 'object' && 'output' in parsed) {
          parsed.output = log;
          output = JSON.stringify(parsed);
        }
      } catch {
        // A plain-text output ("Plan updated"): replaced as it is.
      }
      payload.output = output;
      shapes.largeOutputs++;
    }
    if (variant === '0.4x' && payload) {
      if (o.type === 'session_meta') delete payload.model_provider;
      if (o.type === 'turn_context') {
        const { type, ...rest } = payload.sandbox_policy as Obj;
        payload.sandbox_policy = { mode: type, ...rest };
      }
      if (payload.type === 'user_message') {
        delete payload.images;
        payload.kind = 'plain';
      }
      if (payload.type === 'token_count' && payload.rate_limits) {
        const now = Math.floor(Date.parse(String(o.timestamp)) / 1000);
        for (const w of Object.values(payload.rate_limits as Record<string, Obj>)) {
          w.resets_in_seconds = Math.max(0, Number(w.resets_at) - now);
          delete w.resets_at;
        }
      }
    }
    out.push(JSON.stringify(o));
  }
  return out.join('\n') + '\n';
}

/** Folder and file names use local time in Codex; this corpus's machine runs on UTC. */
function rolloutName(startMs: number, id: string): { stamp: string; name: string } {
  const stamp = new Date(startMs).toISOString().slice(0, 19).replaceAll(':', '-');
  return { stamp, name: `rollout-${stamp}-${id}.jsonl` };
}

/** Writes the corpus under `dir` (emptied first) and returns it with its expected totals. */
export async function writeHeavyUserCorpus(
  dir: string,
  options: HeavyUserCorpusOptions,
): Promise<HeavyUserCorpus> {
  await rm(dir, { recursive: true, force: true });
  const rng = new SeededRandom(options.seed ?? 1847);
  const claudeDir = join(dir, 'claude');
  const codexDir = join(dir, 'codex');
  const files: CorpusFile[] = [];
  const shapes: HeavyUserShapes = {
    claudeVersions: {},
    codexVariants: {},
    subagentFiles: 0,
    pastedImages: 0,
    readImages: 0,
    largeOutputs: 0,
    projects: 0,
    firstDay: '',
    lastDay: '',
  };
  const ctx: Context = {
    rng,
    images: new ImagePool(rng.fork('images')),
    logs: new LogPool(rng.fork('logs')),
    shapes,
    codexLarge: false,
  };
  const projects = new Set<string>();
  let firstMs = Number.POSITIVE_INFINITY;
  let lastMs = 0;

  const record = async (
    path: string,
    content: string,
    harness: CorpusFile['harness'],
    role: CorpusFile['role'],
  ) =>
    // A longer tail than the first generator's: tool outputs here run to megabytes.
    writeCorpusFile(
      files,
      { path, harness, role },
      content,
      new Date(FIRST_MS).toISOString(),
      400_000,
    );
  /** Session start times: uniform over the months, in working hours. */
  const startTime = (fromMs: number, toMs = LAST_MS) => {
    const day = fromMs + rng.int(0, Math.floor((toMs - fromMs) / DAY) - 1) * DAY;
    const ms = day + rng.int(7 * 3_600_000, 22 * 3_600_000) + rng.int(0, 59_999);
    firstMs = Math.min(firstMs, ms);
    lastMs = Math.max(lastMs, ms);
    return ms;
  };

  const codexTarget = options.targetBytes * (options.codexShare ?? 0.15);
  const claudeTarget = options.targetBytes - codexTarget;
  let claudeBytes = 0;
  let codexBytes = 0;
  for (let n = 0; claudeBytes < claudeTarget || n < CLAUDE_ERAS.length; n++) {
    // Every era, whatever the dates drawn: the first sessions take one each.
    const startMs =
      n < CLAUDE_ERAS.length
        ? startTime(...eraRange(CLAUDE_ERAS, n, FIRST_MS))
        : startTime(FIRST_MS);
    const era = eraOf(CLAUDE_ERAS, startMs);
    const cwd = rng.pick(CWDS);
    projects.add(cwd);
    const version = rng.pick(era.versions);
    const sessionId = rng.uuid();
    const generated = generateClaudeCodeTranscript({
      seed: 40_000 + n,
      sessionId,
      cwd,
      model: rng.pick(era.models),
      startedAt: new Date(startMs).toISOString(),
      turns: rng.int(1, 6),
      subagents: era.subagents && (shapes.subagentFiles === 0 || rng.bool(0.4)) ? rng.int(1, 3) : 0,
      compaction: rng.bool(0.15),
      gitBranch: rng.pick(['main', 'main', 'develop', `feature/${rng.int(100, 999)}`]),
      version,
    });
    const folder = join(claudeDir, 'projects', cwd.replaceAll('/', '-'));
    claudeBytes += await record(
      join(folder, `${sessionId}.jsonl`),
      reshapeClaude(generated.main, era, true, ctx),
      'claude-code',
      'session',
    );
    shapes.claudeVersions[version] = (shapes.claudeVersions[version] ?? 0) + 1;
    for (const sub of generated.subagents) {
      const subDir = join(folder, sessionId, 'subagents');
      claudeBytes += await record(
        join(subDir, `${sub.fileId}.jsonl`),
        reshapeClaude(sub.content, era, false, ctx),
        'claude-code',
        'subagent',
      );
      await writeFile(join(subDir, `${sub.fileId}.meta.json`), JSON.stringify(sub.meta));
      shapes.subagentFiles++;
      shapes.claudeVersions[version]++;
    }
  }

  for (let n = 0; codexBytes < codexTarget || n < CODEX_ERAS.length; n++) {
    const startMs =
      n < CODEX_ERAS.length
        ? startTime(...eraRange(CODEX_ERAS, n, CODEX_FIRST_MS))
        : startTime(CODEX_FIRST_MS);
    const era = eraOf(CODEX_ERAS, startMs);
    const cwd = rng.pick(CWDS);
    projects.add(cwd);
    const sessionId = rng.uuid();
    const text = generateCodexTranscript({
      seed: 70_000 + n,
      sessionId,
      cwd,
      model: rng.pick(era.models),
      startedAt: new Date(startMs).toISOString(),
      turns: rng.int(1, 5),
      compaction: rng.bool(0.15),
      legacy: era.variant === 'legacy',
      ...(era.variant === 'legacy' ? {} : { cliVersion: rng.pick(era.versions) }),
    });
    const { stamp, name } = rolloutName(startMs, sessionId);
    const [y, m, d] = stamp.slice(0, 10).split('-');
    // Some old rollouts were archived.
    const path =
      era.variant !== 'current' && rng.bool(0.1)
        ? join(codexDir, 'archived_sessions', name)
        : join(codexDir, 'sessions', y!, m!, d!, name);
    codexBytes += await record(path, reshapeCodex(text, era.variant, ctx), 'codex', 'session');
    shapes.codexVariants[era.variant] = (shapes.codexVariants[era.variant] ?? 0) + 1;
  }

  shapes.projects = projects.size;
  shapes.firstDay = new Date(firstMs).toISOString().slice(0, 10);
  shapes.lastDay = new Date(lastMs).toISOString().slice(0, 10);
  const expected = await referenceTotals(files);
  return {
    root: dir,
    claudeDir,
    codexDir,
    files,
    bytes: claudeBytes + codexBytes,
    expected,
    shapes,
  };
}

/**
 * The bench's heavy-user corpus of about `megabytes` MB (cached by the bench under a
 * versioned name: bump HEAVY_USER_CORPUS_VERSION when the generator's output changes).
 */
export const HEAVY_USER_CORPUS_VERSION = 'v1';
export const heavyUserCorpusOptions = (megabytes: number): HeavyUserCorpusOptions => ({
  targetBytes: megabytes * 1_048_576,
  seed: 1847,
  codexShare: 0.15,
});

// `node test/support/heavyUserCorpus.ts <dir> [megabytes]`: writes the corpus of that size
// (the bench's shape and seed, default 200 MB) into <dir>, replacing what is there.
if (import.meta.main) {
  const [dir, megabytes = '200'] = process.argv.slice(2);
  if (!dir) {
    console.error('usage: node test/support/heavyUserCorpus.ts <dir> [megabytes]');
    process.exit(2);
  }
  const c = await writeHeavyUserCorpus(dir, heavyUserCorpusOptions(Number(megabytes)));
  const codex = c.files.filter((f) => f.harness === 'codex').reduce((n, f) => n + f.bytes, 0);
  console.log(
    JSON.stringify(
      {
        claudeDir: c.claudeDir,
        codexDir: c.codexDir,
        files: c.files.length,
        megabytes: Math.round(c.bytes / 1_048_576),
        codexMegabytes: Math.round(codex / 1_048_576),
        shapes: c.shapes,
        expected: c.expected.byHarness,
      },
      null,
      2,
    ),
  );
}
