/**
 * The listing a saved index implies: each entry's file as discovery would list it, named
 * from its path and with the size and times saved, so that a window can show the sessions
 * the index last saved before any folder is listed or file stat'ed (LocalIndex.savedSnapshot).
 */
import { sep } from 'node:path';
import {
  AGENT_FILE,
  CODEX_FILE,
  UUID_TAIL,
  type DiscoveredFile,
  type DiscoveryResult,
  type LocalRoot,
  type RootReport,
} from './discovery.ts';
import type { RestingFile } from './scanCache.ts';

/** Saved entries that no root's layout explains are left out (the next listing decides). */
export function listingFromIndex(
  roots: readonly LocalRoot[],
  entries: ReadonlyMap<string, RestingFile>,
): DiscoveryResult {
  const files: DiscoveredFile[] = [];
  const reports: RootReport[] = roots.map((root) => ({
    ...root,
    state: 'empty',
    sessionFiles: 0,
    subagentFiles: 0,
    archivedFiles: 0,
  }));
  for (const entry of entries.values()) {
    for (const report of reports) {
      const named = fileAt(report, entry);
      if (!named) continue;
      files.push(named);
      report.state = 'ok';
      if (named.role === 'subagent') report.subagentFiles++;
      else report.sessionFiles++;
      if (named.archived) report.archivedFiles++;
      break;
    }
  }
  return { roots: reports, files, problems: [] };
}

function fileAt(root: LocalRoot, entry: RestingFile): DiscoveredFile | undefined {
  const { path } = entry;
  if (!path.startsWith(root.path) || path[root.path.length] !== sep) return undefined;
  const parts = path.slice(root.path.length + 1).split(sep);
  const name = parts[parts.length - 1]!;
  if (root.harness === 'codex') {
    const archived = parts[0] === 'archived_sessions';
    if ((!archived && parts[0] !== 'sessions') || !CODEX_FILE.test(name)) return undefined;
    const file: DiscoveredFile = saved(entry, root, 'codex', 'session');
    const id = UUID_TAIL.exec(name)?.[1];
    if (id) file.sessionId = id;
    if (archived) file.archived = true;
    return file;
  }
  if (parts[0] !== 'projects' || !name.endsWith('.jsonl')) return undefined;
  const agent = AGENT_FILE.exec(name);
  if (parts.length === 3) {
    const file = saved(entry, root, 'claude-code', agent ? 'subagent' : 'session');
    if (agent) file.agentId = agent[1]!;
    else file.sessionId = name.slice(0, -'.jsonl'.length);
    file.projectDir = parts[1]!;
    return file;
  }
  if (parts.length !== 5 || parts[3] !== 'subagents' || !agent) return undefined;
  const file = saved(entry, root, 'claude-code', 'subagent');
  file.sessionId = parts[2]!;
  file.agentId = agent[1]!;
  file.projectDir = parts[1]!;
  // The meta file's contents were saved with the transcript's head (index format 3).
  if (entry.meta) file.metaPath = `${path.slice(0, -'.jsonl'.length)}.meta.json`;
  return file;
}

/** The fields every listed file has, with the size and times the index saved. */
function saved(
  entry: RestingFile,
  root: LocalRoot,
  harness: DiscoveredFile['harness'],
  role: DiscoveredFile['role'],
): DiscoveredFile {
  return {
    path: entry.path,
    harness,
    role,
    size: entry.size,
    mtimeMs: entry.mtimeMs,
    ino: entry.ino,
    dev: entry.dev,
    root: root.path,
  };
}
