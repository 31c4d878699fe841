/**
 * Deterministic Claude Code transcripts (`~/.claude/projects/<cwd>/<sessionId>.jsonl` plus
 * `<sessionId>/subagents/agent-<agentId>.jsonl`), shaped like version 2.1.38+ files: one line
 * per content block, the final output token count on the last line of each response, Task
 * subagents with `agent_progress` copies in the parent, file-history snapshots, summary,
 * turn_duration/local_command system lines and optional compaction.
 */
import { SeededRandom, ShuffledDeck } from '../random.ts';
import {
  COMMIT_PROMPTS,
  COMPACT_ANALYSIS,
  EXPLAIN_PROMPTS,
  FINAL_SUMMARY,
  pickProject,
  QUESTIONS,
  READ_REMINDER,
  SMALL_PNG_BASE64,
  SUBAGENT_TYPES,
  TEXT_CAUSE,
  TEXT_FIX,
  TEXT_RUN_FAIL,
  TEXT_RUN_PASS,
  TEXT_START,
  THINK_AFTER_FAIL,
  THINK_AFTER_PASS,
  THINK_CAUSE,
  THINK_EXTRA,
  THINK_START,
  VERIFY_PROMPTS,
  allTestFiles,
  countTests,
  base62,
  base64Blob,
  diffStat,
  estimateTokens,
  failingTestOutput,
  fileContent,
  grep,
  grepFiles,
  hex,
  lineOf,
  linesOf,
  lintFailure,
  lintFixed,
  lintOk,
  numbered,
  passingTestOutput,
  patchedTest,
  subagentTask,
  typecheckOk,
  uuid4,
  type Project,
  type Scenario,
} from './text.ts';

export interface ClaudeCodeTranscriptOptions {
  seed: number;
  sessionId: string;
  cwd: string;
  model: string;
  /** ISO timestamp of the first line that carries a timestamp. */
  startedAt: string;
  /** User→assistant exchanges (each with 0..n tool calls). Values below 1 count as 1. */
  turns: number;
  /** Task tool calls that spawn subagents (default 0). */
  subagents?: number;
  /** Include a compact_boundary + isCompactSummary user line (default false). */
  compaction?: boolean;
  /** Default 'main'. */
  gitBranch?: string;
  /** Default '2.1.40'. */
  version?: string;
  /**
   * Include real-world oddities (default false), each exactly once: a pretty-printed
   * multi-line JSON entry (the first user prompt), a lone surrogate in a text block, a
   * synthetic API-error assistant message with `"id": null`, a line of an unknown type
   * (`CLAUDE_CODE_QUIRK_UNKNOWN_TYPE`) and a truncated last line without a newline (the
   * first line of a response to one extra, unfinished prompt).
   */
  quirks?: boolean;
  /**
   * The first turn changes three files (default false): it Writes a new regression test,
   * Edits the source file it Read whole first, and MultiEdits a third file it read only in
   * part (so that file's text before the session is unknown). For the Changes view's demo.
   */
  editsThreeFiles?: boolean;
}

export interface GeneratedSubagentTranscript {
  /** `agent-<agentId>`: the file is `<sessionId>/subagents/<fileId>.jsonl`. */
  fileId: string;
  agentId: string;
  content: string;
  /** The optional `agent-<agentId>.meta.json`. */
  meta: { agentType: string; description: string; toolUseId: string };
}

export interface GeneratedTranscript {
  /** JSONL text, '\n'-terminated lines (except a truncated last line with `quirks`). */
  main: string;
  /** One per Task call, in the order the Task calls appear in `main`. */
  subagents: GeneratedSubagentTranscript[];
}

/** The line types listed in the format notes; anything else is "unknown". */
export const CLAUDE_CODE_LINE_TYPES: readonly string[] = [
  'user',
  'assistant',
  'system',
  'summary',
  'file-history-snapshot',
  'queue-operation',
  'progress',
];

/** The `type` of the unknown line written with `quirks`. */
export const CLAUDE_CODE_QUIRK_UNKNOWN_TYPE = 'tag';

const HAIKU = 'claude-haiku-4-5-20251001';

type Json = Record<string, unknown>;
type TextBlock = { type: 'text'; text: string };
type Block =
  | { type: 'thinking'; thinking: string; signature: string }
  | TextBlock
  | { type: 'tool_use'; id: string; name: string; input: Json };

interface Outcome {
  content: string | TextBlock[];
  isError: boolean;
  toolUseResult: unknown;
  durationMs: number;
}

interface Call {
  name: string;
  input: Json;
  run?: () => Outcome;
  task?: { type: string; description: string; prompt: string; scenario: Scenario };
  /** Repo-relative path this call modifies (Edit/Write): triggers a snapshot update. */
  edits?: string;
}

interface Step {
  thinking?: string;
  text?: string;
  calls: Call[];
}

interface Plan {
  prompt: string | Json[];
  steps: Step[];
}

interface Tokens {
  /** Everything in the conversation so far, system prompt included. */
  context: number;
  /** How much of it is in the prompt cache. */
  cached: number;
  system: number;
  /** Prefix cached by other sessions (system prompt and tools). */
  shared: number;
  ttlMs: number;
  lastMs: number;
}

interface Written {
  uuid: string;
  timestamp: string;
  requestId: string;
  message: Json;
}

class Sink {
  readonly lines: string[] = [];
  last: string | null = null;
  readonly sidechain: boolean;
  readonly agentId: string | undefined;
  readonly model: string;
  readonly tok: Tokens;

  constructor(sidechain: boolean, agentId: string | undefined, model: string, tok: Tokens) {
    this.sidechain = sidechain;
    this.agentId = agentId;
    this.model = model;
    this.tok = tok;
  }
}

type TurnKind = 'bugfix' | 'verify' | 'question' | 'commit' | 'explain';

interface Normalized {
  seed: number;
  sessionId: string;
  cwd: string;
  model: string;
  startMs: number;
  version: string;
  gitBranch: string;
  quirks: boolean;
  editsThreeFiles: boolean;
}

/**
 * One session being written turn by turn. Used by generateClaudeCodeTranscript() and by
 * the large streaming generator (which drains `main.lines` after every turn).
 */
export class ClaudeSession {
  readonly rng: SeededRandom;
  readonly o: Normalized;
  readonly project: Project;
  readonly main: Sink;
  readonly subagents: GeneratedSubagentTranscript[] = [];
  /** Large mode drops subagent files (only their effects on the parent are kept). */
  readonly keepSubagents: boolean;
  turnIndex = 0;
  compactions = 0;
  private ms: number;
  private started = false;
  private readonly scenarios: ShuffledDeck<Scenario>;
  private current: Scenario;
  private currentTestFile: string;
  /** Test files that gained regression tests, by scenario. */
  private readonly addedTests = new Map<string, { file: string; tests: number }>();
  private promptUuid = '';
  private readonly backups = new Map<
    string,
    { backupFileName: string; version: number; backupTime: string }
  >();
  private editedThisTurn = new Set<string>();
  private readonly agentIds = new Set<string>();

  constructor(opts: Omit<ClaudeCodeTranscriptOptions, 'turns'>, keepSubagents: boolean) {
    const startMs = Date.parse(opts.startedAt);
    if (!Number.isFinite(startMs)) throw new RangeError(`invalid startedAt: ${opts.startedAt}`);
    this.o = {
      seed: opts.seed,
      sessionId: opts.sessionId,
      cwd: opts.cwd.replace(/\/+$/, '') || '/',
      model: opts.model,
      startMs,
      version: opts.version ?? '2.1.40',
      gitBranch: opts.gitBranch ?? 'main',
      quirks: opts.quirks ?? false,
      editsThreeFiles: opts.editsThreeFiles ?? false,
    };
    this.keepSubagents = keepSubagents;
    this.rng = new SeededRandom(opts.seed);
    this.ms = startMs;
    this.project = pickProject(this.rng, this.o.cwd);
    this.scenarios = new ShuffledDeck(this.rng, this.project.scenarios);
    const system = this.rng.int(15_000, 21_000);
    this.main = new Sink(false, undefined, opts.model, {
      context: system,
      cached: 0,
      system,
      shared: this.rng.bool(0.85) ? system - this.rng.int(1_500, 4_000) : 0,
      ttlMs: this.rng.bool(0.3) ? 3_600_000 : 300_000,
      lastMs: 0,
    });
    this.current = this.scenarios.next();
    this.currentTestFile = this.current.testFile;
  }

  // ------------------------------------------------------------------ clock and lines

  /** Advances the clock by [min, max] ms (at least 1) and returns the ISO time. */
  private stamp(min: number, max: number): string {
    if (!this.started) this.started = true;
    else this.ms += Math.max(1, this.rng.int(min, max));
    return new Date(this.ms).toISOString();
  }

  private abs(rel: string): string {
    return `${this.o.cwd}/${rel}`;
  }

  private entry(sink: Sink, type: string, body: Json, uuid: string, timestamp: string): Json {
    return {
      parentUuid: sink.last,
      isSidechain: sink.sidechain,
      userType: 'external',
      cwd: this.o.cwd,
      sessionId: this.o.sessionId,
      version: this.o.version,
      gitBranch: this.o.gitBranch,
      agentId: sink.agentId,
      type,
      ...body,
      uuid,
      timestamp,
    };
  }

  private push(sink: Sink, obj: Json, chain = true): void {
    sink.lines.push(JSON.stringify(obj) + '\n');
    if (chain) sink.last = obj.uuid as string;
  }

  private system(subtype: string, body: Json): void {
    const ts = this.stamp(5, 80);
    this.push(
      this.main,
      this.entry(this.main, 'system', { subtype, ...body, isMeta: false }, uuid4(this.rng), ts),
    );
  }

  // ------------------------------------------------------------------ token accounting

  private usage(sink: Sink): Json {
    const t = sink.tok;
    const expired = t.lastMs > 0 && this.ms - t.lastMs > t.ttlMs;
    const read = Math.min(t.context, t.cached === 0 || expired ? t.shared : t.cached);
    const input = this.rng.int(1, 9);
    const creation = Math.max(0, t.context - read - input);
    t.cached = read + creation;
    t.lastMs = this.ms;
    const oneHour = t.ttlMs > 300_000;
    return {
      input_tokens: input,
      cache_creation_input_tokens: creation,
      cache_read_input_tokens: read,
      cache_creation: {
        ephemeral_5m_input_tokens: oneHour ? 0 : creation,
        ephemeral_1h_input_tokens: oneHour ? creation : 0,
      },
      output_tokens: 0,
      service_tier: 'standard',
    };
  }

  /** Writes one API response, one line per block. */
  private respond(sink: Sink, blocks: Block[], stop: string): Written[] {
    const id = `msg_01${base62(this.rng, 22)}`;
    const requestId = `req_011C${base62(this.rng, 21)}`;
    let ts = this.stamp(1_500, 6_500);
    const base = this.usage(sink);
    let out = this.rng.int(8, 60);
    for (const b of blocks) {
      out += estimateTokens(
        b.type === 'thinking' ? b.thinking : b.type === 'text' ? b.text : JSON.stringify(b.input),
      );
    }
    const streamStart = this.rng.int(1, 12);
    out = Math.max(out, streamStart + 1);
    const written: Written[] = [];
    for (let i = 0; i < blocks.length; i++) {
      const b = blocks[i]!;
      const last = i === blocks.length - 1;
      if (i > 0) ts = this.stamp(blocks[i - 1]!.type === 'tool_use' ? 80 : 300, 2_500);
      const message: Json = {
        model: sink.model,
        id,
        type: 'message',
        role: 'assistant',
        content: [b],
        stop_reason: last ? stop : null,
        stop_sequence: null,
        usage: { ...base, output_tokens: last ? out : streamStart },
      };
      const uuid = uuid4(this.rng);
      this.push(sink, this.entry(sink, 'assistant', { message, requestId }, uuid, ts));
      written.push({ uuid, timestamp: ts, requestId, message });
    }
    sink.tok.context += out;
    return written;
  }

  private userLine(sink: Sink, content: string | Json[], extra: Json = {}, uuid?: string): Json {
    const ts = this.stamp(1, 40);
    const obj = this.entry(
      sink,
      'user',
      { message: { role: 'user', content }, ...extra },
      uuid ?? uuid4(this.rng),
      ts,
    );
    sink.tok.context +=
      estimateTokens(typeof content === 'string' ? content : JSON.stringify(content)) + 8;
    return obj;
  }

  // ------------------------------------------------------------------ steps

  private runStep(sink: Sink, step: Step, onAssistant?: (w: Written) => void): void {
    const blocks: Block[] = [];
    if (step.thinking) {
      blocks.push({
        type: 'thinking',
        thinking: step.thinking,
        signature: `Eu${base64Blob(this.rng, 280, 1_100)}`,
      });
    }
    if (step.text) blocks.push({ type: 'text', text: step.text });
    const ids = step.calls.map(() => `toolu_01${base62(this.rng, 22)}`);
    step.calls.forEach((c, i) =>
      blocks.push({ type: 'tool_use', id: ids[i]!, name: c.name, input: c.input }),
    );
    const written = this.respond(sink, blocks, step.calls.length ? 'tool_use' : 'end_turn');
    if (onAssistant) for (const w of written) onAssistant(w);
    const firstToolLine = written.length - step.calls.length;
    step.calls.forEach((call, i) => {
      const source = written[firstToolLine + i]!.uuid;
      const outcome = call.task
        ? this.runTask(call.task, ids[i]!)
        : (call.run?.() ?? { content: '', isError: false, toolUseResult: '', durationMs: 10 });
      if (call.edits && sink === this.main) this.trackEdit(call.edits);
      const ts = this.stamp(outcome.durationMs, outcome.durationMs + 40);
      const block: Json = { tool_use_id: ids[i], type: 'tool_result', content: outcome.content };
      if (outcome.isError) block.is_error = true;
      const obj = this.entry(
        sink,
        'user',
        { message: { role: 'user', content: [block] } },
        uuid4(this.rng),
        ts,
      );
      obj.toolUseResult = outcome.toolUseResult;
      obj.sourceToolAssistantUUID = source;
      this.push(sink, obj);
      sink.tok.context +=
        estimateTokens(
          typeof outcome.content === 'string' ? outcome.content : JSON.stringify(outcome.content),
        ) + 12;
    });
  }

  private trackEdit(rel: string): void {
    if (this.editedThisTurn.has(rel)) return;
    this.editedThisTurn.add(rel);
    const prev = this.backups.get(this.abs(rel));
    const version = (prev?.version ?? 0) + 1;
    this.backups.set(this.abs(rel), {
      backupFileName: `${hex(this.rng, 16)}@v${version}`,
      version,
      backupTime: new Date(this.ms).toISOString(),
    });
    this.snapshot(true);
  }

  private snapshot(update: boolean): void {
    this.push(
      this.main,
      {
        type: 'file-history-snapshot',
        messageId: this.promptUuid,
        snapshot: {
          messageId: this.promptUuid,
          trackedFileBackups: Object.fromEntries(this.backups),
          timestamp: new Date(this.ms).toISOString(),
        },
        isSnapshotUpdate: update,
      },
      false,
    );
  }

  // ------------------------------------------------------------------ tool calls

  private read(rel: string, offset?: number, limit?: number): Call {
    const input: Json = { file_path: this.abs(rel) };
    if (offset !== undefined) input.offset = offset;
    if (limit !== undefined) input.limit = limit;
    return {
      name: 'Read',
      input,
      run: () => {
        // Claude Code numbers the lines of text.split('\n'): a final newline shows as an empty last line.
        const content = fileContent(this.project, rel);
        const text = content.endsWith('\n') ? `${content}\n` : content;
        const lines = linesOf(text);
        const start = offset ?? 1;
        const count = Math.min(limit ?? lines.length, lines.length - start + 1);
        return {
          content: numbered(text, start, count) + READ_REMINDER,
          isError: false,
          toolUseResult: {
            type: 'text',
            file: {
              filePath: this.abs(rel),
              content: lines.slice(start - 1, start - 1 + count).join('\n'),
              numLines: count,
              startLine: start,
              totalLines: lines.length,
            },
          },
          durationMs: this.rng.int(8, 70),
        };
      },
    };
  }

  private readMissing(rel: string, suggestion: string): Call {
    const msg = `File does not exist. Did you mean ${suggestion}?`;
    return {
      name: 'Read',
      input: { file_path: this.abs(rel) },
      run: () => ({
        content: `<tool_use_error>${msg}</tool_use_error>`,
        isError: true,
        toolUseResult: `Error: ${msg}`,
        durationMs: this.rng.int(3, 20),
      }),
    };
  }

  private grepCall(symbol: string, mode: 'files_with_matches' | 'content'): Call {
    const pattern = symbol.includes('.') ? symbol.slice(symbol.lastIndexOf('.') + 1) : symbol;
    const input: Json =
      mode === 'content'
        ? { pattern, path: this.o.cwd, output_mode: 'content', '-n': true }
        : { pattern, output_mode: 'files_with_matches' };
    return {
      name: 'Grep',
      input,
      run: () => {
        if (mode === 'content') {
          const hits = grep(this.project, symbol);
          const content = hits.map((h) => `${this.abs(h.file)}:${h.line}:${h.text}`).join('\n');
          return {
            content,
            isError: false,
            toolUseResult: { mode, numFiles: 0, filenames: [], content, numLines: hits.length },
            durationMs: this.rng.int(40, 400),
          };
        }
        const files = grepFiles(this.project, symbol).map((f) => this.abs(f));
        return {
          content: `Found ${files.length} file${files.length === 1 ? '' : 's'}\n${files.join('\n')}`,
          isError: false,
          toolUseResult: { mode, filenames: files, numFiles: files.length },
          durationMs: this.rng.int(40, 400),
        };
      },
    };
  }

  private glob(pattern: string): Call {
    return {
      name: 'Glob',
      input: { pattern },
      run: () => {
        const files = this.project.testFiles.map((f) => this.abs(f));
        const durationMs = this.rng.int(12, 160);
        return {
          content: files.join('\n'),
          isError: false,
          toolUseResult: { filenames: files, durationMs, numFiles: files.length, truncated: false },
          durationMs,
        };
      },
    };
  }

  private edit(
    rel: string,
    original: string,
    oldString: string,
    newString: string,
    fail = false,
  ): Call {
    return {
      name: 'Edit',
      input: { file_path: this.abs(rel), old_string: oldString, new_string: newString },
      edits: fail ? undefined : rel,
      run: () => {
        if (fail) {
          const msg = `String to replace not found in file.\nString: ${oldString}`;
          return {
            content: `<tool_use_error>${msg}</tool_use_error>`,
            isError: true,
            toolUseResult: `Error: ${msg}`,
            durationMs: this.rng.int(3, 25),
          };
        }
        const after = original.replace(oldString, newString);
        const line = lineOf(original, oldString);
        const oldLines = oldString.split('\n');
        const newLines = newString.split('\n');
        const all = linesOf(original);
        const before = Math.min(3, line - 1);
        const afterCtx = Math.min(3, all.length - (line - 1 + oldLines.length));
        const hunkLines = [
          ...all.slice(line - 1 - before, line - 1).map((l) => ` ${l}`),
          ...oldLines.map((l) => `-${l}`),
          ...newLines.map((l) => `+${l}`),
          ...all
            .slice(line - 1 + oldLines.length, line - 1 + oldLines.length + afterCtx)
            .map((l) => ` ${l}`),
        ];
        const from = Math.max(1, line - 4);
        return {
          content: `The file ${this.abs(rel)} has been updated. Here's the result of running \`cat -n\` on a snippet of the edited file:\n${numbered(after, from, newLines.length + 8)}`,
          isError: false,
          toolUseResult: {
            filePath: this.abs(rel),
            oldString,
            newString,
            originalFile: original,
            structuredPatch: [
              {
                oldStart: line - before,
                oldLines: before + oldLines.length + afterCtx,
                newStart: line - before,
                newLines: before + newLines.length + afterCtx,
                lines: hunkLines,
              },
            ],
            userModified: false,
            replaceAll: false,
          },
          durationMs: this.rng.int(10, 90),
        };
      },
    };
  }

  /**
   * A partial Read of a third file, then a MultiEdit of two lines in it: a doc comment on
   * the first line and a change to the last one (lines that occur once in the file).
   */
  private thirdFileSteps(s: Scenario): Step[] {
    const p = this.project;
    const rel = [...p.files.keys()].find(
      (f) =>
        f !== s.file &&
        f !== s.testFile &&
        f !== this.currentTestFile &&
        uniqueEnds(fileContent(p, f)),
    );
    if (!rel) return [];
    const text = fileContent(p, rel);
    const [first, last] = uniqueEnds(text)!;
    const comment = p.lang === 'ts' ? '//' : '#';
    const edits = [
      {
        old_string: first,
        new_string: `${comment} See ${s.file}: ${s.symbol} changed in this session.\n${first}`,
      },
      { old_string: last, new_string: `${last} ${comment} reviewed with the ${s.symbol} fix` },
    ];
    const after = edits.reduce((t, e) => t.replace(e.old_string, e.new_string), text);
    const lines = linesOf(text).length;
    return [
      {
        text: `The fix touches a helper in \`${rel}\` too; I'll note that there.`,
        calls: [this.read(rel, 1, Math.min(12, Math.max(1, lines - 1)))],
      },
      {
        calls: [
          {
            name: 'MultiEdit',
            input: { file_path: this.abs(rel), edits },
            edits: rel,
            run: () => ({
              content: `Applied ${edits.length} edits to ${this.abs(rel)}:\n${edits.map((e, i) => `${i + 1}. Replaced "${e.old_string.slice(0, 40)}" with "${e.new_string.slice(0, 40)}"`).join('\n')}`,
              isError: false,
              toolUseResult: {
                filePath: this.abs(rel),
                edits,
                originalFileContents: text,
                structuredPatch: [],
                userModified: false,
                newFileContents: after,
              },
              durationMs: this.rng.int(10, 90),
            }),
          },
        ],
      },
    ];
  }

  private write(rel: string, content: string): Call {
    return {
      name: 'Write',
      input: { file_path: this.abs(rel), content },
      edits: rel,
      run: () => ({
        content: `File created successfully at: ${this.abs(rel)}`,
        isError: false,
        toolUseResult: {
          type: 'create',
          filePath: this.abs(rel),
          content,
          structuredPatch: [],
          originalFile: null,
        },
        durationMs: this.rng.int(8, 60),
      }),
    };
  }

  private bash(
    command: string,
    description: string,
    output: () => string,
    exitCode = 0,
    duration: [number, number] = [300, 4_000],
  ): Call {
    const input: Json = { command, description };
    if (duration[1] > 20_000) input.timeout = 300_000;
    return {
      name: 'Bash',
      input,
      run: () => {
        const durationMs = this.rng.int(duration[0], duration[1]);
        const text = output();
        if (exitCode !== 0) {
          return {
            content: `Exit code ${exitCode}\n${text}`,
            isError: true,
            toolUseResult: `Error: Exit code ${exitCode}\n${text}`,
            durationMs,
          };
        }
        return {
          content: text,
          isError: false,
          toolUseResult: { stdout: text, stderr: '', interrupted: false, isImage: false },
          durationMs,
        };
      },
    };
  }

  private todo(items: { content: string; activeForm: string }[], done: number, prev: number): Call {
    const todos = (n: number) =>
      items.map((t, i) => ({
        content: t.content,
        status: i < n ? 'completed' : i === n ? 'in_progress' : 'pending',
        activeForm: t.activeForm,
      }));
    return {
      name: 'TodoWrite',
      input: { todos: todos(done) },
      run: () => ({
        content:
          'Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable',
        isError: false,
        toolUseResult: { oldTodos: prev < 0 ? [] : todos(prev), newTodos: todos(done) },
        durationMs: this.rng.int(2, 15),
      }),
    };
  }

  private webFetch(s: Scenario, fail: boolean): Call {
    const url = fail ? s.docsUrl.replace(/#.*$/, '').replace(/\/?$/, '-old') : s.docsUrl;
    return {
      name: 'WebFetch',
      input: { url, prompt: s.docsPrompt },
      run: () => {
        const durationMs = this.rng.int(600, 4_500);
        if (fail) {
          return {
            content: '<tool_use_error>Request failed with status code 404</tool_use_error>',
            isError: true,
            toolUseResult: 'Error: Request failed with status code 404',
            durationMs,
          };
        }
        return {
          content: s.docsNote,
          isError: false,
          toolUseResult: {
            bytes: this.rng.int(18_000, 240_000),
            code: 200,
            codeText: 'OK',
            result: s.docsNote,
            durationMs,
            url,
          },
          durationMs,
        };
      },
    };
  }

  private taskCall(s: Scenario, type?: string): Call {
    const agentType = type ?? this.rng.pick(SUBAGENT_TYPES);
    const t = subagentTask(s, this.project, agentType);
    return {
      name: 'Task',
      input: { description: t.description, prompt: t.prompt, subagent_type: agentType },
      task: { type: agentType, description: t.description, prompt: t.prompt, scenario: s },
    };
  }

  // ------------------------------------------------------------------ subagents

  /** A subagent's whole run: its own transcript, progress lines in the main one, the Task result. */
  private runTask(task: NonNullable<Call['task']>, toolUseId: string): Outcome {
    const startMs = this.ms;
    const agentId = this.newAgentId();
    const system = this.rng.int(6_000, 11_000);
    const sink = new Sink(true, agentId, task.type === 'Explore' ? HAIKU : this.o.model, {
      context: system,
      cached: 0,
      system,
      shared: system - this.rng.int(500, 2_000),
      ttlMs: 300_000,
      lastMs: 0,
    });
    this.push(sink, this.userLine(sink, task.prompt));
    const steps = this.planSubagent(task.scenario, task.type);
    let toolCount = 0;
    let copies = 0;
    let lastUsage: Json = {};
    const mainParent = this.main.last;
    for (const step of steps) {
      toolCount += step.calls.length;
      this.runStep(sink, step, (w) => {
        lastUsage = w.message.usage as Json;
        if (copies > 0 && !this.rng.bool(0.5)) return;
        copies++;
        this.push(
          this.main,
          this.agentProgressLine(w, task, agentId, toolUseId, mainParent),
          false,
        );
      });
    }
    const report = steps[steps.length - 1]!.text ?? '';
    if (this.keepSubagents) {
      this.subagents.push({
        fileId: `agent-${agentId}`,
        agentId,
        content: sink.lines.join(''),
        meta: { agentType: task.type, description: task.description, toolUseId },
      });
    }
    return this.taskOutcome(task, agentId, report, {
      durationMs: this.ms - startMs,
      toolCount,
      lastUsage,
    });
  }

  private newAgentId(): string {
    let agentId = hex(this.rng, 7);
    while (this.agentIds.has(agentId)) agentId = hex(this.rng, 7);
    this.agentIds.add(agentId);
    return agentId;
  }

  /** The main transcript's copy of a subagent's assistant line (Claude Code's agent_progress). */
  private agentProgressLine(
    w: Written,
    task: NonNullable<Call['task']>,
    agentId: string,
    toolUseId: string,
    mainParent: string | null,
  ): Json {
    const ts = this.stamp(1, 40);
    return {
      parentUuid: mainParent,
      isSidechain: false,
      userType: 'external',
      cwd: this.o.cwd,
      sessionId: this.o.sessionId,
      version: this.o.version,
      gitBranch: this.o.gitBranch,
      type: 'progress',
      data: {
        type: 'agent_progress',
        message: {
          type: 'assistant',
          message: w.message,
          requestId: w.requestId,
          uuid: w.uuid,
          timestamp: w.timestamp,
        },
        normalizedMessages: [],
        prompt: task.prompt,
        agentId,
      },
      toolUseID: `agent_msg_01${base62(this.rng, 22)}`,
      parentToolUseID: toolUseId,
      uuid: uuid4(this.rng),
      timestamp: ts,
    };
  }

  /** The Task call's result: the subagent's report and its totals. */
  private taskOutcome(
    task: NonNullable<Call['task']>,
    agentId: string,
    report: string,
    run: { durationMs: number; toolCount: number; lastUsage: Json },
  ): Outcome {
    const u = run.lastUsage as {
      input_tokens?: number;
      cache_read_input_tokens?: number;
      cache_creation_input_tokens?: number;
      output_tokens?: number;
    };
    return {
      content: [
        { type: 'text', text: report },
        {
          type: 'text',
          text: `agentId: ${agentId} (for resuming to continue this agent's work if needed)`,
        },
      ],
      isError: false,
      toolUseResult: {
        status: 'completed',
        prompt: task.prompt,
        agentId,
        content: [{ type: 'text', text: report }],
        totalDurationMs: run.durationMs,
        totalTokens:
          (u.input_tokens ?? 0) +
          (u.cache_read_input_tokens ?? 0) +
          (u.cache_creation_input_tokens ?? 0) +
          (u.output_tokens ?? 0),
        totalToolUseCount: run.toolCount,
        usage: run.lastUsage,
      },
      durationMs: this.rng.int(40, 400),
    };
  }

  private planSubagent(s: Scenario, type: string): Step[] {
    const rng = this.rng;
    const p = this.project;
    const hits = grep(p, s.symbol);
    const callers = grepFiles(p, s.symbol).filter((f) => f !== s.file && f !== s.testFile);
    if (type === 'Plan') {
      return [
        {
          text: `I'll read the implementation and its tests before proposing anything.`,
          calls: [this.read(s.file), this.read(s.testFile)],
        },
        {
          text: `## Plan\n\n**Problem:** ${s.problem}.\n\n**Cause:** ${s.cause}\n\n**Steps:**\n1. Add a regression test to \`${s.testFile}\` that reproduces the report (it should fail on the current code with \`${s.error}\`).\n2. In \`${s.file}\`, ${s.fixDescription}.\n3. Run \`${p.testCommand(s.testFile)}\`, then the type checker.\n\n**Risk:** low. ${s.compat}`,
          calls: [],
        },
      ];
    }
    const steps: Step[] = [
      {
        text: rng.bool(0.5) ? `Searching for references to \`${s.symbol}\`.` : undefined,
        calls: [this.grepCall(s.symbol, 'content')],
      },
    ];
    const toRead = callers.length ? callers.slice(0, rng.int(1, 2)) : [s.file];
    steps.push({ calls: toRead.map((f) => this.read(f)) });
    if (rng.bool(0.4)) {
      steps.push({
        calls: [
          this.bash(`git log --oneline -5 -- ${s.file}`, `Recent history of ${s.file}`, () =>
            this.gitLog(s, 5),
          ),
        ],
      });
    }
    const list = hits
      .filter((h) => h.file !== s.file)
      .slice(0, 8)
      .map((h) => `- \`${h.file}:${h.line}\` - \`${h.text.trim()}\``)
      .join('\n');
    const report =
      type === 'Explore'
        ? `Found ${hits.filter((h) => h.file !== s.file).length} references to \`${s.symbol}\` outside its definition:\n\n${list}\n\n${callers.length ? `The production callers are ${callers.map((c) => `\`${c}\``).join(', ')}.` : 'Only the tests use it directly.'} ${s.compat}`
        : `I checked the modules that do similar work (${toRead.map((f) => `\`${f}\``).join(', ')}). None of them has the same problem: the pattern in \`${s.file}\` is local to \`${s.symbol}\`.\n\nReferences for context:\n${list}`;
    steps.push({ text: report, calls: [] });
    return steps;
  }

  private gitLog(s: Scenario, n: number): string {
    const subjects = [
      `refactor: extract ${s.symbol} into ${s.file}`,
      'chore(deps): bump dev dependencies',
      `feat: use ${s.symbol} in the invoices service`,
      'test: speed up the suite by sharing fixtures',
      'fix: handle empty responses from the payments provider',
      'docs: document configuration variables',
    ];
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(`${hex(this.rng, 7)} ${subjects[i % subjects.length]}`);
    return out.join('\n') + '\n';
  }

  // ------------------------------------------------------------------ turn plans

  private t(pool: readonly ((s: Scenario, p: Project) => string)[], s = this.current): string {
    return this.rng.pick(pool)(s, this.project);
  }

  /** A bug fixed test first: survey, read, regression test, failing run, fix, checks, summary. */
  private planBugfix(tasks: number, quirk: boolean): Plan {
    const rng = this.rng;
    const p = this.project;
    const s = (this.current = this.scenarios.next());
    const original = fileContent(p, s.file);
    const showcase = this.o.editsThreeFiles && this.turnIndex === 1; // the first turn (counted already)
    const test = this.regressionTest(s, showcase);
    this.currentTestFile = test.file;
    this.addedTests.set(s.key, { file: test.file, tests: countTests(p, test.content) });
    const tests = countTests(p, test.content);

    const steps: Step[] = [];
    const useTodos = rng.bool(0.3);
    const todoItems = [
      { content: `Reproduce the bug with a regression test`, activeForm: 'Reproducing the bug' },
      { content: `Fix ${s.symbol} in ${s.file}`, activeForm: `Fixing ${s.symbol}` },
      { content: 'Run the tests and the type checker', activeForm: 'Running the checks' },
    ];
    steps.push(this.bugfixOpening(s, quirk));
    if (useTodos) steps.push({ calls: [this.todo(todoItems, 0, -1)] });
    steps.push(...this.bugfixReading(s, tasks), ...this.docsLookup(s));
    steps.push({
      thinking: this.t(THINK_CAUSE),
      text: rng.bool(0.7) ? this.t(TEXT_CAUSE) : undefined,
      calls: [test.call],
    });
    if (useTodos && rng.bool(0.5)) steps.push({ calls: [this.todo(todoItems, 1, 0)] });
    const failStart = () => this.ms;
    steps.push({
      text: this.t(TEXT_RUN_FAIL),
      calls: [
        this.bash(
          p.testCommand(test.file),
          'Run the new regression test',
          () => failingTestOutput(p, s, test.file, test.content, this.o.cwd, failStart(), rng),
          1,
          [900, 9_000],
        ),
      ],
    });
    steps.push(...this.bugfixEdits(s, original));
    if (showcase) steps.push(...this.thirdFileSteps(s));
    steps.push(...this.bugfixChecks(test.file, tests));
    if (useTodos) steps.push({ calls: [this.todo(todoItems, 3, 1)] });
    steps.push({
      thinking: rng.bool(0.3)
        ? 'Everything passes. Let me summarize the change for the user.'
        : undefined,
      text: rng.pick(FINAL_SUMMARY)(s, p, test.file, tests),
      calls: [],
    });
    return { prompt: this.bugfixPrompt(s, quirk), steps };
  }

  /** The regression test: a new file (always in the three-file showcase) or one more test. */
  private regressionTest(
    s: Scenario,
    showcase: boolean,
  ): { file: string; content: string; call: Call } {
    const p = this.project;
    // The draw happens either way, so the option changes nothing else in the session.
    const writeNew = this.rng.bool(0.3) || showcase;
    if (!writeNew) {
      const call = this.edit(
        s.testFile,
        fileContent(p, s.testFile),
        s.testAnchor,
        s.testAnchor + s.regressionTest,
      );
      return { file: s.testFile, content: patchedTest(p, s), call };
    }
    const head = fileContent(p, s.testFile);
    const cut = p.lang === 'ts' ? head.indexOf('\ndescribe(') : head.indexOf('\ndef test_');
    const header = head.slice(0, cut < 0 ? head.length : cut + 1);
    const file =
      p.lang === 'ts'
        ? s.testFile.replace(/\.test\.ts$/, '.regression.test.ts')
        : s.testFile.replace(/test_(\w+)\.py$/, 'test_$1_regression.py');
    const content =
      p.lang === 'ts'
        ? `${header}describe('${s.testName.split(' > ')[0]}', () => {\n${s.regressionTest.replace(/^\n+/, '')}\n});\n`
        : `${header}${s.regressionTest.replace(/^\n+/, '\n')}\n`;
    return { file, content, call: this.write(file, content) };
  }

  /** The first step: thinking, a line of text (with the quirks' cut emoji), a grep. */
  private bugfixOpening(s: Scenario, quirk: boolean): Step {
    const rng = this.rng;
    let think = this.t(THINK_START);
    if (rng.bool(0.6)) think += ` ${this.t(THINK_EXTRA)}`;
    let text = quirk || rng.bool(0.75) ? this.t(TEXT_START) : undefined;
    // A streamed emoji cut in half: the high surrogate of U+1F50D without its partner.
    if (quirk) text = `${text ?? ''} \ud83d`;
    const first: Call[] = [this.grepCall(s.symbol, 'files_with_matches')];
    if (rng.bool(0.4)) first.push(this.glob(this.project.testGlob));
    return { thinking: rng.bool(0.85) ? think : undefined, text, calls: first };
  }

  /** Reading the source and its test (sometimes a mistyped path first), beside the subagents. */
  private bugfixReading(s: Scenario, tasks: number): Step[] {
    const steps: Step[] = [];
    if (this.rng.bool(0.15)) {
      const typo = s.file.replace(/(\.\w+)$/, 's$1');
      steps.push({ calls: [this.readMissing(typo, s.file.split('/').pop()!)] });
    }
    const reads = [this.read(s.file), this.read(s.testFile)];
    if (tasks > 0) {
      const taskCalls = Array.from({ length: tasks }, () => this.taskCall(s));
      steps.push({
        text:
          tasks > 1
            ? `I'll run ${tasks} agents in parallel to survey the codebase while I read the implementation.`
            : taskCalls[0]!.task!.type === 'Explore'
              ? "I'll have a subagent map the other call sites while I read the implementation."
              : taskCalls[0]!.task!.type === 'Plan'
                ? "I'll ask a planning agent for a second opinion on the fix while I read the code."
                : "I'll have an agent check the rest of the codebase for the same mistake while I read the implementation.",
        calls: [...taskCalls, reads[0]!],
      });
      steps.push({ calls: [reads[1]!] });
    } else {
      steps.push({ calls: reads });
    }
    return steps;
  }

  /** Sometimes a look at the documentation, whose first URL may be outdated. */
  private docsLookup(s: Scenario): Step[] {
    const rng = this.rng;
    if (!rng.bool(0.2)) return [];
    const fail = rng.bool(0.3);
    const steps: Step[] = [
      {
        thinking: `Before relying on my memory of the semantics, let me check the documentation: ${s.docsPrompt}`,
        calls: [this.webFetch(s, fail)],
      },
    ];
    if (fail) {
      steps.push({
        text: 'That URL is outdated. Trying the current page instead:',
        calls: [this.webFetch(s, false)],
      });
    }
    return steps;
  }

  /** The fix, sometimes after an Edit whose indentation did not match and a re-read. */
  private bugfixEdits(s: Scenario, original: string): Step[] {
    const rng = this.rng;
    const fixThink = rng.bool(0.6) ? this.t(THINK_AFTER_FAIL) : undefined;
    if (!rng.bool(0.15)) {
      return [
        {
          thinking: fixThink,
          text: this.t(TEXT_FIX),
          calls: [this.edit(s.file, original, s.fix.old, s.fix.new)],
        },
      ];
    }
    const mangled = s.fix.old.replace(/^( +)/gm, '$1  ');
    const steps: Step[] = [
      {
        thinking: fixThink,
        text: this.t(TEXT_FIX),
        calls: [this.edit(s.file, original, mangled, s.fix.new, true)],
      },
    ];
    const line = lineOf(original, s.fix.old);
    steps.push({
      thinking:
        "The indentation in my old_string doesn't match the file. Let me re-read those exact lines.",
      calls: [this.read(s.file, Math.max(1, line - 3), s.fix.old.split('\n').length + 6)],
    });
    steps.push({ calls: [this.edit(s.file, original, s.fix.old, s.fix.new)] });
    return steps;
  }

  /** The focused tests passing, then the type check. */
  private bugfixChecks(testFile: string, tests: number): Step[] {
    const rng = this.rng;
    const p = this.project;
    return [
      {
        text: this.t(TEXT_RUN_PASS),
        calls: [
          this.bash(
            p.testCommand(testFile),
            'Run the focused tests',
            () => passingTestOutput(p, [{ file: testFile, tests }], this.o.cwd, this.ms, rng),
            0,
            [900, 9_000],
          ),
        ],
      },
      {
        thinking: rng.bool(0.5) ? this.t(THINK_AFTER_PASS) : undefined,
        calls: [
          this.bash(p.typecheckCommand, 'Type check', () => typecheckOk(p), 0, [2_500, 14_000]),
        ],
      },
    ];
  }

  /** One of the scenario's prompts, now and then with a screenshot attached. */
  private bugfixPrompt(s: Scenario, quirk: boolean): string | Json[] {
    const rng = this.rng;
    let prompt: string | Json[] = rng.pick(s.prompts);
    if (!quirk && rng.bool(0.08)) {
      prompt = [
        { type: 'text', text: `${prompt}\n\nScreenshot of the error attached.` },
        {
          type: 'image',
          source: { type: 'base64', media_type: 'image/png', data: SMALL_PNG_BASE64 },
        },
      ];
    }
    return prompt;
  }

  private planVerify(): Plan {
    const rng = this.rng;
    const p = this.project;
    const s = this.current;
    const files = allTestFiles(p, [...this.addedTests.values()]);
    const total = files.reduce((n, f) => n + f.tests, 0);
    const steps: Step[] = [
      {
        text: rng.bool(0.6) ? 'Running the full suite first:' : undefined,
        calls: [
          this.bash(
            p.fullTestCommand,
            'Run the full test suite',
            () => passingTestOutput(p, files, this.o.cwd, this.ms, rng),
            0,
            [4_000, 40_000],
          ),
        ],
      },
      {
        calls: [
          this.bash(p.typecheckCommand, 'Type check', () => typecheckOk(p), 0, [2_500, 14_000]),
        ],
      },
    ];
    const lintFails = rng.bool(0.3);
    if (lintFails) {
      steps.push({
        calls: [
          this.bash(p.lintCommand, 'Lint', () => lintFailure(p, s, this.o.cwd), 1, [1_500, 8_000]),
        ],
      });
      steps.push({
        text: 'One lint error in the test file, and it is auto-fixable:',
        calls: [
          this.bash(p.lintFixCommand, 'Apply lint fixes', () => lintFixed(p), 0, [1_500, 8_000]),
        ],
      });
    } else {
      steps.push({
        calls: [this.bash(p.lintCommand, 'Lint', () => lintOk(p), 0, [1_500, 8_000])],
      });
    }
    steps.push({
      text: `Everything is green:\n\n- **Tests:** ${total} passed in ${files.length} files\n- **Type check:** clean\n- **Lint:** ${lintFails ? 'one import-style error in the test file, fixed with `--fix`' : 'clean'}`,
      calls: [],
    });
    return { prompt: rng.pick(VERIFY_PROMPTS), steps };
  }

  private planCommit(): Plan {
    const rng = this.rng;
    const p = this.project;
    const s = this.current;
    const testFile = this.currentTestFile;
    const sha = hex(rng, 7);
    const plus = s.fix.new.split('\n').length + s.regressionTest.split('\n').length;
    const minus = s.fix.old.split('\n').length;
    const steps: Step[] = [
      {
        calls: [
          this.bash('git status --short && git diff --stat', 'Show the working tree changes', () =>
            diffStat(p, s, testFile),
          ),
        ],
      },
      {
        calls: [
          this.bash(
            `git add ${s.file} ${testFile} && git commit -m "${s.commitMessage}"`,
            'Commit the fix',
            () =>
              `[${this.o.gitBranch} ${sha}] ${s.commitMessage}\n 2 files changed, ${plus} insertions(+), ${minus} deletion${minus === 1 ? '' : 's'}(-)\n${testFile === s.testFile ? '' : ` create mode 100644 ${testFile}\n`}`,
            0,
            [200, 1_500],
          ),
        ],
      },
      {
        text: `Committed as \`${sha}\` on \`${this.o.gitBranch}\`:\n\n> ${s.commitMessage}\n\n2 files changed (${s.file}, ${testFile}).`,
        calls: [],
      },
    ];
    return { prompt: rng.pick(COMMIT_PROMPTS), steps };
  }

  private planQuestion(): Plan {
    const s = this.current;
    const qa = this.rng.pick(QUESTIONS);
    const callers = grepFiles(this.project, s.symbol).filter(
      (f) => f !== s.file && !/test/.test(f),
    );
    return {
      prompt: qa.q(s, this.project),
      steps: [
        {
          thinking: this.rng.bool(0.6)
            ? `The user asks a follow-up about the ${s.symbol} change. I already know the call sites from the search earlier, so I can answer directly.`
            : undefined,
          text: qa.a(s, this.project, callers),
          calls: [],
        },
      ],
    };
  }

  private planExplain(tasks: number): Plan {
    const s = this.current;
    const p = this.project;
    const hits = grep(p, s.symbol).filter((h) => h.file !== s.file);
    const callers = [...new Set(hits.map((h) => h.file))].filter((f) => !/test/.test(f));
    const first: Call[] = [this.grepCall(s.symbol, 'content')];
    for (let i = 0; i < tasks; i++) first.push(this.taskCall(s, i === 0 ? 'Explore' : undefined));
    const steps: Step[] = [
      {
        text:
          tasks > 0
            ? `I'll search directly and also have ${tasks === 1 ? 'an agent' : `${tasks} agents`} look at how each caller uses it.`
            : undefined,
        calls: first,
      },
    ];
    if (callers.length) steps.push({ calls: [this.read(callers[0]!)] });
    const list = hits
      .slice(0, 10)
      .map((h) => `- \`${h.file}:${h.line}\`: \`${h.text.trim()}\``)
      .join('\n');
    steps.push({
      text: `\`${s.symbol}\` is defined in \`${s.file}\`. Other references:\n\n${list || '- none outside the tests'}\n\n${callers.length ? `So the change affects ${callers.map((c) => `\`${c}\``).join(', ')} at runtime; everything else is tests.` : 'Only tests reference it, so the blast radius is small.'} ${s.compat}`,
      calls: [],
    });
    return { prompt: this.rng.pick(EXPLAIN_PROMPTS)(s, p), steps };
  }

  // ------------------------------------------------------------------ turns

  /** Writes one user→assistant exchange with `tasks` Task calls. */
  runTurn(tasks = 0): void {
    const i = this.turnIndex++;
    const rng = this.rng;
    const quirk = this.o.quirks && i === 0;
    let kind: TurnKind = 'bugfix';
    if (i > 0) {
      const r = rng.next();
      kind =
        r < 0.4
          ? 'bugfix'
          : r < 0.55
            ? 'verify'
            : r < 0.7
              ? 'question'
              : r < 0.82
                ? 'commit'
                : 'explain';
      if (tasks > 0 && kind !== 'bugfix') kind = 'explain';
    }
    const plan =
      kind === 'bugfix'
        ? this.planBugfix(tasks, quirk)
        : kind === 'verify'
          ? this.planVerify()
          : kind === 'question'
            ? this.planQuestion()
            : kind === 'commit'
              ? this.planCommit()
              : this.planExplain(tasks);

    if (i > 0) this.ms += rng.bool(0.1) ? rng.int(360_000, 2_700_000) : rng.int(15_000, 240_000);
    this.editedThisTurn = new Set();
    this.promptUuid = uuid4(rng);
    this.snapshot(false);
    const prompt = this.userLine(this.main, plan.prompt, {}, this.promptUuid);
    // A pretty-printed entry, as in hand-edited or very old files.
    this.main.lines.push((quirk ? JSON.stringify(prompt, null, 2) : JSON.stringify(prompt)) + '\n');
    this.main.last = this.promptUuid;
    const promptMs = this.ms;
    if (quirk) this.apiErrorLine();

    let lastAssistant = '';
    for (const step of plan.steps) {
      this.runStep(this.main, step);
      lastAssistant = this.main.last ?? lastAssistant;
    }
    this.system('turn_duration', { durationMs: this.ms - promptMs });

    if (i === 0) {
      this.main.lines.unshift(
        JSON.stringify({ type: 'summary', summary: this.current.title, leafUuid: lastAssistant }) +
          '\n',
      );
      this.localCommand();
      if (quirk) {
        const ts = this.stamp(50, 400);
        this.push(
          this.main,
          {
            type: CLAUDE_CODE_QUIRK_UNKNOWN_TYPE,
            tag: 'needs-review',
            sessionId: this.o.sessionId,
            timestamp: ts,
          },
          false,
        );
      }
    } else if (rng.bool(0.06)) {
      this.localCommand();
    }
  }

  private apiErrorLine(): void {
    const ts = this.stamp(800, 3_000);
    const text =
      'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":null}';
    this.push(
      this.main,
      this.entry(
        this.main,
        'assistant',
        {
          message: {
            id: null,
            container: null,
            model: '<synthetic>',
            role: 'assistant',
            stop_reason: 'stop_sequence',
            stop_sequence: '',
            type: 'message',
            usage: {
              input_tokens: 0,
              output_tokens: 0,
              cache_creation_input_tokens: 0,
              cache_read_input_tokens: 0,
              server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
              service_tier: null,
              cache_creation: { ephemeral_1h_input_tokens: 0, ephemeral_5m_input_tokens: 0 },
            },
            content: [{ type: 'text', text }],
          },
          isApiErrorMessage: true,
        },
        uuid4(this.rng),
        ts,
      ),
    );
  }

  private localCommand(): void {
    this.ms += this.rng.int(4_000, 30_000);
    const t = this.main.tok;
    const pct = Math.round((t.context / 200_000) * 100);
    const cmd = this.rng.pick(['context', 'model', 'cost'] as const);
    this.system('local_command', {
      content: `<command-name>/${cmd}</command-name>\n            <command-message>${cmd}</command-message>\n            <command-args></command-args>`,
      level: 'info',
    });
    const out =
      cmd === 'context'
        ? `Context Usage\n${this.o.model} · ${Math.round(t.context / 1000)}k/200k tokens (${pct}%)\n⛁ System prompt: ${(t.system / 1000).toFixed(1)}k tokens\n⛁ Messages: ${Math.round((t.context - t.system) / 1000)}k tokens\n⛶ Free space: ${Math.max(0, 200 - Math.round(t.context / 1000))}k`
        : cmd === 'model'
          ? `Kept model as ${this.o.model}`
          : `Total cost:            $${(t.context / 120_000).toFixed(2)}\nTotal duration (API):  ${Math.round((this.ms - this.o.startMs) / 60_000)}m\nTotal code changes:    ${this.backups.size * 9} lines added, ${this.backups.size * 3} lines removed`;
    this.system('local_command', {
      content: `<local-command-stdout>${out}</local-command-stdout>`,
      level: 'info',
    });
  }

  /** A compact_boundary system line followed by the isCompactSummary user line. */
  compact(): void {
    const t = this.main.tok;
    const preTokens = t.context;
    this.ms += this.rng.int(20_000, 90_000);
    const ts = this.stamp(1, 10);
    const boundary = this.entry(
      this.main,
      'system',
      {
        subtype: 'compact_boundary',
        content: 'Conversation compacted',
        isMeta: false,
        level: 'info',
        compactMetadata: { trigger: 'auto', preTokens },
      },
      uuid4(this.rng),
      ts,
    );
    boundary.logicalParentUuid = this.main.last;
    boundary.parentUuid = null;
    this.push(this.main, boundary);
    const s = this.current;
    const summary = `This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\nAnalysis:\n${COMPACT_ANALYSIS}\n\nSummary:\n1. Primary Request and Intent:\n   The user asked to fix bugs in ${this.project.name}; the most recent one: ${s.problem}.\n\n2. Key Technical Concepts:\n   - ${s.cause}\n   - Regression tests next to the existing tests, focused runs with \`${this.project.testCommand(s.testFile)}\`\n\n3. Files and Code Sections:\n   - ${s.file}\n     - ${s.fixDescription}\n   - ${this.currentTestFile}\n     - regression test \`${s.testName}\`\n\n4. Errors and fixes:\n   - ${s.error}: fixed by the change above.\n\n5. Pending Tasks:\n   - None beyond what the user asks next.\n\n6. Current Work:\n   ${s.title}; the focused tests and the type check pass.\n\nPlease continue the conversation from where we left it off without asking the user any further questions. Continue with the last task that you were asked to work on.`;
    this.push(
      this.main,
      this.userLine(this.main, summary, {
        isVisibleInTranscriptOnly: true,
        isCompactSummary: true,
      }),
    );
    t.context = t.system + estimateTokens(summary);
    t.cached = Math.min(t.cached, t.system);
    this.compactions++;
  }

  /**
   * Without compaction a real session would hit the context limit; keep the numbers
   * plausible by dropping old tool results silently (like Claude Code's micro-compaction).
   */
  trimContextIfNeeded(): void {
    const t = this.main.tok;
    if (t.context > 175_000) {
      t.context = t.system + this.rng.int(30_000, 60_000);
      t.cached = Math.min(t.cached, t.system);
    }
  }

  get contextTokens(): number {
    return this.main.tok.context;
  }

  /** The quirks tail: one more prompt and the first line of its response, cut short. */
  truncatedTail(): void {
    const rng = this.rng;
    this.ms += rng.int(15_000, 120_000);
    this.editedThisTurn = new Set();
    this.promptUuid = uuid4(rng);
    this.snapshot(false);
    this.push(this.main, this.userLine(this.main, rng.pick(VERIFY_PROMPTS), {}, this.promptUuid));
    const ts = this.stamp(1_500, 6_000);
    const message = {
      model: this.o.model,
      id: `msg_01${base62(rng, 22)}`,
      type: 'message',
      role: 'assistant',
      content: [
        {
          type: 'thinking',
          thinking: `The user wants the full suite, the type check and the linter run. I'll start with ${this.project.fullTestCommand} since it takes longest, then run the others.`,
          signature: `Eu${base64Blob(rng, 280, 1_100)}`,
        },
      ],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...this.usage(this.main), output_tokens: rng.int(1, 12) },
    };
    const line = JSON.stringify(
      this.entry(
        this.main,
        'assistant',
        { message, requestId: `req_011C${base62(rng, 21)}` },
        uuid4(rng),
        ts,
      ),
    );
    let cut = Math.floor(line.length * (0.35 + rng.next() * 0.45));
    const code = line.charCodeAt(cut - 1);
    if (code >= 0xd800 && code <= 0xdbff) cut--;
    this.main.lines.push(line.slice(0, cut));
  }
}

/** Spreads `count` Task calls over `turns` turns (several per turn when count > turns). */
export function taskSchedule(turns: number, count: number): number[] {
  const perTurn = new Array<number>(turns).fill(0);
  for (let j = 0; j < count; j++) {
    const t = Math.min(turns - 1, Math.floor((j * turns) / count));
    perTurn[t] = (perTurn[t] ?? 0) + 1;
  }
  return perTurn;
}

export function generateClaudeCodeTranscript(
  opts: ClaudeCodeTranscriptOptions,
): GeneratedTranscript {
  const turns = Math.max(1, Math.floor(opts.turns));
  const session = new ClaudeSession(opts, true);
  const schedule = taskSchedule(turns, Math.max(0, Math.floor(opts.subagents ?? 0)));
  const compactAt = opts.compaction ? (turns >= 2 ? Math.floor(turns / 2) : 1) : -1;
  for (let i = 0; i < turns; i++) {
    if (i === compactAt) session.compact();
    else session.trimContextIfNeeded();
    session.runTurn(schedule[i] ?? 0);
  }
  if (compactAt === turns) session.compact();
  if (session.o.quirks) session.truncatedTail();
  return { main: session.main.lines.join(''), subagents: session.subagents };
}

/** The first and last non-empty lines of a text, when each occurs once in it. */
function uniqueEnds(text: string): [string, string] | undefined {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  if (lines.length < 4) return undefined;
  const first = lines[0]!;
  const last = lines.at(-1)!;
  const once = (l: string) => text.indexOf(l) === text.lastIndexOf(l);
  return first !== last && once(first) && once(last) ? [first, last] : undefined;
}
