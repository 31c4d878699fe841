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
  if (!entry.path.startsWith(root.path + sep)) return undefined;
  const parts = entry.path.slice(root.path.length + 1).split(sep);
  const name = parts.at(-1)!;
  const saved = {
    path: entry.path,
    root: root.path,
    size: entry.size,
    mtimeMs: entry.mtimeMs,
    ino: entry.ino,
    dev: entry.dev,
  };
  if (root.harness === 'codex') {
    const archived = parts[0] === 'archived_sessions';
    if ((!archived && parts[0] !== 'sessions') || !CODEX_FILE.test(name)) return undefined;
    const id = UUID_TAIL.exec(name)?.[1];
    return {
      ...saved,
      harness: 'codex',
      role: 'session',
      ...(id ? { sessionId: id } : {}),
      ...(archived ? { archived: true } : {}),
    };
  }
  if (parts[0] !== 'projects' || !name.endsWith('.jsonl')) return undefined;
  const projectDir = parts[1]!;
  const agent = AGENT_FILE.exec(name);
  if (parts.length === 3) {
    return {
      ...saved,
      harness: 'claude-code',
      projectDir,
      ...(agent
        ? { role: 'subagent' as const, agentId: agent[1]! }
        : { role: 'session' as const, sessionId: name.slice(0, -'.jsonl'.length) }),
    };
  }
  if (parts.length !== 5 || parts[3] !== 'subagents' || !agent) return undefined;
  return {
    ...saved,
    harness: 'claude-code',
    role: 'subagent',
    sessionId: parts[2]!,
    agentId: agent[1]!,
    projectDir,
    // The meta file's contents were saved with the transcript's head (index format 3).
    ...(entry.meta ? { metaPath: `${entry.path.slice(0, -'.jsonl'.length)}.meta.json` } : {}),
  };
}
