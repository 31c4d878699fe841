/**
 * Deterministic Codex CLI rollout files (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`).
 *
 * Current format: `{timestamp, type, payload}` lines — session_meta, turn_context,
 * response_item (message, reasoning, function_call, function_call_output), event_msg
 * (user_message, agent_message, agent_reasoning, token_count) and compacted. token_count
 * totals are cumulative and every token_count line is written twice in a row (0.9x); the
 * first one of a file has `info: null`.
 *
 * Legacy format (before ~Sept 2025): no envelope and no token counts: a first line
 * `{id, timestamp, instructions}`, then bare response items, with `{"record_type":"state"}`
 * markers after the header and after each turn.
 */
import { SeededRandom, ShuffledDeck } from '../random.ts';
import {
  pickProject,
  QUESTIONS,
  VERIFY_PROMPTS,
  allTestFiles,
  countTests,
  base62,
  base64Blob,
  estimateTokens,
  failingTestOutput,
  fileContent,
  grep,
  grepFiles,
  hex,
  linesOf,
  nlNumbered,
  passingTestOutput,
  patchedTest,
  typecheckOk,
  lintOk,
  type Project,
  type Scenario,
} from './text.ts';

export interface CodexTranscriptOptions {
  seed: number;
  sessionId: string;
  cwd: string;
  model: string;
  /** ISO timestamp of the first line. */
  startedAt: string;
  /** Values below 1 count as 1. */
  turns: number;
  /** Default '0.98.0'. */
  cliVersion?: string;
  /** Include one `compacted` line in the middle of the session (ignored with `legacy`). */
  compaction?: boolean;
  /** Pre-Sept-2025 file: no envelope, no token counts. */
  legacy?: boolean;
}

type Json = Record<string, unknown>;

interface Usage {
  input_tokens: number;
  cached_input_tokens: number;
  output_tokens: number;
  reasoning_output_tokens: number;
  total_tokens: number;
}

interface CodexCall {
  name: 'shell' | 'apply_patch' | 'update_plan';
  args: Json;
  run: () => { output: string; exitCode: number; seconds: number } | string;
}

interface CodexStep {
  reasoning?: string;
  preamble?: string;
  call?: CodexCall;
  final?: string;
}

const REASON_SEARCH = [
  (s: Scenario) =>
    `**Locating \`${s.symbol}\`**\n\nI'm searching the repository for the definition and every use of \`${s.symbol}\` before changing anything.`,
  (s: Scenario) =>
    `**Investigating the report**\n\nThe user says ${s.problem}. I'll find where \`${s.symbol}\` is implemented and which tests cover it.`,
];
const REASON_READ = [
  (s: Scenario) =>
    `**Reading the implementation**\n\nI'm opening \`${s.file}\` to see how \`${s.symbol}\` works today.`,
  (s: Scenario) =>
    `**Inspecting ${s.file.split('/').pop()}**\n\nNext I'm checking the implementation and the existing tests side by side.`,
];
const REASON_CAUSE = [
  (s: Scenario) =>
    `**Identifying the root cause**\n\nThe problem is clear now: ${s.cause} I'll add a regression test first, then ${s.fixDescription}.`,
  (s: Scenario) =>
    `**Planning the fix**\n\n${s.cause[0]!.toUpperCase()}${s.cause.slice(1)} A failing test will confirm it before I patch the code.`,
];
const REASON_FIX = [
  (s: Scenario) =>
    `**Applying the fix**\n\nThe new test fails with \`${s.error}\`, as expected. Now I'll ${s.fixDescription}.`,
  () =>
    '**Patching the code**\n\nThe failure reproduces the bug, so I can apply the minimal change now.',
];
const REASON_VERIFY = [
  () => '**Verifying**\n\nRe-running the focused tests to confirm the fix.',
  () =>
    '**Running tests again**\n\nChecking that the regression test passes and nothing else broke.',
];

export function generateCodexTranscript(opts: CodexTranscriptOptions): string {
  return new CodexWriter(opts).run();
}

/** The developer message the CLI sends first (sandbox and approval policy). */
const PERMISSIONS_TEXT =
  '<permissions instructions>\nFilesystem sandboxing defines which files can be read or written. `sandbox_mode` is `workspace-write`: The sandbox permits reading files, and editing files in `cwd` and `writable_roots`. Editing files in other directories requires approval. Network access is restricted.\nApprovals are your mechanism to get user consent to run shell commands without the sandbox. `approval_policy` is `on-request`: Commands will be run in the sandbox by default, and you can specify in your tool call if you want to escalate a command to run without sandboxing.\n</permissions instructions>';

class CodexWriter {
  private readonly rng: SeededRandom;
  private readonly o: Required<Omit<CodexTranscriptOptions, 'cliVersion'>> & { cliVersion: string };
  private readonly p: Project;
  private readonly lines: string[] = [];
  private ms: number;
  private started = false;
  private context: number;
  private cached = 0;
  private readonly total: Usage = {
    input_tokens: 0,
    cached_input_tokens: 0,
    output_tokens: 0,
    reasoning_output_tokens: 0,
    total_tokens: 0,
  };
  private primary: number;
  private secondary: number;
  private readonly contextWindow: number;
  private current: Scenario;
  private readonly scenarios: ShuffledDeck<Scenario>;
  private readonly prompts: string[] = [];

  constructor(opts: CodexTranscriptOptions) {
    const startMs = Date.parse(opts.startedAt);
    if (!Number.isFinite(startMs)) throw new RangeError(`invalid startedAt: ${opts.startedAt}`);
    this.o = {
      seed: opts.seed,
      sessionId: opts.sessionId,
      cwd: opts.cwd.replace(/\/+$/, '') || '/',
      model: opts.model,
      startedAt: opts.startedAt,
      turns: Math.max(1, Math.floor(opts.turns)),
      cliVersion: opts.cliVersion ?? '0.98.0',
      compaction: (opts.compaction ?? false) && !(opts.legacy ?? false),
      legacy: opts.legacy ?? false,
    };
    this.ms = startMs;
    this.rng = new SeededRandom(opts.seed ^ 0xc0de);
    this.p = pickProject(this.rng, this.o.cwd);
    this.scenarios = new ShuffledDeck(this.rng, this.p.scenarios);
    this.context = this.rng.int(9_000, 14_000);
    this.primary = this.rng.int(0, 35);
    this.secondary = this.rng.int(0, 20);
    this.contextWindow = 272_000;
    this.current = this.scenarios.next();
  }

  // ------------------------------------------------------------------ writing

  private stamp(min: number, max: number): string {
    if (!this.started) this.started = true;
    else this.ms += Math.max(1, this.rng.int(min, max));
    return new Date(this.ms).toISOString();
  }

  private line(type: string, payload: Json, min = 2, max = 60): void {
    if (this.o.legacy) {
      if (type === 'response_item') this.lines.push(JSON.stringify(payload) + '\n');
      return;
    }
    const timestamp = this.stamp(min, max);
    this.lines.push(JSON.stringify({ timestamp, type, payload }) + '\n');
  }

  private item(payload: Json, min = 2, max = 60): void {
    this.line('response_item', payload, min, max);
  }

  private event(payload: Json, min = 1, max = 20): void {
    this.line('event_msg', payload, min, max);
  }

  private tokenCount(info: { last: Usage } | null): void {
    if (this.o.legacy) return;
    const timestamp = this.stamp(1, 30);
    const resetsBase = Math.floor(Date.parse(this.o.startedAt) / 1000);
    const payload = {
      type: 'token_count',
      info: info
        ? {
            total_token_usage: { ...this.total },
            last_token_usage: info.last,
            model_context_window: this.contextWindow,
          }
        : null,
      rate_limits: {
        primary: {
          used_percent: Math.round(this.primary * 10) / 10,
          window_minutes: 300,
          resets_at: resetsBase + 4 * 3600 + 1_117,
        },
        secondary: {
          used_percent: Math.round(this.secondary * 10) / 10,
          window_minutes: 10_080,
          resets_at: resetsBase + 5 * 86_400 + 7_313,
        },
      },
    };
    const text = JSON.stringify({ timestamp, type: 'event_msg', payload }) + '\n';
    // 0.9x writes every token_count event twice.
    this.lines.push(text, text);
  }

  /** Accounts one model request that produced `visible` text/arguments. */
  private request(visible: string, withReasoning: boolean): void {
    const input = this.context;
    const cached = Math.min(input, this.cached);
    const reasoning = withReasoning ? this.rng.int(40, 1_400) : 0;
    const output = estimateTokens(visible) + reasoning + this.rng.int(4, 30);
    const last: Usage = {
      input_tokens: input,
      cached_input_tokens: cached,
      output_tokens: output,
      reasoning_output_tokens: reasoning,
      total_tokens: input + output,
    };
    for (const k of Object.keys(last) as (keyof Usage)[]) this.total[k] += last[k];
    this.cached = input - (input % 64);
    this.context += output - reasoning;
    this.primary = Math.min(100, this.primary + this.rng.next() * 0.8);
    this.secondary = Math.min(100, this.secondary + this.rng.next() * 0.15);
    this.tokenCount({ last });
  }

  private userMessage(text: string, role: 'user' | 'developer' = 'user'): void {
    this.item({ type: 'message', role, content: [{ type: 'input_text', text }] });
    this.context += estimateTokens(text) + 6;
  }

  private reasoning(summary: string): void {
    this.event({ type: 'agent_reasoning', text: summary }, 800, 6_000);
    this.item({
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: summary }],
      content: null,
      encrypted_content: `gAAAAABo${base64Blob(this.rng, 800, 2_600)}`,
    });
  }

  private assistantMessage(text: string): void {
    if (!this.o.legacy) this.event({ type: 'agent_message', message: text }, 300, 3_000);
    this.item(
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] },
      this.o.legacy ? 300 : 1,
      this.o.legacy ? 3_000 : 20,
    );
  }

  /** Writes the function_call, the token_count of the request that produced it, then the output. */
  private runCall(call: CodexCall, visible: string, withReasoning: boolean): void {
    const callId = `call_${base62(this.rng, 24)}`;
    let name: string = call.name;
    let args = call.args;
    if (this.o.legacy && call.name === 'apply_patch') {
      // Legacy CLIs ran apply_patch through the shell tool.
      name = 'shell';
      args = { command: ['apply_patch', call.args.input], workdir: this.o.cwd, timeout: 10_000 };
    }
    const argText = JSON.stringify(args);
    this.item({ type: 'function_call', name, arguments: argText, call_id: callId }, 200, 2_500);
    this.request(visible + argText, withReasoning);
    const result = call.run();
    let output: string;
    if (typeof result === 'string') {
      output = result;
      this.ms += this.rng.int(5, 40);
    } else {
      this.ms += Math.round(result.seconds * 1000);
      output = JSON.stringify({
        output: result.output,
        metadata: { exit_code: result.exitCode, duration_seconds: result.seconds },
      });
    }
    this.item({ type: 'function_call_output', call_id: callId, output }, 1, 30);
    this.context += estimateTokens(output) + 10;
  }

  // ------------------------------------------------------------------ calls

  private shell(
    cmd: string,
    output: () => string,
    exitCode = 0,
    seconds: [number, number] = [0.05, 0.6],
  ): CodexCall {
    const args: Json = { command: ['bash', '-lc', cmd], workdir: this.o.cwd, timeout_ms: 120_000 };
    return {
      name: 'shell',
      args,
      run: () => ({
        output: output(),
        exitCode,
        seconds:
          Math.round((seconds[0] + this.rng.next() * (seconds[1] - seconds[0])) * 1000) / 1000,
      }),
    };
  }

  private patch(file: string, body: string): CodexCall {
    const input = `*** Begin Patch\n*** Update File: ${file}\n@@\n${body}\n*** End Patch\n`;
    return {
      name: 'apply_patch',
      args: { input },
      run: () => ({
        output: `Success. Updated the following files:\nM ${file}\n`,
        exitCode: 0,
        seconds: 0,
      }),
    };
  }

  private plan(steps: string[], done: number): CodexCall {
    return {
      name: 'update_plan',
      args: {
        plan: steps.map((step, i) => ({
          step,
          status: i < done ? 'completed' : i === done ? 'in_progress' : 'pending',
        })),
      },
      run: () => 'Plan updated',
    };
  }

  // ------------------------------------------------------------------ turns

  /** The bug-fix scenario's steps in the order the agent takes them. */
  private bugfix(): { prompt: string; steps: CodexStep[] } {
    const rng = this.rng;
    const p = this.p;
    const s = (this.current = this.scenarios.next());
    const testContent = patchedTest(p, s);
    const tests = countTests(p, testContent);
    const planSteps = ['Reproduce with a regression test', `Fix ${s.symbol}`, 'Run tests'];
    const steps: CodexStep[] = [];
    const usePlan = rng.bool(0.35);
    if (usePlan) steps.push({ call: this.plan(planSteps, 0) });
    steps.push(...this.bugfixReading(s));
    steps.push(...this.bugfixReproduce(s, testContent));
    if (usePlan) steps.push({ call: this.plan(planSteps, 1) });
    steps.push(...this.bugfixFix(s, tests));
    if (usePlan) steps.push({ call: this.plan(planSteps, 3) });
    const callers = grepFiles(p, s.symbol).filter((f) => f !== s.file && !/test/.test(f));
    steps.push({
      final: `${s.title}.\n\n- Cause: ${s.cause}\n- Fix: ${s.fixDescription} (\`${s.file}\`).\n- Test: added \`${s.testName.split(' > ').pop()}\` to \`${s.testFile}\`; it failed before the fix and passes now (${tests} tests in the file).${callers.length ? `\n\nCallers (${callers.join(', ')}) need no changes.` : ''}\n\nRun \`${p.fullTestCommand}\` if you'd like the full suite.`,
    });
    return { prompt: rng.pick(s.prompts), steps };
  }

  private pickFor<T>(s: Scenario, pool: readonly ((s: Scenario) => T)[]): T {
    return this.rng.pick(pool)(s);
  }

  /** A search for the symbol, then the source file and its test read whole. */
  private bugfixReading(s: Scenario): CodexStep[] {
    const rng = this.rng;
    const p = this.p;
    const src = fileContent(p, s.file);
    const needle = s.symbol.includes('.') ? s.symbol.split('.').pop()! : s.symbol;
    const dirs = p.lang === 'ts' ? 'src test' : 'ledger tests';
    const steps: CodexStep[] = [];
    steps.push({
      reasoning: this.pickFor(s, REASON_SEARCH),
      preamble: rng.bool(0.5) ? `I'll look for \`${needle}\` first.` : undefined,
      call: this.shell(`rg -n "${needle}" ${dirs}`, () =>
        grep(p, s.symbol)
          .map((h) => `${h.file}:${h.line}:${h.text}`)
          .join('\n'),
      ),
    });
    const n = linesOf(src).length;
    steps.push({
      reasoning: this.pickFor(s, REASON_READ),
      call: rng.bool(0.5)
        ? this.shell(`sed -n '1,${Math.max(120, n)}p' ${s.file}`, () => src)
        : this.shell(`nl -ba ${s.file} | sed -n '1,${Math.max(120, n)}p'`, () =>
            nlNumbered(src, 1, n),
          ),
    });
    steps.push({
      call: this.shell(`sed -n '1,200p' ${s.testFile}`, () => fileContent(p, s.testFile)),
    });
    return steps;
  }

  /** The regression test patched in, and its failing run. */
  private bugfixReproduce(s: Scenario, testContent: string): CodexStep[] {
    const p = this.p;
    const t0 = () => this.ms;
    return [
      {
        reasoning: this.pickFor(s, REASON_CAUSE),
        call: this.patch(
          s.testFile,
          [
            ...s.testAnchor.split('\n').map((l) => ` ${l}`),
            ...s.regressionTest
              .split('\n')
              .slice(1)
              .map((l) => `+${l}`),
          ].join('\n'),
        ),
      },
      {
        call: this.shell(
          p.testCommand(s.testFile),
          () => failingTestOutput(p, s, s.testFile, testContent, this.o.cwd, t0(), this.rng),
          1,
          [0.8, 6],
        ),
      },
    ];
  }

  /** The fix, the passing tests and sometimes the type check. */
  private bugfixFix(s: Scenario, tests: number): CodexStep[] {
    const rng = this.rng;
    const p = this.p;
    const steps: CodexStep[] = [
      {
        reasoning: this.pickFor(s, REASON_FIX),
        call: this.patch(
          s.file,
          [
            ...s.fix.old.split('\n').map((l) => `-${l}`),
            ...s.fix.new.split('\n').map((l) => `+${l}`),
          ].join('\n'),
        ),
      },
      {
        reasoning: this.pickFor(s, REASON_VERIFY),
        call: this.shell(
          p.testCommand(s.testFile),
          () => passingTestOutput(p, [{ file: s.testFile, tests }], this.o.cwd, this.ms, rng),
          0,
          [0.8, 6],
        ),
      },
    ];
    if (rng.bool(0.6)) {
      steps.push({
        call: this.shell(p.typecheckCommand, () => typecheckOk(p), 0, [2, 12]),
      });
    }
    return steps;
  }

  private verify(): { prompt: string; steps: CodexStep[] } {
    const p = this.p;
    const files = allTestFiles(p);
    const total = files.reduce((n, f) => n + f.tests, 0);
    return {
      prompt: this.rng.pick(VERIFY_PROMPTS),
      steps: [
        {
          reasoning:
            '**Running the full suite**\n\nThe user wants everything checked before review.',
          call: this.shell(
            p.fullTestCommand,
            () => passingTestOutput(p, files, this.o.cwd, this.ms, this.rng),
            0,
            [3, 30],
          ),
        },
        { call: this.shell(p.typecheckCommand, () => typecheckOk(p), 0, [2, 12]) },
        { call: this.shell(p.lintCommand, () => lintOk(p), 0, [1, 6]) },
        {
          final: `All checks pass: ${total} tests in ${files.length} files, type check and lint are clean.`,
        },
      ],
    };
  }

  private question(): { prompt: string; steps: CodexStep[] } {
    const s = this.current;
    const qa = this.rng.pick(QUESTIONS);
    const callers = grepFiles(this.p, s.symbol).filter((f) => f !== s.file && !/test/.test(f));
    return {
      prompt: qa.q(s, this.p),
      steps: [
        {
          reasoning: `**Answering a follow-up**\n\nThe user asks about the \`${s.symbol}\` change.`,
          final: qa.a(s, this.p, callers),
        },
      ],
    };
  }

  private commit(): { prompt: string; steps: CodexStep[] } {
    const s = this.current;
    const sha = hex(this.rng, 7);
    return {
      prompt: 'Commit the change please.',
      steps: [
        {
          call: this.shell('git status --short', () => ` M ${s.file}\n M ${s.testFile}\n`),
        },
        {
          call: this.shell(
            `git add ${s.file} ${s.testFile} && git commit -m "${s.commitMessage}"`,
            () => `[main ${sha}] ${s.commitMessage}\n 2 files changed\n`,
          ),
        },
        { final: `Committed \`${sha}\`: ${s.commitMessage}` },
      ],
    };
  }

  private compacted(): void {
    const s = this.current;
    const message = `Summary of the conversation so far: the user asked for bug fixes in ${this.p.name}. Most recent: ${s.title}. ${s.cause} The fix (${s.fixDescription}) is applied in ${s.file} with a regression test in ${s.testFile}; focused tests pass.`;
    this.line('compacted', {
      message,
      replacement_history: [
        ...this.prompts.slice(-3).map((text) => ({
          type: 'message',
          role: 'user',
          content: [{ type: 'input_text', text }],
        })),
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: message }] },
      ],
    });
    this.context = this.rng.int(9_000, 14_000) + estimateTokens(message);
    this.cached = 0;
  }

  /** The session's events in the order they happen. */
  run(): string {
    const o = this.o;
    this.sessionMeta();
    this.openingMessages();
    const compactAt = o.compaction ? (o.turns >= 2 ? Math.floor(o.turns / 2) : 1) : -1;
    for (let i = 0; i < o.turns; i++) {
      if (i === compactAt) this.compacted();
      this.turn(i);
    }
    if (compactAt === o.turns) this.compacted();
    return this.lines.join('');
  }

  /** The first line: session_meta, or a legacy file's bare header and state line. */
  private sessionMeta(): void {
    const o = this.o;
    const git = {
      commit_hash: hex(this.rng, 40),
      branch: 'main',
      repository_url: this.p.repoUrl,
    };
    if (o.legacy) {
      this.stamp(0, 0);
      this.lines.push(
        JSON.stringify({
          id: o.sessionId,
          timestamp: new Date(this.ms).toISOString(),
          instructions: this.p.instructions,
        }) + '\n',
      );
      this.lines.push(JSON.stringify({ record_type: 'state' }) + '\n');
      return;
    }
    const ts = this.stamp(0, 0);
    this.lines.push(
      JSON.stringify({
        timestamp: ts,
        type: 'session_meta',
        payload: {
          id: o.sessionId,
          timestamp: ts,
          cwd: o.cwd,
          originator: 'codex_cli_rs',
          cli_version: o.cliVersion,
          instructions: this.p.instructions,
          source: 'cli',
          model_provider: 'openai',
          git,
        },
      }) + '\n',
    );
  }

  /** What the CLI tells the model before the first prompt: permissions, AGENTS.md, environment. */
  private openingMessages(): void {
    const o = this.o;
    const agents = `<user_instructions>\n\n${this.p.instructions}\n</user_instructions>`;
    if (!o.legacy) {
      this.userMessage(PERMISSIONS_TEXT, 'developer');
    }
    this.userMessage(agents);
    this.userMessage(
      `<environment_context>\n  <cwd>${o.cwd}</cwd>\n  <approval_policy>on-request</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>restricted</network_access>\n  <shell>bash</shell>\n</environment_context>`,
    );
  }

  /** One user turn: a drawn kind of task, its turn_context and prompt, then its steps. */
  private turn(i: number): void {
    const o = this.o;
    const rng = this.rng;
    const r = rng.next();
    const plan =
      i === 0 || r < 0.5
        ? this.bugfix()
        : r < 0.68
          ? this.verify()
          : r < 0.85
            ? this.question()
            : this.commit();
    if (i > 0) this.ms += rng.bool(0.1) ? rng.int(360_000, 2_400_000) : rng.int(15_000, 200_000);
    this.line(
      'turn_context',
      {
        cwd: o.cwd,
        approval_policy: 'on-request',
        sandbox_policy: {
          type: 'workspace-write',
          network_access: false,
          exclude_tmpdir_env_var: false,
          exclude_slash_tmp: false,
        },
        model: o.model,
        effort: 'medium',
        summary: 'auto',
      },
      1,
      5,
    );
    this.userMessage(plan.prompt);
    this.prompts.push(plan.prompt);
    this.event({ type: 'user_message', message: plan.prompt, images: [] });
    if (i === 0) this.tokenCount(null);
    for (const step of plan.steps) this.step(step);
    if (o.legacy) this.lines.push(JSON.stringify({ record_type: 'state' }) + '\n');
  }

  private step(step: CodexStep): void {
    let visible = '';
    if (step.reasoning) {
      this.reasoning(step.reasoning);
      visible += step.reasoning;
    }
    if (step.preamble) {
      this.assistantMessage(step.preamble);
      visible += step.preamble;
    }
    if (step.final !== undefined) {
      this.assistantMessage(step.final);
      this.request(visible + step.final, step.reasoning !== undefined);
    } else if (step.call) {
      this.runCall(step.call, visible, step.reasoning !== undefined);
    }
  }
}
