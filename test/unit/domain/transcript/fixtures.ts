/** Temp files and whole-transcript reads shared by the transcript tests. */
import { mkdtempSync, rmSync, writeFileSync, appendFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after } from 'node:test';
import type { TranscriptEntry, TranscriptSource } from '../../../../src/domain/transcript/model.ts';
import {
  TranscriptDocument,
  type OpenTranscriptOptions,
} from '../../../../src/domain/transcript/transcriptDocument.ts';

const root = mkdtempSync(join(tmpdir(), 'asi-transcript-test-'));
const open: TranscriptDocument[] = [];
after(async () => {
  await Promise.all(open.map((d) => d.close()));
  rmSync(root, { recursive: true, force: true });
});

let counter = 0;

/** Writes `content` to a fresh temp file (optionally at a relative path) and returns its path. */
export function tempFile(content: string | Buffer, name?: string): string {
  const path = join(root, name ?? `t${++counter}.jsonl`);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
  return path;
}

export function append(path: string, content: string): void {
  appendFileSync(path, content);
}

/** Opens and fully indexes a document (closed after the file's tests). */
export async function openDoc(
  path: string,
  options: OpenTranscriptOptions = {},
): Promise<TranscriptDocument> {
  const doc = await TranscriptDocument.open(path, options);
  open.push(doc);
  await doc.whenIndexed();
  return doc;
}

/** Writes JSONL lines and opens them. */
export async function docOf(
  lines: readonly (string | object)[],
  options: OpenTranscriptOptions = {},
): Promise<TranscriptDocument> {
  const text = lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n';
  return openDoc(tempFile(text), options);
}

/** Every entry, read window by window. */
export async function allEntries(source: TranscriptSource, size = 97): Promise<TranscriptEntry[]> {
  const out: TranscriptEntry[] = [];
  for (let start = 0; start < source.entryCount; start += size) {
    const window = await source.getWindow(start, size);
    out.push(...window.entries);
  }
  return out;
}

export function countKinds(entries: readonly TranscriptEntry[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const e of entries) counts[e.kind] = (counts[e.kind] ?? 0) + 1;
  return counts;
}
