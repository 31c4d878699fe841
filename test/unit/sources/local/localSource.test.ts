/**
 * LocalSource over the generated corpus (test/support/localCorpus.ts): totals equal the
 * independent reference computation, paging is stable and complete, filters, subagents,
 * waiting sessions, problems and the connection test.
 */
import assert from 'node:assert/strict';
import { appendFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import type { SessionSummary } from '../../../../src/domain/session.ts';
import { LocalSource } from '../../../../src/sources/local/localSource.ts';
import {
  PROJECTS,
  expectedTokens,
  reportTokens,
  writeLocalCorpus,
  type LocalCorpus,
} from '../../../support/localCorpus.ts';
import { codex, jsonl, tempDir } from './fixtures.ts';

let corpus: LocalCorpus;
let cleanup: () => Promise<void>;
/** Days after the corpus: every session is past its idle and waiting windows. */
const NOW = Date.parse('2026-06-08T00:00:00.000Z');

function source(now = NOW): LocalSource {
  return new LocalSource({
    config: { id: 'local-1', label: 'This machine', kind: 'local' },
    claudeConfigDirs: [corpus.claudeDir],
    codexHome: corpus.codexDir,
    now: () => now,
  });
}

async function all(s: LocalSource, limit = 100): Promise<SessionSummary[]> {
  const rows: SessionSummary[] = [];
  let cursor: string | undefined;
  do {
    const page = await s.listSessions({ limit, ...(cursor ? { cursor } : {}) });
    rows.push(...page.sessions);
    cursor = page.next;
  } while (cursor);
  return rows;
}

before(async () => {
  const t = await tempDir('asi-local-corpus-');
  cleanup = t.cleanup;
  corpus = await writeLocalCorpus(t.dir, { claudeSessions: 5, codexSessions: 4 });
});
after(() => cleanup());

describe('LocalSource over the corpus', () => {
  test('capabilities', async () => {
    const caps = await source().capabilities();
    assert.equal(caps.listSessions, true);
    assert.equal(caps.transcripts, true);
    assert.equal(caps.usage, true);
    assert.equal(caps.resume, true, 'sessions resume in their CLI');
    assert.equal(caps.interrupt, false);
    assert.deepEqual(Object.keys(source().operations), ['localFiles']);
  });

  test('sessionFiles: the file of every listed session (search across sessions reads them)', async () => {
    const s = source();
    const listed = await all(s);
    const files = await s.operations.localFiles!.sessionFiles();
    // Local rows are keyed by their file's path.
    assert.deepEqual(files.map((f) => f.path).sort(), listed.map((r) => r.id).sort());
    assert.ok(files.every((f) => f.harness === 'claude-code' || f.harness === 'codex'));
  });

  test('token totals equal the reference computation, by harness, model and file', async () => {
    const s = source();
    const report = await s.usage();
    assert.deepEqual(reportTokens(report.totals), expectedTokens(corpus.expected.total));
    for (const [harness, expected] of Object.entries(corpus.expected.byHarness)) {
      assert.deepEqual(reportTokens(report.byHarness[harness]!), expectedTokens(expected), harness);
    }
    for (const [model, expected] of Object.entries(corpus.expected.byModel)) {
      assert.deepEqual(reportTokens(report.byModel[model]!), expectedTokens(expected), model);
    }
    const rows = await all(s);
    for (const [file, expected] of Object.entries(corpus.expected.byFile)) {
      const row = rows.find((r) => r.id === file)!;
      assert.deepEqual(
        [row.inputTokens, row.outputTokens, row.cacheReadTokens, row.cacheWriteTokens],
        [expected.input, expected.output, expected.cacheRead, expected.cacheWrite],
        file,
      );
    }
    assert.ok(report.totals.cost !== undefined && report.totals.cost > 0, 'every model is priced');
    assert.equal(report.sessionsWithoutTokenInfo, 1, 'the legacy Codex session');
    const days = Object.values(report.byDay);
    assert.ok(Object.keys(report.byDay).every((d) => /^2026-06-0\d$/.test(d)));
    assert.equal(
      days.reduce((n, d) => n + d.responses, 0),
      report.totals.responses,
    );
  });

  test('pages cover every session once, newest activity first', async () => {
    const s = source();
    const first = await s.listSessions({ limit: 4 });
    assert.equal(first.sessions.length, 4);
    assert.equal(first.next, '4');
    assert.equal(first.total, corpus.files.length);
    const rows = await all(s, 4);
    assert.equal(rows.length, corpus.files.length);
    assert.equal(new Set(rows.map((r) => r.id)).size, rows.length);
    assert.deepEqual(new Set(rows.map((r) => r.id)), new Set(corpus.files.map((f) => f.path)));
    const times = rows.map((r) => Date.parse(r.lastActivityAt!));
    assert.deepEqual(
      times,
      [...times].sort((a, b) => b - a),
    );
    for (const f of corpus.files) {
      assert.equal(rows.find((r) => r.id === f.path)!.lastActivityAt, f.lastActivity, f.path);
    }
    await assert.rejects(s.listSessions({ limit: 4, cursor: 'x' }), RangeError);
  });

  test('rows: labels, harness, model, repository, branch, subagents and orphans', async () => {
    const rows = await all(source());
    for (const r of rows) {
      assert.equal(r.connectionId, 'local-1');
      assert.ok(r.label.length > 0);
      assert.ok(r.harness === 'claude-code' || r.harness === 'codex');
      assert.ok(r.startedAt && r.lastActivityAt);
    }
    const children = rows.filter((r) => r.parentId);
    assert.ok(children.length >= 2);
    for (const c of children)
      assert.ok(
        rows.some((r) => r.id === c.parentId),
        'the parent is listed',
      );
    const orphans = corpus.files.filter(
      (f) => f.role === 'subagent' && !rows.find((r) => r.id === f.path)!.parentId,
    );
    assert.equal(orphans.length, 2, 'the orphan folder’s subagents are listed on their own');
    const codexRow = rows.find((r) => r.harness === 'codex' && r.inputTokens !== undefined)!;
    assert.match(codexRow.repository ?? '', /^[\w-]+\/[\w-]+$/, 'owner/name from the git remote');
    assert.equal(codexRow.branch, 'main');
    assert.match(codexRow.model ?? '', /^gpt-5/);
    const claudeRow = rows.find((r) => r.harness === 'claude-code' && !r.parentId)!;
    assert.ok(
      ['orbit-api', 'ledger-service', 'web-console', 'infra-tools'].includes(claudeRow.repository!),
    );
    const legacy = rows.find((r) => r.harness === 'codex' && r.inputTokens === undefined)!;
    assert.equal(legacy.estimatedCost, undefined);
    assert.ok(legacy.repository, 'legacy files name their cwd in the environment context');
  });

  test("project: each row's working directory; a subagent has its parent's", async () => {
    const rows = await all(source());
    const folders = PROJECTS.map((p) => `/home/dev/${p}`);
    for (const r of rows) assert.ok(folders.includes(r.project!), `${r.id}: ${r.project}`);
    for (const c of rows.filter((r) => r.parentId)) {
      assert.equal(c.project, rows.find((r) => r.id === c.parentId)!.project, c.id);
    }
    assert.ok(
      folders.every((f) => rows.some((r) => r.project === f)),
      'the corpus spreads its sessions over every project',
    );
  });

  test('filters: harness, status, activity window, quality', async () => {
    const s = source();
    const codex = await s.listSessions({ limit: 100, filters: { harness: 'codex' } });
    assert.equal(codex.sessions.length, 4);
    assert.ok(codex.sessions.every((r) => r.harness === 'codex'));
    const finished = await s.listSessions({ limit: 100, filters: { status: 'inactive' } });
    assert.equal(finished.sessions.length, corpus.files.length, 'days later, all finished');
    assert.equal(
      (await s.listSessions({ limit: 100, filters: { status: 'active' } })).sessions.length,
      0,
    );
    const day1 = await s.listSessions({
      limit: 100,
      filters: { startDate: '2026-06-01', endDate: '2026-06-01' },
    });
    assert.ok(day1.sessions.length > 0);
    assert.ok(day1.sessions.every((r) => r.lastActivityAt!.startsWith('2026-06-01')));
    const idle = await s.listSessions({ limit: 100, filters: { quality: 'idle' } });
    assert.equal(idle.sessions.length, 0, 'every generated session has prompts');
  });

  test('statuses follow the clock; waiting sessions are listed completely', async () => {
    const newest = corpus.files.map((f) => Date.parse(f.lastActivity)).sort((a, b) => b - a)[0]!;
    const s = source(newest + 10_000);
    const rows = await all(s);
    assert.ok(rows.some((r) => r.status.status !== 'finished'));
    const waiting = await s.listWaiting(undefined);
    assert.equal(waiting.complete, true);
    assert.deepEqual(
      waiting.sessions.map((r) => r.id).sort(),
      rows
        .filter((r) => r.status.status === 'waiting')
        .map((r) => r.id)
        .sort(),
    );
  });

  test('problems of the quirky session, with line numbers', async () => {
    const problems = await source().listProblems();
    const kinds = new Set(problems.map((p) => p.kind));
    for (const k of ['pretty-printed', 'lone-surrogate', 'unknown-type', 'truncated-line']) {
      assert.ok(kinds.has(k), k);
    }
    assert.ok(problems.every((p) => p.path && (p.line === undefined || p.line > 0)));
  });

  test('test() says how many files were found where', async () => {
    const text = await source().test();
    assert.match(
      text,
      new RegExp(`Claude Code: \\d+ session files \\(\\d+ subagent\\) in ${corpus.claudeDir}`),
    );
    assert.match(text, new RegExp(`Codex: 4 session files \\(1 archived\\) in ${corpus.codexDir}`));
    assert.match(text, /problems in the files/);
  });

  // Last: it appends to a corpus file.
  test('later pages page over the first page’s snapshot, even while files change', async () => {
    const s = source();
    const first = await s.listSessions({ limit: 5 });
    // The oldest Codex session gets a new prompt: it would jump to the top of a new listing.
    const rows = await all(source());
    const target = rows.filter((r) => r.harness === 'codex' && r.inputTokens !== undefined).pop()!;
    await appendFile(
      target.id,
      jsonl(codex('event_msg', { type: 'user_message', message: 'One more thing' }, 0)).replace(
        /"timestamp":"[^"]+"/,
        '"timestamp":"2026-06-07T00:00:00.000Z"',
      ),
    );
    const rest: SessionSummary[] = [];
    let cursor = first.next;
    while (cursor) {
      const page = await s.listSessions({ limit: 5, cursor });
      rest.push(...page.sessions);
      cursor = page.next;
    }
    const ids = [...first.sessions, ...rest].map((r) => r.id);
    assert.equal(ids.length, corpus.files.length);
    assert.equal(new Set(ids).size, ids.length, 'no row twice');
    // A new listing sees the change.
    const fresh = await s.listSessions({ limit: 5 });
    assert.equal(fresh.sessions[0]!.id, target.id);
  });
});
