/**
 * A session's file changes, read from wherever its backend keeps the transcript: the main
 * file and every subagent file it names (or the server lists), each opened, read for the
 * calls that matter and closed again.
 */
import { collectChangeEntries } from '../../domain/changes/collectEntries.ts';
import {
  sessionChanges,
  type ChangeTranscript,
  type SessionChanges,
} from '../../domain/changes/sessionChanges.ts';
import type { SessionSummary } from '../../domain/session.ts';
import type { SessionSource } from '../sessionSource.ts';
import { openSessionTranscript } from './openTranscript.ts';

export interface LoadedSessionChanges extends SessionChanges {
  /** Subagents the transcript names whose own transcript could not be read. */
  missingSubagents: string[];
}

export async function loadSessionChanges(request: {
  session: SessionSummary;
  source: SessionSource;
  storageDir: string;
  signal?: AbortSignal;
}): Promise<LoadedSessionChanges | undefined> {
  const { session, source, storageDir, signal } = request;
  const main = await openSessionTranscript({
    session,
    source,
    storageDir,
    fileKey: 'main',
    signal,
  });
  if (!main) return undefined;
  let entries;
  const agentIds = new Set<string>();
  try {
    entries = await collectChangeEntries(main.source, signal);
    for (const entry of entries) {
      if (entry.kind === 'subagent') agentIds.add(entry.agentId);
      else if (entry.kind === 'tool-call' && entry.subagent) agentIds.add(entry.subagent.agentId);
    }
    // A listing's key may carry the file id (`subagent:agent-<id>`); the transcript names the agent.
    for (const file of main.files)
      if (file.fileKey.startsWith('subagent:'))
        agentIds.add(file.fileKey.slice('subagent:'.length).replace(/^agent-/, ''));
  } finally {
    await main.close();
  }
  const subagents = new Map<string, ChangeTranscript>();
  const missingSubagents: string[] = [];
  for (const agentId of agentIds) {
    signal?.throwIfAborted();
    try {
      const opened = await openSessionTranscript({
        session,
        source,
        storageDir,
        fileKey: `subagent:${agentId}`,
        signal,
      });
      if (!opened) continue;
      try {
        subagents.set(agentId, {
          entries: await collectChangeEntries(opened.source, signal),
        });
      } finally {
        await opened.close();
      }
    } catch {
      if (signal?.aborted) throw signal.reason;
      missingSubagents.push(agentId);
    }
  }
  const changes = sessionChanges({
    main: { entries },
    subagents,
    ...(session.project ? { cwd: session.project } : {}),
  });
  return { ...changes, missingSubagents };
}
