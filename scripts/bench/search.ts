/**
 * Search across sessions on a generated corpus (the local bench's 200 MB Claude Code +
 * Codex corpus, copied until it is SEARCH_BENCH_MB large, 2 GB by default; written once
 * to os.tmpdir()): a literal and a regex, each as our whole search (the ripgrep VS Code
 * ships, every match located in its JSON line, unescaped, classified by the format
 * normalizer, filtered) and as plain ripgrep (`rg [-F] -i PATTERN FILES`, its output
 * drained) on the same files, alternating, three rounds, medians.
 *
 * The figures: time to the first result shown, our throughput (corpus MB / full search
 * time, no result cap), and our throughput ÷ plain ripgrep's. The corpus is in the page
 * cache (it was just written or read), so these are CPU figures, not disk speed.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { cp, mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  NO_FILTERS,
  enginePattern,
  type SearchQuery,
} from '../../src/domain/search/searchQuery.ts';
import { findRipgrep } from '../../src/sources/search/ripgrep.ts';
import { searchSessions, type SearchTarget } from '../../src/sources/search/sessionSearch.ts';
import { localCorpus } from './corpora.ts';

const MB = 1_048_576;
const CORPUS_VERSION = 'v1';

interface Row {
  name: string;
  value: number;
  unit: string;
}

/** The ripgrep of the code-server the tests use (the same binary VS Code ships). */
export function shippedRipgrep(): string | undefined {
  const cache = path.join(os.homedir(), '.cache', 'agent-session-inspector');
  if (!existsSync(cache)) return undefined;
  for (const dir of readdirSync(cache)
    .filter((d) => d.startsWith('code-server-'))
    .sort()
    .reverse()) {
    const rg = findRipgrep(path.join(cache, dir, 'node_modules', 'code-server', 'lib', 'vscode'));
    if (rg) return rg;
  }
  return undefined;
}

function jsonlFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) jsonlFiles(full, out);
    else if (entry.name.endsWith('.jsonl')) out.push(full);
  }
  return out;
}

/** The local corpus copied `copies` times (whole copies: every file is a real transcript). */
async function searchCorpus(targetMb: number): Promise<{ files: string[]; bytes: number }> {
  const base = await localCorpus();
  const baseBytes = jsonlFiles(base.root).reduce((n, f) => n + statSync(f).size, 0);
  const copies = Math.max(1, Math.round((targetMb * MB) / baseBytes));
  const dir = path.join(
    os.tmpdir(),
    `agent-session-inspector-bench-search-${CORPUS_VERSION}-${copies}`,
  );
  const marker = path.join(dir, 'done');
  if (!existsSync(marker)) {
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    for (let i = 0; i < copies; i++)
      await cp(base.root, path.join(dir, `copy-${i}`), { recursive: true });
    await writeFile(marker, '');
  }
  // Newest first, as the local source lists sessions (and the search reads them).
  const files = jsonlFiles(dir)
    .map((f) => ({ f, stat: statSync(f) }))
    .sort((a, b) => b.stat.mtimeMs - a.stat.mtimeMs)
    .map((x) => x.f);
  return { files, bytes: files.reduce((n, f) => n + statSync(f).size, 0) };
}

function targetsOf(files: string[]): SearchTarget[] {
  return files.map((file) => {
    const codex =
      file.includes(`${path.sep}codex${path.sep}`) || path.basename(file).startsWith('rollout-');
    return {
      key: `local/${file}`,
      path: file,
      format: codex ? 'codex' : 'claude-code',
      session: {
        id: file,
        connectionId: 'local',
        label: path.basename(file),
        status: { status: 'finished', raw: 'finished' },
      },
      facts: { harness: codex ? 'codex' : 'claude-code' },
      origin: 'local',
    };
  });
}

/** Plain ripgrep over the files, output drained; ms. */
function plainRipgrep(rg: string, query: SearchQuery, files: string[]): Promise<number> {
  const pattern = enginePattern(query);
  const args = [
    '--no-config',
    ...(pattern.fixed ? ['-F'] : []),
    ...(query.caseSensitive ? [] : ['-i']),
    '-e',
    pattern.pattern,
    '--',
    ...files,
  ];
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(rg, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.on('data', () => undefined);
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 || code === 1
        ? resolve(performance.now() - started)
        : reject(new Error(`rg exited ${code}`)),
    );
  });
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function benchSearch(): Promise<Row[]> {
  const rg = shippedRipgrep();
  if (!rg)
    throw new Error(
      'no code-server ripgrep in ~/.cache/agent-session-inspector (run the integration tier once)',
    );
  const targetMb = Number(process.env.SEARCH_BENCH_MB ?? 2048);
  const { files, bytes } = await searchCorpus(targetMb);
  const targets = targetsOf(files);
  const mb = bytes / MB;
  const rows: Row[] = [{ name: 'search: corpus size', value: Math.round(mb), unit: 'MB' }];
  const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
  const queries: [string, SearchQuery][] = [
    ['literal', { text: 'the test reproduces the', regex: false, caseSensitive: false }],
    ['regex', { text: 'fail(ing|ed) (test|build)s?', regex: true, caseSensitive: false }],
  ];
  // Warm the page cache once (the corpus may just have been copied or evicted).
  await plainRipgrep(rg, queries[0]![1], files);
  for (const [label, query] of queries) {
    const ours: number[] = [];
    const plain: number[] = [];
    const first: number[] = [];
    let results = 0;
    for (let round = 0; round < 3; round++) {
      plain.push(await plainRipgrep(rg, query, files));
      const started = performance.now();
      const summary = await searchSessions({
        targets,
        query,
        filters: NO_FILTERS,
        rg,
        maxResults: Number.POSITIVE_INFINITY,
      });
      ours.push(performance.now() - started);
      first.push(summary.firstResultMs ?? Number.NaN);
      results = summary.results;
    }
    const oursMs = median(ours);
    const plainMs = median(plain);
    rows.push(
      { name: `search: ${label}, time to first result`, value: round(median(first)), unit: 'ms' },
      { name: `search: ${label}, full search (ours)`, value: round(oursMs), unit: 'ms' },
      { name: `search: ${label}, results shown`, value: results, unit: 'results' },
      {
        name: `search: ${label}, throughput (ours)`,
        value: round(mb / (oursMs / 1000)),
        unit: 'MB/s',
      },
      { name: `search: ${label}, plain ripgrep`, value: round(plainMs), unit: 'ms' },
      {
        name: `search: ${label}, throughput ours ÷ plain ripgrep`,
        value: round(plainMs / oursMs, 2),
        unit: 'ratio',
      },
    );
  }
  return rows;
}
