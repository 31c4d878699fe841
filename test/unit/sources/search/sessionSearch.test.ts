import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createHash } from 'node:crypto';
import { NO_FILTERS, type SearchFilters } from '../../../../src/domain/search/searchQuery.ts';
import type { SessionSummary } from '../../../../src/domain/session.ts';
import { findRipgrep, ripgrepCandidates } from '../../../../src/sources/search/ripgrep.ts';
import { collectSearchTargets } from '../../../../src/sources/search/searchTargets.ts';
import {
  searchSessions,
  type SearchTarget,
  type SessionHits,
} from '../../../../src/sources/search/sessionSearch.ts';
import { TranscriptCache } from '../../../../src/sources/transcripts/transcriptCache.ts';

const SHORT = 'test/fixtures/real/claude/spotter/transcripts/short.jsonl';
const TOOLS = 'test/fixtures/real/claude/spotter/transcripts/tool_heavy.jsonl';
const CODEX =
  'test/fixtures/real/codex/localpush/sessions/rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl';

/** The ripgrep of a VS Code (code-server) the test tier downloaded, when there is one. */
function shippedRipgrep(): string | undefined {
  const cache = path.join(os.homedir(), '.cache', 'agent-session-inspector');
  let dirs: string[];
  try {
    dirs = readdirSync(cache).filter((d) => d.startsWith('code-server-'));
  } catch {
    return undefined;
  }
  for (const dir of dirs.sort().reverse()) {
    const appRoot = path.join(cache, dir, 'node_modules', 'code-server', 'lib', 'vscode');
    const rg = findRipgrep(appRoot);
    if (rg) return rg;
  }
  return undefined;
}

function target(
  file: string,
  format: 'claude-code' | 'codex',
  extra: Partial<SearchTarget['facts']> = {},
): SearchTarget {
  const session: SessionSummary = {
    id: file,
    connectionId: 'local',
    label: path.basename(file),
    status: { status: 'finished', raw: 'finished' },
  };
  return {
    key: `local/${file}`,
    path: file,
    format,
    session,
    facts: { harness: format, ...extra },
    origin: 'local',
  };
}

const TARGETS = [
  target(SHORT, 'claude-code', { project: '/p/spotter' }),
  target(TOOLS, 'claude-code'),
  target(CODEX, 'codex', { project: '/p/codex' }),
];

async function run(
  text: string,
  options: {
    regex?: boolean;
    caseSensitive?: boolean;
    filters?: Partial<SearchFilters>;
    rg?: string;
  } = {},
) {
  const sessions = new Map<string, SessionHits>();
  const summary = await searchSessions({
    targets: TARGETS,
    query: { text, regex: options.regex ?? false, caseSensitive: options.caseSensitive ?? false },
    filters: { ...NO_FILTERS, ...options.filters },
    ...(options.rg && { rg: options.rg }),
    onHits: (update) => sessions.set(update.target.key, update),
  });
  const hits = [...sessions.values()].flatMap((s) =>
    s.hits.map((h) => ({
      file: path.basename(s.target.path),
      line: h.line,
      kind: h.kind,
      text: h.text,
    })),
  );
  hits.sort(
    (a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.text.localeCompare(b.text),
  );
  return { summary, hits };
}

const rg = shippedRipgrep();
const engines: { name: string; rg?: string }[] = [{ name: 'node' }];
if (rg) engines.push({ name: 'ripgrep', rg });

describe('ripgrep location', () => {
  it('looks under appRoot for @vscode/ripgrep and ripgrep-universal, packed or not', () => {
    const c = ripgrepCandidates('/app', 'win32', 'x64');
    assert.ok(c.includes(path.join('/app', 'node_modules', '@vscode', 'ripgrep', 'bin', 'rg.exe')));
    assert.ok(
      c.includes(
        path.join(
          '/app',
          'node_modules.asar.unpacked',
          '@vscode',
          'ripgrep-universal',
          'bin',
          'win32-x64',
          'rg.exe',
        ),
      ),
    );
    assert.equal(findRipgrep(mkdtempSync(path.join(os.tmpdir(), 'asi-norg-'))), undefined);
  });
});

for (const engine of engines) {
  describe(`searchSessions with the ${engine.name} engine (real transcripts)`, () => {
    it('finds a literal case-insensitively, with the entry kind, and leaves metadata out', async () => {
      const { summary, hits } = await run('PHX.SERVER', engine);
      assert.equal(summary.engine, engine.rg ? 'ripgrep' : 'node');
      const short = hits.filter((h) => h.file === 'short.jsonl');
      assert.deepEqual(
        short.map((h) => [h.line, h.kind, h.text]),
        [
          [4, 'user', 'phx.server'],
          [6, 'thinking', 'phx.server'],
          [8, 'tool-call', 'phx.server'],
        ].filter(([line]) => short.some((h) => h.line === line)),
      );
      assert.ok(short.some((h) => h.line === 4 && h.kind === 'user'));
      // The working directory is in every line's metadata, never a result.
      const cwd = await run('/home/marco/projects/spotter', engine);
      assert.ok(cwd.hits.every((h) => h.kind !== 'metadata'));
      assert.ok(cwd.summary.hidden > 0);
    });

    it('case-sensitive literals and regexes', async () => {
      const exact = await run('PHX.SERVER', { ...engine, caseSensitive: true });
      assert.equal(exact.hits.length, 0);
      const re = await run('phx\\.serv(er|ice)', { ...engine, regex: true });
      const lit = await run('phx.server', engine);
      assert.deepEqual(re.hits, lit.hits);
      assert.ok(lit.hits.length > 0);
    });

    it('a literal with a quote finds its escaped form and shows it unescaped', async () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'asi-search-'));
      const file = path.join(dir, 'quoted.jsonl');
      const line = readFileSync(SHORT, 'utf8')
        .split('\n')[3]!
        .replace(
          'mix phx.server doesnt seem to start',
          'run \\"mix phx.server\\" please\\nthen café',
        );
      writeFileSync(file, `${line}\n`);
      const sessions: SessionHits[] = [];
      await searchSessions({
        targets: [target(file, 'claude-code')],
        query: { text: '"mix phx.server" please\nthen CAFÉ', regex: false, caseSensitive: false },
        filters: NO_FILTERS,
        ...(engine.rg && { rg: engine.rg }),
        onHits: (u) => sessions.push(u),
      });
      const hit = sessions.at(-1)?.hits[0];
      assert.ok(hit, 'found');
      assert.equal(hit.kind, 'user');
      assert.equal(hit.text, '"mix phx.server" please\nthen café');
      const { text, highlight } = hit.snippet;
      assert.equal(text.slice(highlight[0], highlight[1]), '"mix phx.server" please then café');
    });

    it('filters: entry kind, harness, project, date range', async () => {
      const tools = await run('phx.server', { ...engine, filters: { kind: 'tool' } });
      assert.ok(tools.hits.length > 0);
      assert.ok(tools.hits.every((h) => h.kind === 'tool-call' || h.kind === 'tool-output'));
      const users = await run('phx.server', { ...engine, filters: { kind: 'user' } });
      assert.ok(users.hits.every((h) => h.kind === 'user'));
      assert.ok(users.hits.some((h) => h.file === 'short.jsonl' && h.line === 4));
      const codex = await run('sha=', { ...engine, filters: { harnesses: ['codex'] } });
      assert.ok(codex.hits.length > 0);
      assert.ok(codex.hits.every((h) => h.file.startsWith('rollout-')));
      const project = await run('phx.server', { ...engine, filters: { projects: ['/p/codex'] } });
      assert.equal(project.hits.length, 0);
      // short.jsonl was written on 2026-02-10: a range before that keeps nothing of it.
      const before = await run('phx.server', { ...engine, filters: { to: '2026-01-31' } });
      assert.equal(before.hits.filter((h) => h.file === 'short.jsonl').length, 0);
      const during = await run('phx.server', {
        ...engine,
        filters: { from: '2026-02-09', to: '2026-02-12' },
      });
      assert.ok(during.hits.some((h) => h.file === 'short.jsonl'));
    });

    it('stops at the result cap and when cancelled', async () => {
      const capped = await searchSessions({
        targets: TARGETS,
        query: { text: 'e', regex: false, caseSensitive: false },
        filters: NO_FILTERS,
        maxResults: 5,
        ...(engine.rg && { rg: engine.rg }),
      });
      assert.equal(capped.results, 5);
      assert.equal(capped.truncated, true);
      const controller = new AbortController();
      controller.abort();
      const cancelled = await searchSessions({
        targets: TARGETS,
        query: { text: 'e', regex: false, caseSensitive: false },
        filters: NO_FILTERS,
        signal: controller.signal,
        ...(engine.rg && { rg: engine.rg }),
      });
      assert.equal(cancelled.cancelled, true);
      assert.equal(cancelled.results, 0);
    });
  });
}

describe('the two engines agree', () => {
  it('ripgrep and the Node scanner find the same results in a 2.7 MB real session (long lines too)', async (t) => {
    if (!rg)
      return t.diagnostic('no code-server ripgrep on this machine: only the Node engine ran');
    const big =
      'test/fixtures/real/claude/spotter/transcripts/258c7280-ae70-4798-800f-63464d01a85d.jsonl';
    const lines = readFileSync(big, 'utf8').split('\n');
    assert.ok(
      lines.some((l) => l.length > 64 * 1024),
      'the file has lines longer than a read block',
    );
    const both = async (text: string, regex: boolean) => {
      const results: string[][] = [];
      for (const engine of [undefined, rg]) {
        const hits: string[] = [];
        await searchSessions({
          targets: [target(big, 'claude-code')],
          query: { text, regex, caseSensitive: false },
          filters: NO_FILTERS,
          ...(engine && { rg: engine }),
          onHits: (u) => {
            hits.length = 0;
            hits.push(...u.hits.map((h) => `${h.line}:${h.offset}:${h.kind}:${h.text}`));
          },
        });
        results.push(hits);
      }
      return results;
    };
    for (const [text, regex] of [
      ['defmodule', false],
      ['mix (test|compile)', true],
    ] as const) {
      const [node, ripgrep] = await both(text, regex);
      assert.ok(node!.length > 0, text);
      assert.deepEqual(ripgrep, node, text);
    }
  });
});

describe('collectSearchTargets: downloaded remote transcripts', () => {
  it('lists the cached main file of each session of a known connection, with its format', async () => {
    const storage = mkdtempSync(path.join(os.tmpdir(), 'asi-search-cache-'));
    const cache = new TranscriptCache(storage);
    const sha = createHash('sha256').update(readFileSync(CODEX)).digest('hex');
    const temp = await cache.tempPath();
    copyFileSync(CODEX, temp);
    await cache.commit(temp, sha);
    const descriptor = {
      fileKey: 'main',
      availability: 'available',
      url: null,
      byteSize: readFileSync(CODEX).length,
      rawSha256: sha,
      uploadedAt: '2026-02-23T12:30:00Z',
      lastObservedAt: null,
      permanentFailureReason: null,
    };
    await cache.saveDescriptors('remote-1/s-1', [descriptor]);
    await cache.saveDescriptors('gone/s-2', [descriptor]);
    await cache.saveDescriptors('remote-1/s-3', [{ ...descriptor, rawSha256: 'f'.repeat(64) }]);
    const targets = await collectSearchTargets({
      connections: [{ connectionId: 'remote-1', source: undefined, sessions: [] }],
      storageDir: storage,
    });
    assert.deepEqual(
      targets.map((t) => [t.key, t.format, t.origin, t.session.id]),
      [['remote-1/s-1', 'codex', 'remote', 's-1']],
    );
    assert.equal(targets[0]!.path, cache.pathFor(sha));
  });
});
