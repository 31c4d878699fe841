/**
 * Reads from a transcript only the entries the Changes view needs (file-changing calls,
 * Reads, subagent spawns), with their full input and output: windows are capped at
 * PREVIEW_CHARS per text, and a cut patch or Read result would rebuild nothing.
 */
import type { ToolCallEntry, TranscriptEntry, TranscriptSource } from '../transcript/model.ts';

const WINDOW = 1000;
const EDIT_TOOLS = new Set(['Edit', 'MultiEdit', 'Write', 'Read']);

/** Whether a tool call may change or show a file (cheap test on the preview). */
function mayMatter(entry: ToolCallEntry): boolean {
  return EDIT_TOOLS.has(entry.name) || entry.input.includes('*** Begin Patch');
}

export async function collectChangeEntries(
  source: TranscriptSource,
  signal?: AbortSignal,
): Promise<TranscriptEntry[]> {
  const indexed = (source as { whenIndexed?: () => Promise<void> }).whenIndexed;
  if (indexed) await indexed.call(source);
  const kept: TranscriptEntry[] = [];
  const total = source.entryCount;
  for (let start = 0; start < total; start += WINDOW) {
    signal?.throwIfAborted();
    const window = await source.getWindow(start, WINDOW);
    for (const entry of window.entries) {
      if (entry.kind === 'subagent') {
        kept.push(entry);
        continue;
      }
      if (entry.kind !== 'tool-call') continue;
      if (!mayMatter(entry) && !entry.subagent) continue;
      kept.push(await withFullText(source, entry));
    }
  }
  return kept;
}

async function withFullText(
  source: TranscriptSource,
  entry: ToolCallEntry,
): Promise<ToolCallEntry> {
  const parts = entry.truncatedParts ?? [];
  if (!entry.truncated || parts.length === 0) return entry;
  const full = { ...entry };
  if (parts.includes('input'))
    full.input = (await source.fullText(entry.index, 'input')) ?? entry.input;
  // A Read's output only matters when whole; an edit's output says "created" in its first line.
  if (parts.includes('output') && entry.name === 'Read')
    full.output = (await source.fullText(entry.index, 'output')) ?? entry.output;
  return full;
}
