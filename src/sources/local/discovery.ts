/**
 * Where local transcripts live and which files they are. Claude Code: every folder of
 * `CLAUDE_CONFIG_DIR` (comma-separated) or else `~/.config/claude` and `~/.claude`, with
 * sessions at `projects/<encoded cwd>/<sessionId>.jsonl` and subagents at
 * `projects/<encoded cwd>/<sessionId>/subagents/agent-<agentId>.jsonl` (+ `.meta.json`),
 * or (2.0.x) `projects/<encoded cwd>/agent-<agentId>.jsonl` beside their parent.
 * Codex: `CODEX_HOME` or `~/.codex`, `sessions/YYYY/MM/DD/rollout-*.jsonl` and
 * `archived_sessions/`. Folders given as options (the `sessionInspector.local.*` settings)
 * come before the environment variables. Symlinks are followed; a folder reached twice (a loop, or two
 * roots that are one folder) is read once, and a file reached twice is listed once.
 */
import { type Dirent, readdirSync, realpathSync, type Stats, statSync } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Harness, LocalProblem } from './types.ts';
import { BlockingSlices } from '../../util/blockingSlices.ts';

export interface LocalRootsOptions {
  /** Claude Code folders; default `CLAUDE_CONFIG_DIR`, else `~/.config/claude` and `~/.claude`. */
  claudeConfigDirs?: readonly string[];
  /** Codex home; default `CODEX_HOME`, else `~/.codex`. */
  codexHome?: string;
  /** Environment to read (default process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Home folder (default os.homedir()). */
  homeDir?: string;
  /**
   * List the folders with blocking calls: for a process that does nothing else meanwhile
   * (the usage-report CLI), never the extension host. Same files, order and problems.
   */
  blockingReads?: boolean;
  /**
   * How the extension host lists (when not `blockingReads`): `slices` (default) of
   * blocking calls of a few ms each, the thread free between them, switching to promise
   * calls for the rest of the listing once a call is slow (a network disk); or `promises`
   * only. Same files, order and problems.
   */
  listing?: 'slices' | 'promises';
}

/**
 * The `sessionInspector.local.claudeConfigDirs` / `codexHome` setting values as root
 * options: blank entries dropped, an empty list or path meaning "not set" (the
 * environment then applies), anything that is not a string ignored.
 */
export function folderOptions(
  raw: unknown,
): Pick<LocalRootsOptions, 'claudeConfigDirs' | 'codexHome'> {
  const value = (raw ?? {}) as { claudeConfigDirs?: unknown; codexHome?: unknown };
  const dirs = Array.isArray(value.claudeConfigDirs)
    ? value.claudeConfigDirs.filter((d): d is string => typeof d === 'string' && d.trim() !== '')
    : [];
  const codex = typeof value.codexHome === 'string' ? value.codexHome.trim() : '';
  return {
    ...(dirs.length > 0 ? { claudeConfigDirs: dirs } : {}),
    ...(codex ? { codexHome: codex } : {}),
  };
}

/** `~` and `~/…` as the home folder (settings are not expanded by a shell). */
function expandHome(p: string, home: string): string {
  return p === '~' || p.startsWith('~/') ? join(home, p.slice(1)) : p;
}

export interface LocalRoot {
  harness: Harness;
  path: string;
  origin: 'option' | 'env' | 'default';
}

export interface RootReport extends LocalRoot {
  /** `duplicate`: the same folder as an earlier root (read once). */
  state: 'ok' | 'empty' | 'missing' | 'unreadable' | 'duplicate';
  sessionFiles: number;
  subagentFiles: number;
  archivedFiles: number;
}

export interface DiscoveredFile {
  path: string;
  harness: Harness;
  role: 'session' | 'subagent';
  size: number;
  mtimeMs: number;
  ino: number;
  dev: number;
  root: string;
  /**
   * From the file name: Claude `<sessionId>.jsonl`, the subagent's parent folder, Codex
   * uuid. Absent for a 2.0.x subagent beside its parent (its lines name the session).
   */
  sessionId?: string;
  agentId?: string;
  /** Claude subagent `agent-<agentId>.meta.json`, when present. */
  metaPath?: string;
  /** Claude: the encoded-cwd folder under projects/. */
  projectDir?: string;
  /** Codex: under archived_sessions/. */
  archived?: boolean;
}

export interface DiscoveryResult {
  roots: RootReport[];
  files: DiscoveredFile[];
  problems: LocalProblem[];
}

const CODEX_MAX_DEPTH = 6;
const CODEX_FILE = /^rollout-.*\.jsonl$/;
const UUID_TAIL = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i;
const AGENT_FILE = /^agent-(.+)\.jsonl$/;

/** The folders to read, in order; explicit options win over the environment. */
export function resolveRoots(options: LocalRootsOptions = {}): LocalRoot[] {
  const env = options.env ?? process.env;
  const home = options.homeDir ?? homedir();
  const roots: LocalRoot[] = [];
  if (options.claudeConfigDirs) {
    for (const p of options.claudeConfigDirs) {
      if (p.trim())
        roots.push({
          harness: 'claude-code',
          path: resolve(expandHome(p.trim(), home)),
          origin: 'option',
        });
    }
  } else {
    const fromEnv = (env.CLAUDE_CONFIG_DIR ?? '')
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean);
    if (fromEnv.length > 0) {
      for (const p of fromEnv)
        roots.push({ harness: 'claude-code', path: resolve(p), origin: 'env' });
    } else {
      roots.push({
        harness: 'claude-code',
        path: join(home, '.config', 'claude'),
        origin: 'default',
      });
      roots.push({ harness: 'claude-code', path: join(home, '.claude'), origin: 'default' });
    }
  }
  const fromOption = options.codexHome?.trim();
  const codex = fromOption || env.CODEX_HOME?.trim();
  roots.push(
    codex
      ? {
          harness: 'codex',
          path: resolve(expandHome(codex, home)),
          origin: fromOption ? 'option' : 'env',
        }
      : { harness: 'codex', path: join(home, '.codex'), origin: 'default' },
  );
  return roots;
}

/**
 * The file-system calls of a listing. Every style gives the same results; blocking calls
 * avoid a thread-pool round trip per folder and per entry.
 */
interface FolderIo {
  realpath(path: string): Promise<string>;
  readdir(dir: string): Promise<Dirent[]>;
  /** Each path's stats (symlinks followed) or its error, in the order given. */
  statAll(paths: readonly string[]): Promise<(Stats | NodeJS.ErrnoException)[]>;
}

const promiseIo: FolderIo = {
  realpath: (path) => realpath(path),
  readdir: (dir) => readdir(dir, { withFileTypes: true }),
  statAll: (paths) =>
    Promise.all(paths.map((path) => stat(path).catch((error: NodeJS.ErrnoException) => error))),
};

/** Each path's stats or its error, with blocking calls. */
function statEach(paths: readonly string[]): (Stats | NodeJS.ErrnoException)[] {
  return paths.map((path) => {
    try {
      return statSync(path);
    } catch (error) {
      return error as NodeJS.ErrnoException;
    }
  });
}

const blockingIo: FolderIo = {
  // realpathSync.native is the same system call as the promise realpath (not the JS walk).
  realpath: async (path) => realpathSync.native(path),
  readdir: async (dir) => readdirSync(dir, { withFileTypes: true }),
  statAll: async (paths) => statEach(paths),
};

/** Blocking calls that take this long per call are slow (not the page cache). */
const SLOW_CALL_MS = 0.25;
/** Stats per blocking call group (each group timed on its own; small, for a slow disk). */
const STAT_GROUP = 16;

/**
 * Blocking calls in slices (BlockingSlices): a listing of 10,000 files costs one
 * thread-pool round trip per slice instead of one per file and folder; promise calls
 * for the rest of the listing once call groups are slow (SLOW_CALL_MS per call).
 */
function slicedIo(): FolderIo {
  const slices = new BlockingSlices();
  return {
    realpath: async (path) => {
      await slices.pause();
      return slices.slow
        ? promiseIo.realpath(path)
        : slices.run(
            () => realpathSync.native(path),
            () => SLOW_CALL_MS,
          );
    },
    readdir: async (dir) => {
      await slices.pause();
      if (slices.slow) return promiseIo.readdir(dir);
      // One call for a whole folder: a large one may take longer.
      return slices.run(
        () => readdirSync(dir, { withFileTypes: true }),
        (entries) => SLOW_CALL_MS * (1 + entries.length / STAT_GROUP),
      );
    },
    statAll: async (paths) => {
      const out: (Stats | NodeJS.ErrnoException)[] = [];
      for (let i = 0; i < paths.length; i += STAT_GROUP) {
        await slices.pause();
        const group = paths.slice(i, i + STAT_GROUP);
        const stats = slices.slow
          ? await promiseIo.statAll(group)
          : slices.run(
              () => statEach(group),
              () => SLOW_CALL_MS * group.length,
            );
        for (const s of stats) out.push(s);
      }
      return out;
    },
  };
}

interface Walk {
  io: FolderIo;
  signal: AbortSignal | undefined;
  problems: LocalProblem[];
  /** dev:ino of folders already read. */
  dirs: Set<string>;
  /** dev:ino of files already listed. */
  files: Set<string>;
  out: DiscoveredFile[];
}

/** Lists every transcript file under the roots. Never throws for I/O: reports problems. */
export async function discoverLocalFiles(
  options: LocalRootsOptions = {},
  signal?: AbortSignal,
): Promise<DiscoveryResult> {
  const w: Walk = {
    io: options.blockingReads
      ? blockingIo
      : options.listing === 'promises'
        ? promiseIo
        : slicedIo(),
    signal,
    problems: [],
    dirs: new Set(),
    files: new Set(),
    out: [],
  };
  const reports: RootReport[] = [];
  const seenRoots = new Set<string>();
  for (const root of resolveRoots(options)) {
    signal?.throwIfAborted();
    const report: RootReport = {
      ...root,
      state: 'ok',
      sessionFiles: 0,
      subagentFiles: 0,
      archivedFiles: 0,
    };
    reports.push(report);
    const real = await w.io.realpath(root.path).catch((error: NodeJS.ErrnoException) => error);
    if (real instanceof Error) {
      report.state = real.code === 'ENOENT' || real.code === 'ENOTDIR' ? 'missing' : 'unreadable';
      // A folder the user named explicitly and that is missing is worth saying.
      if (report.state === 'unreadable' || root.origin !== 'default') {
        w.problems.push({
          kind: report.state === 'missing' ? 'missing-folder' : 'unreadable',
          path: root.path,
          message: `${root.harness === 'codex' ? 'Codex' : 'Claude Code'} folder ${root.path}: ${describe(real)}`,
        });
      }
      continue;
    }
    if (seenRoots.has(real)) {
      report.state = 'duplicate';
      continue;
    }
    seenRoots.add(real);
    const before = w.out.length;
    if (root.harness === 'claude-code') await walkClaude(w, root.path);
    else {
      await walkCodex(w, root.path, join(root.path, 'sessions'), 0, false);
      await walkCodex(w, root.path, join(root.path, 'archived_sessions'), 0, true);
    }
    for (const f of w.out.slice(before)) {
      if (f.role === 'subagent') report.subagentFiles++;
      else report.sessionFiles++;
      if (f.archived) report.archivedFiles++;
    }
    if (w.out.length === before) report.state = 'empty';
  }
  return { roots: reports, files: w.out, problems: w.problems };
}

function describe(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ENOENT':
      return 'not found';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ELOOP':
      return 'symbolic link loop';
    default:
      return error.code ?? error.message;
  }
}

interface Entry {
  name: string;
  path: string;
  stats: Stats;
}

/**
 * The entries of one folder with their stats (symlinks followed), in the folder's order;
 * regular files `unstated.test` accepts are only named (in `unstated.names`), not stat'ed.
 * Missing folders give an empty list; unreadable ones, loops and broken links are
 * reported, in the folder's order.
 */
async function list(
  w: Walk,
  dir: string,
  unstated?: { names: string[]; test: (name: string) => boolean },
): Promise<Entry[]> {
  w.signal?.throwIfAborted();
  let dirents: Dirent[];
  try {
    dirents = await w.io.readdir(dir);
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    if (e.code !== 'ENOENT' && e.code !== 'ENOTDIR') {
      w.problems.push({ kind: 'unreadable', path: dir, message: `Folder ${dir}: ${describe(e)}` });
    }
    return [];
  }
  const kept = dirents.filter((d) => {
    // Regular files only named (subagent meta files): listed without a stat.
    if (unstated && d.isFile() && unstated.test(d.name)) {
      unstated.names.push(d.name);
      return false;
    }
    return d.isFile() || d.isDirectory() || d.isSymbolicLink();
  });
  const paths = kept.map((d) => join(dir, d.name));
  const stats = await w.io.statAll(paths);
  const entries: Entry[] = [];
  kept.forEach((d, i) => {
    const path = paths[i]!;
    const s = stats[i]!;
    if (!(s instanceof Error)) {
      entries.push({ name: d.name, path, stats: s });
      return;
    }
    // Unreadable, a loop, or gone between the listing and the stat.
    w.problems.push({
      kind: s.code === 'ELOOP' ? 'symlink-loop' : 'unreadable',
      path,
      message: `${path}: ${describe(s)}`,
    });
  });
  return entries;
}

/** False (and a problem) when the folder was read already: a symlink loop or an alias. */
function enter(w: Walk, entry: Entry): boolean {
  const key = `${entry.stats.dev}:${entry.stats.ino}`;
  if (w.dirs.has(key)) {
    w.problems.push({
      kind: 'symlink-loop',
      path: entry.path,
      message: `${entry.path} leads to a folder already read (symbolic link loop or alias); skipped`,
    });
    return false;
  }
  w.dirs.add(key);
  return true;
}

function add(
  w: Walk,
  entry: Entry,
  file: Omit<DiscoveredFile, 'size' | 'mtimeMs' | 'ino' | 'dev'>,
): void {
  const key = `${entry.stats.dev}:${entry.stats.ino}`;
  if (w.files.has(key)) return; // the same file through another path
  w.files.add(key);
  w.out.push({
    ...file,
    size: entry.stats.size,
    mtimeMs: entry.stats.mtimeMs,
    ino: entry.stats.ino,
    dev: entry.stats.dev,
  });
}

/** Marks a starting folder as read, so a link back to it is seen as a loop. */
async function enterPath(w: Walk, path: string): Promise<void> {
  const [stats] = await w.io.statAll([path]);
  if (!(stats instanceof Error) && stats?.isDirectory()) w.dirs.add(`${stats.dev}:${stats.ino}`);
}

async function walkClaude(w: Walk, root: string): Promise<void> {
  await enterPath(w, join(root, 'projects'));
  for (const project of await list(w, join(root, 'projects'))) {
    if (!project.stats.isDirectory() || !enter(w, project)) continue;
    const entries = await list(w, project.path);
    for (const e of entries) {
      if (!e.stats.isFile() || !e.name.endsWith('.jsonl')) continue;
      // 2.0.x wrote subagents beside the session: their lines carry the parent's
      // sessionId (read by the scanner), the file name only the agent's id.
      const agent = AGENT_FILE.exec(e.name);
      add(w, e, {
        path: e.path,
        harness: 'claude-code',
        root,
        projectDir: project.name,
        ...(agent
          ? { role: 'subagent' as const, agentId: agent[1]! }
          : { role: 'session' as const, sessionId: e.name.slice(0, -'.jsonl'.length) }),
      });
    }
    for (const e of entries) {
      if (!e.stats.isDirectory() || !enter(w, e)) continue;
      const metaFiles: string[] = [];
      const subagents = await list(w, join(e.path, 'subagents'), {
        names: metaFiles,
        test: (name) => name.endsWith('.meta.json'),
      });
      const names = new Set([...subagents.map((s) => s.name), ...metaFiles]);
      for (const s of subagents) {
        const m = AGENT_FILE.exec(s.name);
        if (!m || !s.stats.isFile()) continue;
        const meta = `agent-${m[1]}.meta.json`;
        add(w, s, {
          path: s.path,
          harness: 'claude-code',
          role: 'subagent',
          root,
          sessionId: e.name,
          agentId: m[1]!,
          projectDir: project.name,
          ...(names.has(meta) ? { metaPath: join(e.path, 'subagents', meta) } : {}),
        });
      }
    }
  }
}

async function walkCodex(
  w: Walk,
  root: string,
  dir: string,
  depth: number,
  archived: boolean,
): Promise<void> {
  if (depth === 0) await enterPath(w, dir);
  for (const e of await list(w, dir)) {
    if (e.stats.isDirectory()) {
      if (depth < CODEX_MAX_DEPTH && enter(w, e))
        await walkCodex(w, root, e.path, depth + 1, archived);
    } else if (e.stats.isFile() && CODEX_FILE.test(e.name)) {
      const id = UUID_TAIL.exec(e.name)?.[1];
      add(w, e, {
        path: e.path,
        harness: 'codex',
        role: 'session',
        root,
        ...(id ? { sessionId: id } : {}),
        ...(archived ? { archived: true } : {}),
      });
    }
  }
}
