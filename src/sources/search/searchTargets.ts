/**
 * The files a search across sessions reads: every transcript the local source lists
 * (its own discovery and scan, so the same files, harness, project and times as the
 * tree) and every remote transcript already downloaded into the transcript cache (the
 * main file of each session the cache's index names for a connection we still have).
 * Nothing is downloaded for a search.
 */
import { open, stat } from 'node:fs/promises';
import { detectFormat } from '../../domain/transcript/formatDetect.ts';
import type { FileFormat } from '../../domain/transcript/model.ts';
import type { SessionSummary } from '../../domain/session.ts';
import { sourceOperation, type SessionSource } from '../sessionSource.ts';
import { TranscriptCache } from '../transcripts/transcriptCache.ts';
import type { SearchTarget } from './sessionSearch.ts';

export interface SearchConnection {
  connectionId: string;
  source: SessionSource | undefined;
  /** The sessions the store has loaded (names, projects and times for remote files). */
  sessions: readonly SessionSummary[];
}

export async function collectSearchTargets(options: {
  connections: readonly SearchConnection[];
  /** The extension's global storage folder (the transcript cache lives there). */
  storageDir: string;
  signal?: AbortSignal;
}): Promise<SearchTarget[]> {
  const targets: SearchTarget[] = [];
  const remote: SearchConnection[] = [];
  for (const connection of options.connections) {
    const local = sourceOperation(connection.source, 'localFiles');
    if (local) {
      for (const s of await local.sessionFiles(options.signal)) {
        targets.push({
          key: `${connection.connectionId}/${s.summary.id}`,
          path: s.path,
          format: s.harness,
          session: s.summary,
          facts: {
            harness: s.harness,
            ...(s.project !== undefined && { project: s.project }),
            ...times(s.summary, s.lastWriteMs),
          },
          origin: 'local',
        });
      }
    } else remote.push(connection);
  }
  if (remote.length) targets.push(...(await cachedTargets(remote, options.storageDir)));
  return targets;
}

async function cachedTargets(
  connections: readonly SearchConnection[],
  storageDir: string,
): Promise<SearchTarget[]> {
  const cache = new TranscriptCache(storageDir);
  const index = await cache.sessions();
  const out: SearchTarget[] = [];
  for (const [key, saved] of Object.entries(index)) {
    const connection = connections.find((c) => key.startsWith(`${c.connectionId}/`));
    if (!connection) continue;
    const sessionId = key.slice(connection.connectionId.length + 1);
    const main = saved.descriptors.find((d) => d.fileKey === 'main') ?? saved.descriptors[0];
    if (!main?.rawSha256) continue;
    const path = cache.pathFor(main.rawSha256.toLowerCase());
    if (!(await stat(path).catch(() => undefined))?.isFile()) continue;
    const known = connection.sessions.find((s) => s.id === sessionId);
    const session: SessionSummary = known ?? {
      id: sessionId,
      connectionId: connection.connectionId,
      label: sessionId,
      status: { status: 'unknown', raw: '' },
    };
    const uploaded = main.uploadedAt ? Date.parse(main.uploadedAt) : Number.NaN;
    out.push({
      key,
      path,
      format: await sniffFormat(path),
      session,
      facts: {
        ...(session.harness !== undefined && { harness: session.harness }),
        ...((session.project ?? session.repository) !== undefined && {
          project: session.project ?? session.repository,
        }),
        ...times(session, Number.isNaN(uploaded) ? undefined : uploaded),
      },
      origin: 'remote',
    });
  }
  return out;
}

function times(
  session: SessionSummary,
  fallbackLastMs: number | undefined,
): { firstMs?: number; lastMs?: number } {
  const first = session.startedAt ? Date.parse(session.startedAt) : Number.NaN;
  const lastText = session.lastActivityAt ?? session.endedAt;
  const last = lastText ? Date.parse(lastText) : (fallbackLastMs ?? Number.NaN);
  return {
    ...(!Number.isNaN(first) && { firstMs: first }),
    ...(!Number.isNaN(last) && { lastMs: last }),
  };
}

/** The format of a downloaded file, from its first lines (Claude Code when unclear). */
async function sniffFormat(path: string): Promise<FileFormat> {
  const handle = await open(path, 'r').catch(() => undefined);
  if (!handle) return 'claude-code';
  try {
    const buf = Buffer.allocUnsafe(64 * 1024);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    const lines = buf.toString('utf8', 0, bytesRead).split('\n').slice(0, -1);
    return detectFormat(lines) ?? 'claude-code';
  } finally {
    await handle.close();
  }
}
