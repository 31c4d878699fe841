/**
 * The heavy-user corpus generator (test/support/heavyUserCorpus.ts) at a small size: every
 * line is JSON, the expected totals equal a plain reading of the files written here, and
 * each shape the bench relies on is in the files themselves (not only in its counters).
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { writeHeavyUserCorpus, type HeavyUserCorpus } from '../../support/heavyUserCorpus.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- raw JSONL under test
type Obj = Record<string, any>;

let dir: string;
let corpus: HeavyUserCorpus;
/** Every file's lines, parsed. */
const parsed = new Map<string, Obj[]>();

before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'asi-heavy-corpus-'));
  corpus = await writeHeavyUserCorpus(dir, { targetBytes: 6 * 1_048_576, seed: 99 });
  for (const f of corpus.files) {
    const text = await readFile(f.path, 'utf8');
    assert.ok(text.endsWith('\n'), `${f.path} ends with a newline`);
    parsed.set(
      f.path,
      text
        .slice(0, -1)
        .split('\n')
        .map((line) => JSON.parse(line) as Obj),
    );
  }
});
after(() => rm(dir, { recursive: true, force: true }));

const filesOf = (harness: string) => corpus.files.filter((f) => f.harness === harness);
const versionOf = (lines: Obj[]) => lines.find((o) => typeof o.version === 'string')?.version;
const cliVersionOf = (lines: Obj[]) =>
  lines.find((o) => o.type === 'session_meta')?.payload.cli_version as string | undefined;

test('every line of every file is one JSON object, and the sizes add up', async () => {
  assert.ok(corpus.files.length >= 10);
  let bytes = 0;
  for (const f of corpus.files) {
    const lines = parsed.get(f.path)!;
    assert.ok(lines.length > 0);
    for (const o of lines) assert.equal(typeof o, 'object');
    bytes += Buffer.byteLength(await readFile(f.path));
  }
  assert.equal(corpus.bytes, bytes);
  assert.ok(bytes >= 6 * 1_048_576);
});

test('the expected totals equal a plain reading of the files', () => {
  // Claude Code: each (message.id, requestId) once, every field's maximum over its lines and
  // agent_progress copies. Codex: per file, deltas of distinct consecutive cumulative totals.
  const claude = new Map<string, number[]>();
  for (const f of filesOf('claude-code')) {
    for (const o of parsed.get(f.path)!) {
      const a =
        o.type === 'assistant' ? o : o.data?.type === 'agent_progress' ? o.data.message : undefined;
      const m = a?.message;
      if (a?.type !== 'assistant' || !m?.usage || typeof m.id !== 'string') continue;
      const u = m.usage;
      const key = `${m.id}:${a.requestId}`;
      const prev = claude.get(key) ?? [0, 0, 0, 0];
      const cur = [
        u.input_tokens,
        u.output_tokens,
        u.cache_read_input_tokens,
        u.cache_creation_input_tokens,
      ];
      claude.set(
        key,
        prev.map((v, i) => Math.max(v, cur[i] ?? 0)),
      );
    }
  }
  const claudeSum = [0, 0, 0, 0];
  for (const t of claude.values()) t.forEach((v, i) => (claudeSum[i]! += v));
  const c = corpus.expected.byHarness['claude-code']!;
  assert.deepEqual(
    [c.input, c.output, c.cacheRead, c.cacheWrite, c.responses],
    [...claudeSum, claude.size],
  );

  const codexSum = [0, 0, 0, 0];
  let deltas = 0;
  for (const f of filesOf('codex')) {
    let prev = [0, 0, 0, 0];
    for (const o of parsed.get(f.path)!) {
      const t =
        o.type === 'event_msg' && o.payload.type === 'token_count'
          ? o.payload.info?.total_token_usage
          : undefined;
      if (!t) continue;
      const cur = [
        t.input_tokens,
        t.cached_input_tokens,
        t.output_tokens,
        t.reasoning_output_tokens,
      ];
      if (cur.every((v, i) => v === prev[i])) continue;
      cur.forEach((v, i) => (codexSum[i]! += v - prev[i]!));
      prev = cur;
      deltas++;
    }
  }
  const x = corpus.expected.byHarness.codex!;
  assert.deepEqual(
    [x.input + x.cacheRead, x.cacheRead, x.output, x.reasoning, x.responses],
    [...codexSum, deltas],
  );
  assert.ok(deltas > 0 && claude.size > 0);
});

test('Claude Code: versions 1.0.x to 2.1.x, each written as that version wrote it', () => {
  const byEra = new Map<string, Obj[][]>();
  for (const f of filesOf('claude-code')) {
    const lines = parsed.get(f.path)!;
    const v = versionOf(lines) as string;
    const era = v.startsWith('1.0.')
      ? '1.0'
      : v.startsWith('2.0.')
        ? '2.0'
        : Number(v.split('.')[2]) < 30
          ? '2.1-early'
          : '2.1';
    byEra.set(era, [...(byEra.get(era) ?? []), lines]);
  }
  assert.deepEqual([...byEra.keys()].sort(), ['1.0', '2.0', '2.1', '2.1-early']);
  // 1.0.x files have no file-history-snapshot or progress lines.
  for (const lines of byEra.get('1.0')!)
    assert.ok(lines.every((o) => o.type !== 'file-history-snapshot' && o.type !== 'progress'));
  // 2.1.11–2.1.29: every line of a response has the same small (stream-start) output count.
  const outputs = new Map<string, Set<number>>();
  for (const lines of byEra.get('2.1-early')!) {
    for (const o of lines) {
      if (o.type !== 'assistant') continue;
      const set = outputs.get(o.message.id) ?? new Set<number>();
      set.add(o.message.usage.output_tokens);
      outputs.set(o.message.id, set);
    }
  }
  assert.ok(outputs.size > 0);
  for (const set of outputs.values()) {
    assert.equal(set.size, 1);
    const [n] = set;
    assert.ok(n! >= 1 && n! <= 12);
  }
  // 2.1.38+: the last line of a multi-line response carries a larger count than the first.
  let grows = 0;
  for (const lines of byEra.get('2.1')!) {
    const first = new Map<string, number>();
    for (const o of lines) {
      if (o.type !== 'assistant') continue;
      const n = o.message.usage.output_tokens as number;
      if (!first.has(o.message.id)) first.set(o.message.id, n);
      else if (n > first.get(o.message.id)!) grows++;
    }
  }
  assert.ok(grows > 0);
});

test('Codex: the pre-envelope layout, 0.4x, 0.5x and current rollouts', () => {
  const variants = new Map<string, Obj[][]>();
  for (const f of filesOf('codex')) {
    const lines = parsed.get(f.path)!;
    const v = cliVersionOf(lines);
    const variant =
      v === undefined
        ? 'legacy'
        : v.startsWith('0.4')
          ? '0.4x'
          : v.startsWith('0.5')
            ? '0.5x'
            : 'current';
    variants.set(variant, [...(variants.get(variant) ?? []), lines]);
  }
  assert.deepEqual([...variants.keys()].sort(), ['0.4x', '0.5x', 'current', 'legacy']);
  for (const lines of variants.get('legacy')!) {
    const [head, ...rest] = lines;
    assert.deepEqual(Object.keys(head!).sort(), ['id', 'instructions', 'timestamp']);
    assert.ok(rest.every((o) => o.payload === undefined && o.timestamp === undefined));
    assert.ok(rest.some((o) => o.type === 'function_call'));
  }
  const tokenCounts = (lines: Obj[]) => lines.filter((o) => o.payload?.type === 'token_count');
  const repeated = (lines: Obj[]) =>
    lines.some(
      (o, i) =>
        i > 0 &&
        o.payload?.type === 'token_count' &&
        JSON.stringify(o) === JSON.stringify(lines[i - 1]),
    );
  for (const variant of ['0.4x', '0.5x', 'current']) {
    for (const lines of variants.get(variant)!) {
      const counts = tokenCounts(lines);
      // info: null before the first response of the session, then cumulative totals.
      const firstTotals = counts.findIndex((o) => o.payload.info !== null);
      assert.ok(firstTotals > 0, 'the first token_count has info: null');
      assert.ok(counts.slice(firstTotals).every((o) => o.payload.info?.total_token_usage));
      assert.ok(lines.some((o) => o.type === 'turn_context'));
      assert.ok(
        lines.some(
          (o) => o.payload?.type === 'reasoning' && typeof o.payload.encrypted_content === 'string',
        ),
      );
      // 0.9x writes each token_count twice in a row; older versions once.
      assert.equal(repeated(lines), variant === 'current', variant);
    }
  }
  for (const lines of variants.get('0.4x')!) {
    const turn = lines.find((o) => o.type === 'turn_context')!;
    assert.equal(turn.payload.sandbox_policy.mode, 'workspace-write');
    assert.equal(turn.payload.sandbox_policy.type, undefined);
    const limits = tokenCounts(lines)[1]!.payload.rate_limits;
    assert.equal(typeof limits.primary.resets_in_seconds, 'number');
    assert.equal(limits.primary.resets_at, undefined);
    assert.equal(lines.find((o) => o.payload?.type === 'user_message')!.payload.kind, 'plain');
  }
});

test('images, large tool outputs, subagents, projects and months are in the files', () => {
  let pasted = 0;
  let read = 0;
  let large = 0;
  const isBase64 = (s: string) => /^[A-Za-z0-9+/]+={0,2}$/.test(s) && s.length % 4 === 0;
  for (const f of corpus.files) {
    for (const o of parsed.get(f.path)!) {
      const content = o.type === 'user' ? o.message?.content : undefined;
      if (Array.isArray(content)) {
        for (const b of content) {
          if (b.type === 'image') {
            // The demo generator's own prompts carry a 12×12 PNG now and then.
            assert.ok(isBase64(b.source.data));
            if (b.source.data.length >= 50 * 1024) pasted++;
          }
          if (
            b.type === 'tool_result' &&
            Array.isArray(b.content) &&
            b.content[0]?.type === 'image'
          ) {
            assert.ok(isBase64(b.content[0].source.data));
            assert.equal(o.toolUseResult.file.base64, b.content[0].source.data);
            read++;
          }
          if (
            b.type === 'tool_result' &&
            typeof b.content === 'string' &&
            b.content.length >= 100 * 1024
          )
            large++;
        }
      }
      const out = (o.type === 'response_item' ? o.payload : o).type === 'function_call_output';
      if (out && String((o.payload ?? o).output).length >= 100 * 1024) large++;
    }
  }
  assert.equal(pasted, corpus.shapes.pastedImages);
  assert.equal(read, corpus.shapes.readImages);
  assert.equal(large, corpus.shapes.largeOutputs);
  assert.ok(pasted > 0 && read > 0 && large > 0);

  const subagents = corpus.files.filter((f) => f.role === 'subagent');
  assert.ok(subagents.length > 0);
  assert.equal(subagents.length, corpus.shapes.subagentFiles);
  for (const s of subagents) assert.match(s.path, /\/subagents\/agent-[^/]+\.jsonl$/);

  const projects = new Set(
    filesOf('claude-code').map((f) =>
      path.basename(path.dirname(f.path.replace(/\/[^/]+\/subagents\/.*$/, '/x'))),
    ),
  );
  assert.ok(projects.size >= 3, `${projects.size} Claude Code project folders`);
  const months = new Set(Object.keys(corpus.expected.byDay).map((d) => d.slice(0, 7)));
  assert.ok(months.size >= 4, `${months.size} months`);
  assert.ok(corpus.shapes.firstDay < '2025-09-01' && corpus.shapes.lastDay > '2025-12-15');
});

test('the same seed writes the same files', async () => {
  const again = await writeHeavyUserCorpus(path.join(dir, 'again'), { targetBytes: 1, seed: 99 });
  const first = corpus.files.slice(0, 3);
  for (let i = 0; i < first.length; i++) {
    assert.equal(
      path.relative(dir, first[i]!.path),
      path.relative(path.join(dir, 'again'), again.files[i]!.path),
    );
    assert.equal(
      await readFile(first[i]!.path, 'utf8'),
      await readFile(again.files[i]!.path, 'utf8'),
    );
  }
});
