import { createWriteStream, type WriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import type { SessionSummary } from '../../domain/session.ts';
import { exportEntries, type ExportProgress } from '../../domain/export/exportRunner.ts';
import {
  rendererFor,
  type ExportFormat,
  type ExportMeta,
} from '../../domain/export/transcriptExport.ts';
import type { SessionSource } from '../sessionSource.ts';
import { openSessionTranscript } from './openTranscript.ts';

export interface ExportRequest {
  session: SessionSummary;
  source: SessionSource;
  storageDir: string;
  format: ExportFormat;
  meta: ExportMeta;
  /** The file to write (replaced only when the export finished). */
  path: string;
  /** Each subagent's transcript after the parent's, where the backend keeps them. */
  includeSubagents: boolean;
  signal?: AbortSignal;
  onProgress?: (progress: ExportProgress & { part: string }) => void;
}

export interface ExportResult {
  entries: number;
  subagents: number;
  /** Subagent transcripts that could not be read (label: reason); noted in the file too. */
  failed: string[];
  bytes: number;
  /** False when the backend keeps no transcript for the session (nothing was written). */
  found: boolean;
}

/**
 * A session's transcript (and optionally its subagents') written to `path` as Markdown or
 * HTML. The file is written beside the target and renamed over it at the end, so a
 * cancelled or failed export leaves no half-written file and an older export intact.
 */
export async function exportSessionTranscript(request: ExportRequest): Promise<ExportResult> {
  const { session, source, signal } = request;
  const renderer = rendererFor(request.format);
  const temp = `${request.path}.${process.pid}.${Date.now()}.partial`;
  const result: ExportResult = { entries: 0, subagents: 0, failed: [], bytes: 0, found: true };
  const open = (fileKey: string) =>
    openSessionTranscript({ session, source, storageDir: request.storageDir, fileKey, signal });
  const main = await open('main');
  if (!main) return { ...result, found: false };
  const out = createWriteStream(temp, { encoding: 'utf8' });
  const write = (chunk: string) => writeChunk(out, chunk, result);
  try {
    await write(renderer.begin(request.meta));
    const subagents = new Map<string, string>();
    try {
      result.entries = await exportEntries(main.source, renderer, write, {
        signal,
        onProgress: (p) => request.onProgress?.({ ...p, part: 'main' }),
        onSubagent: (fileKey, label) => {
          if (!subagents.has(fileKey)) subagents.set(fileKey, label);
        },
      });
    } finally {
      await main.close();
    }
    if (request.includeSubagents) {
      for (const [fileKey, label] of subagents) {
        signal?.throwIfAborted();
        const title = `Subagent: ${label}`;
        await write(renderer.section(title, fileKey));
        try {
          const opened = await open(fileKey);
          if (!opened) {
            result.failed.push(`${label}: no transcript`);
            await write(renderer.note('The backend keeps no transcript for this subagent.'));
            continue;
          }
          try {
            result.entries += await exportEntries(opened.source, renderer, write, {
              signal,
              onProgress: (p) => request.onProgress?.({ ...p, part: label }),
            });
            result.subagents++;
          } finally {
            await opened.close();
          }
        } catch (error) {
          if (signal?.aborted) throw error;
          const reason = (error as Error).message;
          result.failed.push(`${label}: ${reason}`);
          await write(renderer.note(`This subagent's transcript could not be read: ${reason}`));
        }
      }
    }
    await write(renderer.end());
    await closeStream(out);
    await rename(temp, request.path);
    return result;
  } catch (error) {
    out.destroy();
    await rm(temp, { force: true });
    throw error;
  }
}

/** Writes with backpressure: waits for the stream to drain before the next window. */
async function writeChunk(out: WriteStream, chunk: string, result: ExportResult): Promise<void> {
  if (chunk === '') return;
  result.bytes += Buffer.byteLength(chunk);
  if (out.write(chunk)) return;
  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => {
      out.off('drain', onDrain);
      reject(error);
    };
    const onDrain = () => {
      out.off('error', onError);
      resolve();
    };
    out.once('drain', onDrain);
    out.once('error', onError);
  });
}

function closeStream(out: WriteStream): Promise<void> {
  return new Promise((resolve, reject) => {
    out.once('error', reject);
    out.end(() => resolve());
  });
}
