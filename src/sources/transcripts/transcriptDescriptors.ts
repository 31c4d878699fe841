import * as z from 'zod';
import { BackendError } from '../../domain/errors.ts';

/**
 * One archived transcript file as get-agent-session-transcript describes it (seed 002).
 * Everything but fileKey and availability is optional in practice; a presigned `url` is
 * present only for available and stale files.
 */
export interface TranscriptDescriptor {
  fileKey: string;
  availability: string;
  url: string | null;
  byteSize: number | null;
  /** Lower-case hex. */
  rawSha256: string | null;
  uploadedAt: string | null;
  lastObservedAt: string | null;
  permanentFailureReason: string | null;
}

const text = z.string().nullish().catch(null);
// A malformed number or checksum is dropped rather than failing the file: without them
// the file simply cannot be verified, and fetchFile says so.
const size = z.number().int().nonnegative().nullish().catch(null);
const sha256 = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/)
  .nullish()
  .catch(null);

const fileRow = z.looseObject({
  fileKey: z.string().min(1),
  availability: z.string().min(1),
  url: text,
  byteSize: size,
  rawSha256: sha256,
  uploadedAt: text,
  lastObservedAt: text,
  permanentFailureReason: text,
});

const envelope = z.looseObject({
  sessionId: z.string().nullish().catch(null),
  files: z.array(z.unknown()),
});

export interface ParsedTranscriptList {
  descriptors: TranscriptDescriptor[];
  /** Files the server sent that could not be read (shown as a count, never dropped silently). */
  invalidFiles: number;
}

/** Validates one get-agent-session-transcript answer; bad files are counted, not fatal. */
export function parseTranscriptList(payload: unknown): ParsedTranscriptList {
  const parsed = envelope.safeParse(payload);
  if (!parsed.success) {
    throw new BackendError(
      'invalidResponse',
      'get-agent-session-transcript answered in an unexpected shape (no list of files).',
    );
  }
  const descriptors: TranscriptDescriptor[] = [];
  let invalidFiles = 0;
  const seen = new Set<string>();
  for (const item of parsed.data.files) {
    const row = fileRow.safeParse(item);
    // A repeated fileKey would make "which file" ambiguous: the first one wins.
    if (!row.success || seen.has(row.data.fileKey)) {
      invalidFiles++;
      continue;
    }
    seen.add(row.data.fileKey);
    const d = row.data;
    descriptors.push({
      fileKey: d.fileKey,
      availability: d.availability,
      url: d.url ?? null,
      byteSize: d.byteSize ?? null,
      rawSha256: d.rawSha256?.toLowerCase() ?? null,
      uploadedAt: d.uploadedAt ?? null,
      lastObservedAt: d.lastObservedAt ?? null,
      permanentFailureReason: d.permanentFailureReason ?? null,
    });
  }
  // The main run first, then subagents in the server's order.
  descriptors.sort((a, b) => Number(b.fileKey === 'main') - Number(a.fileKey === 'main'));
  return { descriptors, invalidFiles };
}
