/**
 * The two shortcuts of a Codex read (CodexScanner): for a count of usage only, session_meta
 * and turn_context payloads read from their skimmed fields instead of a JSON.parse; and a
 * token_count whose total the kernel read is taken without comparing its bytes with the
 * one before. Each read here is compared with the same read of the same bytes without the
 * shortcuts (the scanner's old paths): the whole summary, problems included, must match.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { writeHeavyUserCorpus } from '../../../support/heavyUserCorpus.ts';
import { CodexScanner } from '../../../../src/sources/local/codexScan.ts';
import type { FileSummary } from '../../../../src/sources/local/types.ts';
import { REAL } from '../../conformance/realFiles.ts';
import { at, codex, codexMeta, jsonl, tempDir, tokenCount, turnContext } from './fixtures.ts';
import { usageFacts } from './usageFacts.ts';

interface Read {
  usageOnly: boolean;
  /** Without the shortcuts: every payload parsed, every token_count's bytes compared. */
  old?: boolean;
  /** Bytes of the first feed (the rest in a second one). */
  cut?: number;
}

/** A scanner whose shortcuts are turned off, as the code read before they were added. */
function withoutShortcuts(s: CodexScanner): CodexScanner {
  Object.assign(s, { skimmedPayload: () => false, kernelReadTotal: () => false });
  return s;
}

function read(bytes: Buffer, r: Read): FileSummary {
  const s = new CodexScanner('/t/rollout.jsonl');
  if (r.old) withoutShortcuts(s);
  if (r.usageOnly) s.skipStatus();
  const cut = r.cut ?? bytes.length;
  if (cut > 0) s.feed(bytes.subarray(0, cut));
  if (cut < bytes.length) s.feed(bytes.subarray(cut));
  s.finish();
  return s.summary();
}

/** What the usage report reads, with the Codex facts a usage-only read keeps. */
const codexFacts = (s: FileSummary) => ({
  ...usageFacts(s),
  models: s.models,
  mainModel: s.mainModel,
  gitBranch: s.gitBranch,
  gitRemote: s.gitRemote,
  version: s.version,
  problems: s.problems,
});

/** New and old reads agree, for usage only and in full, whole and cut at every byte. */
function sameAsOld(bytes: Buffer, cuts = true): FileSummary {
  const full = read(bytes, { usageOnly: false, old: true });
  assert.deepEqual(read(bytes, { usageOnly: false }), full, 'full read');
  for (let cut = cuts ? 0 : bytes.length; cut <= bytes.length; cut++) {
    const old = read(bytes, { usageOnly: true, old: true, cut });
    assert.deepEqual(read(bytes, { usageOnly: true, cut }), old, `usage only, cut at ${cut}`);
  }
  return full;
}

/** A session_meta or turn_context line whose payload is written as given (raw JSON text). */
const rawLine = (type: string, payload: string, seconds = 0) =>
  `{"timestamp":"${at(seconds)}","type":"${type}","payload":${payload}}`;

/** A file around one line: the usage it is read with, and no prompt (so no title). */
const around = (line: string) =>
  Buffer.from(
    jsonl(
      line,
      tokenCount({ input: 100, cached: 10, output: 5, reasoning: 1 }, 3),
      codex('turn_context', { model: 'gpt-5-codex' }, 4),
      // Status facts take the approval policy from the last turn_context.
      codex('event_msg', { type: 'agent_message', message: 'Done.' }, 4),
      tokenCount({ input: 300, cached: 30, output: 15, reasoning: 3 }, 5),
    ),
  );

const META = '"id":"m-1","timestamp":"2026-07-01T09:00:00.000Z","cli_version":"0.50.0"';
const PAYLOADS: [name: string, type: string, payload: string][] = [
  ['plain', 'session_meta', `{${META},"cwd":"/a","git":{"branch":"main"}}`],
  [
    'long instructions',
    'session_meta',
    `{${META},"cwd":"/a","instructions":"${'x'.repeat(9000)}"}`,
  ],
  ['a bad literal', 'session_meta', `{${META},"cwd":"/a","x":tru}`],
  ['a bad number', 'session_meta', `{${META},"cwd":"/a","n":01}`],
  ['a bad escape', 'session_meta', `{${META},"cwd":"/a","instructions":"\\q"}`],
  ['a raw control character', 'session_meta', `{${META},"cwd":"/a","s":"a\tb"}`],
  ['a broken array', 'turn_context', '{"model":"gpt-5","cwd":"/a","x":[1,}]}'],
  ['a broken git', 'session_meta', `{${META},"cwd":"/a","git":{"branch":tru}}`],
  ['a string', 'session_meta', '"not an object"'],
  ['null', 'turn_context', 'null'],
  ['an array', 'session_meta', '[{"id":"m-1","cwd":"/a"}]'],
  ['a number', 'turn_context', '42'],
  ['an escaped key', 'session_meta', `{${META},"c\\u0077d":"/escaped"}`],
  ['an escaped key after a plain one', 'turn_context', '{"model":"m","mod\\u0065l":"m2"}'],
  ['an escaped key before a plain one', 'turn_context', '{"mod\\u0065l":"m2","model":"m"}'],
  ['duplicate keys', 'session_meta', `{${META},"cwd":"/first","cwd":"/second","id":"m-2"}`],
  ['escaped values', 'session_meta', '{"id":"\\u006d-3","cwd":"/caf\\u00e9 \\"q\\"\\ud800"}'],
  ['non-strings', 'turn_context', '{"model":{"name":"m"},"cwd":null,"approval_policy":7}'],
  ['empty strings', 'session_meta', '{"id":"","cwd":"","cli_version":"","git":{"branch":""}}'],
  ['git not an object', 'session_meta', `{${META},"git":"main"}`],
  ['spaces', 'turn_context', '{ "model" : "gpt-5" ,\t"cwd" : "/s" , "approval_policy":"never" }'],
  ['empty', 'turn_context', '{}'],
  ['deep', 'session_meta', `{"cwd":"/d","x":${'['.repeat(1100)}${']'.repeat(1100)}}`],
];

describe('Codex usage-only reads: payloads from their skimmed fields', () => {
  test('hostile payloads read as their parse does, problems included', () => {
    for (const [name, type, payload] of PAYLOADS) {
      const full = sameAsOld(around(rawLine(type, payload)));
      // No prompt, so the usage-only read interprets every line the full read does.
      const usageOnly = read(around(rawLine(type, payload)), { usageOnly: true });
      assert.deepEqual(codexFacts(usageOnly), codexFacts(full), name);
    }
  });

  test('what those payloads are there to exercise, as the full read sees it', () => {
    const summary = (i: number) =>
      read(around(rawLine(PAYLOADS[i]![1], PAYLOADS[i]![2])), { usageOnly: true });
    const kinds = (s: FileSummary) => s.problems.map((p) => p.kind);
    assert.equal(summary(0).gitBranch, 'main');
    for (const bad of [2, 3, 4, 5, 6, 7]) {
      assert.deepEqual(kinds(summary(bad)), ['invalid-json'], PAYLOADS[bad]![0]);
    }
    assert.equal(summary(2).cwd, undefined); // a payload that does not parse sets nothing
    assert.equal(summary(12).cwd, '/escaped');
    assert.equal(summary(13).mainModel, 'm2');
    assert.equal(summary(15).cwd, '/second');
    assert.equal(summary(16).cwd, '/café "q"\ud800');
  });

  test('a line with two payloads: the last one counts', () => {
    for (const [first, last] of [
      ['{"cwd":"/first","id":"m-1"}', '"not an object"'],
      ['"not an object"', '{"cwd":"/last","id":"m-2"}'],
      ['{"cwd":"/first"}', '{"cwd":"/last"}'],
    ]) {
      const line = `{"timestamp":"${at(0)}","type":"session_meta","payload":${first},"payload":${last}}`;
      sameAsOld(around(line));
    }
  });

  test('pretty-printed, and as the last line without a newline', () => {
    const meta = codexMeta();
    const pretty = Buffer.from(
      JSON.stringify(meta, null, 2) + '\n' + jsonl(turnContext('gpt-5', 1)).trimEnd(),
    );
    assert.equal(sameAsOld(pretty).gitBranch, 'feature/x');
    const text = jsonl(tokenCount({ input: 5, cached: 0, output: 1, reasoning: 0 }, 1), meta);
    assert.equal(sameAsOld(Buffer.from(text.trimEnd())).cwd, '/home/dev/ledger');
  });
});

/** A token_count line whose total input is written as `input` (raw JSON number text). */
const counted = (input: string, seconds: number) =>
  `{"timestamp":"${at(seconds)}","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":${input},"cached_input_tokens":1,"output_tokens":2,"reasoning_output_tokens":0}}}}`;

/** Lines by name: the kernel reads plain integers, not `100.0` (then the skim or a parse). */
const TOKEN_LINES: Record<string, string> = {
  A: counted('100', 1),
  a: counted('100.0', 1),
  B: counted('200', 1),
  b: counted('200.0', 1),
  C: counted('150', 1),
  n: JSON.stringify(tokenCount(null, 1)),
  x: counted('1e', 1), // malformed: parsed, and reported
  // No total, and a value the skim passes but the parse rejects: reported (once per copy).
  y: `{"timestamp":"${at(1)}","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":1}},"rate_limits":tru}}`,
};

describe('Codex token counts without the byte comparison', () => {
  test('a copy, another total, then the first again: in every order of lines', () => {
    const names = Object.keys(TOKEN_LINES);
    let files = 0;
    const build = (seq: string[]) => seq.map((k) => TOKEN_LINES[k]).join('\n');
    const visit = (seq: string[]) => {
      if (seq.length === 4) {
        // With the last newline, and without (the last line then goes through the JS skim).
        for (const text of [build(seq) + '\n', build(seq)]) {
          const bytes = Buffer.from(jsonl(turnContext('gpt-5', 0)) + text);
          sameAsOld(bytes, false);
          files++;
        }
        return;
      }
      for (const k of names) visit([...seq, k]);
    };
    visit([]);
    assert.equal(files, 2 * names.length ** 4);
  });

  test('a total the kernel did not read, after one it read: compared with that one', () => {
    // a, B, a: the second `a` is not a copy of the line before it (B), so it counts again.
    for (const usageOnly of [false, true]) {
      const bytes = Buffer.from(jsonl(TOKEN_LINES.a!, TOKEN_LINES.B!, TOKEN_LINES.a!));
      const s = read(bytes, { usageOnly });
      assert.deepEqual(
        [...s.usage.values()].map((u) => u.input),
        [99, 100, 99],
      );
      assert.deepEqual(
        s.problems.map((p) => p.kind),
        ['token-reset'],
      );
    }
  });
});

/** The same as without the shortcuts, and the usage facts (problems aside) of a full read. */
function checkRollout(bytes: Buffer, name: string): FileSummary {
  let usageOnly: FileSummary | undefined;
  for (const cut of [bytes.length, 4096, 65_536]) {
    usageOnly = read(bytes, { usageOnly: true, cut });
    assert.deepEqual(usageOnly, read(bytes, { usageOnly: true, old: true, cut }), name);
    const full = read(bytes, { usageOnly: false, cut });
    assert.deepEqual(full, read(bytes, { usageOnly: false, old: true, cut }), name);
    // Problems may differ: the usage-only read passes over items once the title is known.
    assert.deepEqual(
      { ...codexFacts(usageOnly), problems: [] },
      { ...codexFacts(full), problems: [] },
      name,
    );
  }
  return usageOnly!;
}

describe('Codex usage-only reads of generated rollouts of every layout', () => {
  test('legacy, 0.4x, 0.5x and current rollouts of two seeds', async () => {
    const { dir, cleanup } = await tempDir('asi-codex-usage-only-');
    try {
      const layouts = new Map<string, number>();
      for (const seed of [5, 6]) {
        const corpus = await writeHeavyUserCorpus(join(dir, String(seed)), {
          targetBytes: 1,
          seed,
          codexShare: 0.9,
        });
        for (const [layout, n] of Object.entries(corpus.shapes.codexVariants)) {
          layouts.set(layout, (layouts.get(layout) ?? 0) + n);
        }
        for (const f of corpus.files.filter((x) => x.harness === 'codex')) {
          checkRollout(readFileSync(f.path), f.path);
        }
      }
      for (const layout of ['legacy', '0.4x', '0.5x', 'current']) {
        assert.ok((layouts.get(layout) ?? 0) > 0, layout);
      }
    } finally {
      await cleanup();
    }
  });
});

describe('Codex usage-only reads of the real rollouts', () => {
  const folder = join(REAL, 'codex/localpush/sessions');
  const files = readdirSync(folder).filter((f) => f.endsWith('.jsonl'));

  test('the same as without the shortcuts, and the usage facts of a full read', () => {
    assert.equal(files.length, 3);
    for (const file of files) {
      const usageOnly = checkRollout(readFileSync(join(folder, file)), file);
      assert.ok(usageOnly.usage.size > 0 && usageOnly.cwd, file);
    }
  });
});
