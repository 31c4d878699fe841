/** Entry builders shared by every format, so each kind is shaped (and capped) one way. */
import type {
  Attachment,
  SourceSpan,
  SubagentRef,
  ToolCallEntry,
  TranscriptEntry,
  UnknownEntry,
} from '../model.ts';
import { fileRefsOf } from './files.ts';
import { clip, isObject, markTruncated, oneLine, pretty } from './text.ts';

export interface Common {
  source: SourceSpan;
  timestamp?: string | undefined;
  id?: string | undefined;
  turnId?: string | undefined;
  sidechain?: boolean | undefined;
}

/** The base fields, leaving out the undefined ones (entries stay small on the wire). */
export function base(
  common: Common,
): Pick<
  TranscriptEntry,
  'index' | 'source' | 'truncated' | 'timestamp' | 'id' | 'turnId' | 'sidechain'
> {
  const entry: Pick<
    TranscriptEntry,
    'index' | 'source' | 'truncated' | 'timestamp' | 'id' | 'turnId' | 'sidechain'
  > = { index: -1, source: common.source, truncated: false };
  if (common.timestamp) entry.timestamp = common.timestamp;
  if (common.id) entry.id = common.id;
  if (common.turnId) entry.turnId = common.turnId;
  if (common.sidechain) entry.sidechain = true;
  return entry;
}

export function textEntry<K extends 'assistant' | 'thinking' | 'system' | 'compaction'>(
  kind: K,
  common: Common,
  text: string,
  max: number,
  extra: Record<string, unknown> = {},
): TranscriptEntry {
  const entry = { ...base(common), kind, ...extra } as TranscriptEntry & { text: string };
  if (kind === 'thinking') (entry as { collapsed?: boolean }).collapsed = true;
  entry.text = clip(entry, 'text', text, max);
  return entry;
}

export function userEntry(
  common: Common,
  text: string,
  variant: 'prompt' | 'meta' | 'command' | 'compact-summary' | 'interrupt',
  max: number,
  attachments?: Attachment[],
): TranscriptEntry {
  const entry = { ...base(common), kind: 'user', variant, text: '' } as TranscriptEntry & {
    kind: 'user';
  };
  entry.text = clip(entry, 'text', text, max);
  if (attachments && attachments.length > 0) entry.attachments = attachments;
  return entry;
}

export function unknownEntry(
  common: Common,
  type: string,
  value: unknown,
  max: number,
): UnknownEntry {
  const entry: UnknownEntry = { ...base(common), kind: 'unknown', type, raw: '' };
  entry.raw = clip(entry, 'text', pretty(value), max);
  return entry;
}

const SUMMARY_KEYS = [
  'command',
  'cmd',
  'file_path',
  'filePath',
  'notebook_path',
  'path',
  'pattern',
  'url',
  'query',
  'description',
  'prompt',
];

/** One line naming what the call does: its command, path, pattern or description. */
export function toolSummary(input: unknown): string {
  if (typeof input === 'string') return oneLine(input);
  if (!isObject(input)) return '';
  for (const key of SUMMARY_KEYS) {
    const value = input[key];
    if (typeof value === 'string' && value) return oneLine(value);
    if (Array.isArray(value) && value.every((v) => typeof v === 'string') && value.length) {
      // ['bash', '-lc', 'cmd'] → 'cmd'
      const parts = value as string[];
      const shell = parts.length === 3 && parts[1] === '-lc' ? parts[2]! : parts.join(' ');
      return oneLine(shell);
    }
  }
  const first = Object.values(input).find((v) => typeof v === 'string');
  return typeof first === 'string' ? oneLine(first) : '';
}

export interface ToolCallFields {
  callId: string;
  name: string;
  /** The input as given (object or string); shown as pretty JSON. */
  input: unknown;
  cwd?: string | undefined;
  client?: boolean;
}

export function toolCallEntry(common: Common, fields: ToolCallFields, max: number): ToolCallEntry {
  const entry: ToolCallEntry = {
    ...base(common),
    kind: 'tool-call',
    callId: fields.callId,
    name: fields.name,
    input: '',
    summary: toolSummary(fields.input),
    files: fileRefsOf(fields.input, fields.cwd),
    status: 'pending',
  };
  entry.input = clip(entry, 'input', pretty(fields.input), max);
  if (fields.client) entry.client = true;
  return entry;
}

export interface ResultFields {
  output: string;
  /** Full length when `output` was already capped. */
  outputLength?: number | undefined;
  isError: boolean;
  source?: SourceSpan;
  timestamp?: string | undefined;
  subagent?: SubagentRef | undefined;
}

/** Puts a result on a call entry (a copy when the entry may be cached). */
export function applyResult(entry: ToolCallEntry, result: ResultFields, max: number): void {
  entry.output = clip(entry, 'output', result.output, max);
  const full = result.outputLength ?? result.output.length;
  if (full > entry.output.length) markTruncated(entry, 'output', full);
  entry.isError = result.isError;
  entry.status = result.isError ? 'error' : 'ok';
  if (result.source) entry.resultSource = result.source;
  if (result.timestamp) entry.resultTimestamp = result.timestamp;
  if (result.subagent) entry.subagent = result.subagent;
}

/** A result whose call is not in the transcript: shown on its own, never dropped. */
export function orphanResultEntry(
  common: Common,
  callId: string,
  result: ResultFields,
  max: number,
): ToolCallEntry {
  const entry = toolCallEntry(common, { callId, name: '', input: '' }, max);
  entry.orphanResult = true;
  applyResult(entry, result, max);
  delete entry.resultSource;
  return entry;
}

/** A copy of a full entry with its text parts cut to `max` (for in-memory sources). */
export function capEntry(entry: TranscriptEntry, max: number): TranscriptEntry {
  const copy = { ...entry };
  if (entry.truncatedParts) copy.truncatedParts = [...entry.truncatedParts];
  if (entry.fullLength) copy.fullLength = { ...entry.fullLength };
  switch (copy.kind) {
    case 'tool-call':
      copy.input = clip(copy, 'input', copy.input, max);
      if (copy.output !== undefined) copy.output = clip(copy, 'output', copy.output, max);
      break;
    case 'unknown':
      copy.raw = clip(copy, 'text', copy.raw, max);
      break;
    case 'error':
      break;
    default:
      copy.text = clip(copy, 'text', copy.text, max);
  }
  return copy;
}
