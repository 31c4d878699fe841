/**
 * The bench's corpora, from two generators with their own seeds and shapes:
 * test/support/localCorpus.ts (the local bench's corpus, few files with three very large
 * sessions) and test/support/heavyUserCorpus.ts (many modest files over months, images,
 * large tool outputs, Codex legacy/0.4x/0.5x rollouts), each at ~200 MB and ~2 GB. The
 * local, search and ccusage groups read them. Each is written once to os.tmpdir() under a
 * versioned name and reused (the 2 GB ones take minutes to write).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  HEAVY_USER_CORPUS_VERSION,
  heavyUserCorpusOptions,
  writeHeavyUserCorpus,
} from '../../test/support/heavyUserCorpus.ts';
import {
  localCorpus2gbOptions,
  writeLocalCorpus,
  type LocalCorpus,
} from '../../test/support/localCorpus.ts';

/** Bump when the local corpus's options or the generators change. */
const LOCAL_VERSION = 'v2';
/** Bump when localCorpus2gbOptions() or the generators change. */
const LOCAL_2GB_VERSION = 'v2';
const MB = 1_048_576;

export interface BenchCorpus {
  /** For row names: which generator, what size. */
  label: string;
  load: () => Promise<LocalCorpus>;
  /** Also time the Codex rollouts alone (`ccusage codex daily` against ours on CODEX_HOME only). */
  codexPart?: boolean;
}

/** The corpus in os.tmpdir()/<name>, written by `write` when it is not there yet. */
async function cached(name: string, write: (dir: string) => Promise<LocalCorpus>) {
  const dir = path.join(os.tmpdir(), name);
  const marker = path.join(dir, 'corpus.json');
  if (existsSync(marker)) return JSON.parse(readFileSync(marker, 'utf8')) as LocalCorpus;
  await rm(dir, { recursive: true, force: true });
  const written = await write(dir);
  writeFileSync(marker, JSON.stringify(written));
  return written;
}

/** The local bench's ~200 MB corpus: 170 sessions, three of them 36–56 MB. */
export const localCorpus = () =>
  cached(`agent-session-inspector-bench-local-${LOCAL_VERSION}`, (dir) =>
    writeLocalCorpus(dir, {
      seed: 2026,
      claudeSessions: 110,
      claudeTurns: 12,
      codexSessions: 60,
      codexTurns: 25,
      largeClaudeBytes: [56 * MB, 44 * MB, 36 * MB],
    }),
  );

export const localCorpus2gb = () =>
  cached(`agent-session-inspector-bench-local-2gb-${LOCAL_2GB_VERSION}`, (dir) =>
    writeLocalCorpus(dir, localCorpus2gbOptions()),
  );

export const heavyUserCorpus = (megabytes: 200 | 2048) =>
  cached(`agent-session-inspector-bench-heavy-${HEAVY_USER_CORPUS_VERSION}-${megabytes}MB`, (dir) =>
    writeHeavyUserCorpus(dir, heavyUserCorpusOptions(megabytes)),
  );

/** `npm run bench -- ccusage`: both generators at ~200 MB. */
export const CORPORA_200MB: BenchCorpus[] = [
  { label: 'local corpus, 200 MB', load: localCorpus },
  { label: 'heavy-user corpus, 200 MB', load: () => heavyUserCorpus(200), codexPart: true },
];

/** `npm run bench -- ccusage-2gb`: both generators at ~2 GB. */
export const CORPORA_2GB: BenchCorpus[] = [
  { label: 'local corpus, 2 GB', load: localCorpus2gb },
  { label: 'heavy-user corpus, 2 GB', load: () => heavyUserCorpus(2048), codexPart: true },
];

// `node scripts/bench/corpora.ts [200|2gb]`: writes the corpora ahead of a bench run.
if (import.meta.main) {
  const which = process.argv[2] === '2gb' ? CORPORA_2GB : CORPORA_200MB;
  for (const c of which) {
    const started = performance.now();
    const written = await c.load();
    console.log(
      `${c.label}: ${written.files.length} files, ${Math.round(written.bytes / 1_048_576)} MB in ${path.dirname(written.claudeDir)} (${Math.round((performance.now() - started) / 1000)} s)`,
    );
  }
}
