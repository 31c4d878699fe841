import type { SessionSummary } from '../../domain/session.ts';
import { MemoryTranscript } from '../../domain/transcript/memoryTranscript.ts';
import type { TranscriptSource } from '../../domain/transcript/model.ts';
import { TranscriptDocument, subagentFile } from '../../domain/transcript/transcriptDocument.ts';
import type { TranscriptFileView } from '../../shared/protocol.ts';
import { sourceOperation, type SessionSource } from '../sessionSource.ts';
import { RemoteTranscripts } from './remoteTranscripts.ts';

/** A session's transcript, opened from wherever its backend keeps it. */
export interface OpenedTranscript {
  source: TranscriptSource;
  files: TranscriptFileView[];
  fileKey: string;
  /** The local JSONL file, when there is one ("Open raw", live refresh). */
  path?: string;
  /** The file is the agent's own and may still grow (local sessions): watch it. */
  live?: boolean;
  close(): Promise<void>;
}

export interface OpenTranscriptRequest {
  session: SessionSummary;
  source: SessionSource;
  /** Where downloaded transcripts are cached (the extension's global storage). */
  storageDir: string;
  fileKey: string;
  signal?: AbortSignal;
  onProgress?: (progress: { bytesDone: number; bytesTotal?: number }) => void;
}

const remotes = new Map<string, RemoteTranscripts>();

/**
 * Reporting servers: signed-URL JSONL files (downloaded, checked, cached by checksum).
 * Platform servers: describe_session's reasoning events. Agents REST API: the session's
 * events. Local sources: the file itself. Returns undefined when the backend keeps none.
 */
export async function openSessionTranscript(
  request: OpenTranscriptRequest,
): Promise<OpenedTranscript | undefined> {
  const { session, source, fileKey, signal } = request;
  if (sourceOperation(source, 'localFiles')) {
    // Local rows are keyed by their file's path; subagent files sit beside it.
    const main = session.id;
    const path = fileKey === 'main' ? main : subagentFile(main, fileKey.replace(/^subagent:/, ''));
    const files: TranscriptFileView[] = [
      { fileKey: 'main', label: 'Transcript', availability: 'local', description: main },
    ];
    if (fileKey !== 'main')
      files.push({ fileKey, label: fileKey, availability: 'local', description: path });
    return { ...(await fromFile(path, files, fileKey)), live: true };
  }
  const tools = sourceOperation(source, 'tools');
  if (tools) {
    // Without a tool list, assume the tool is there and let the call fail.
    const hasTool = async (name: string) => (await tools.hasTool?.(name, signal)) ?? true;
    if (await hasTool('get-agent-session-transcript')) {
      const key = `${source.config.id}|${request.storageDir}`;
      let remote = remotes.get(key);
      if (!remote) {
        remote = new RemoteTranscripts({
          source: tools,
          storageDir: request.storageDir,
          connectionId: source.config.id,
        });
        remotes.set(key, remote);
      }
      const listing = await remote.listFiles(session.id, signal);
      const fileKeyOnServer = resolveFileKey(fileKey, listing.files);
      const path = await remote.fetchFile(session.id, fileKeyOnServer, {
        signal,
        onProgress: request.onProgress,
      });
      return fromFile(path, listing.files, fileKeyOnServer);
    }
    if (await hasTool('describe_session')) {
      const described = await tools.callJson(
        'describe_session',
        { session_id: session.id },
        signal,
      );
      const usage = (await hasTool('describe_session_token_usage'))
        ? await tools
            .callJson('describe_session_token_usage', { session_id: session.id }, signal)
            .catch(() => undefined)
        : undefined;
      return fromMemory(MemoryTranscript.fromItential(described, usage), 'Reasoning events');
    }
    return undefined;
  }
  const events = sourceOperation(source, 'events');
  if (events) {
    return fromMemory(
      MemoryTranscript.fromRestEvents(await events.listEvents(session.id, signal)),
      'Events',
    );
  }
  return undefined;
}

/**
 * A transcript names a subagent by its agent id (`subagent:<agentId>`); the server's file
 * key may carry the file's own id (`subagent:agent-<agentId>`). Match on the agent id.
 */
export function resolveFileKey(fileKey: string, files: readonly TranscriptFileView[]): string {
  if (fileKey === 'main' || files.some((f) => f.fileKey === fileKey)) return fileKey;
  const agentId = fileKey.replace(/^subagent:/, '');
  const match = files.find(
    (f) =>
      f.fileKey.startsWith('subagent:') &&
      (f.fileKey.endsWith(`-${agentId}`) || f.fileKey.endsWith(`:${agentId}`)),
  );
  return match?.fileKey ?? fileKey;
}

async function fromFile(
  path: string,
  files: TranscriptFileView[],
  fileKey: string,
): Promise<OpenedTranscript> {
  const document = await TranscriptDocument.open(path);
  return { source: document, files, fileKey, path, close: () => document.close() };
}

function fromMemory(transcript: MemoryTranscript, label: string): OpenedTranscript {
  return {
    source: transcript,
    files: [{ fileKey: 'main', label, availability: 'available', description: '' }],
    fileKey: 'main',
    close: async () => undefined,
  };
}
