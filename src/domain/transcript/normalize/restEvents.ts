/**
 * Agents REST API session events → entries, in event order. Tool inputs pair with their
 * outputs by tool_call_id; a client_tool_pending event adds one pending tool-call entry per
 * call the service waits for (marked `client`), which a later tool_output completes.
 *
 *   input_message → user            thinking → thinking        agent_output → assistant
 *   structured_output → assistant (json)                       compaction → compaction
 *   tool_input (+ tool_output) → tool-call                     tool_output alone → orphan
 *   step_transition, session_interrupted, context_limit_exceeded, image_read,
 *   artifact_upload, skill_load → system                      anything else → unknown
 *
 * Source positions are 1-based positions in the event list given.
 */
import type { Attachment, ToolCallEntry, TranscriptEntry } from '../model.ts';
import {
  applyResult,
  orphanResultEntry,
  textEntry,
  toolCallEntry,
  unknownEntry,
  userEntry,
  type Common,
} from './entries.ts';
import { isObject, num, obj, pretty, str, type Json } from './text.ts';
import * as api from '../../formats/agentsApi.ts';

const FULL = Number.POSITIVE_INFINITY;

export function normalizeRestEvents(events: readonly unknown[]): TranscriptEntry[] {
  const entries: TranscriptEntry[] = [];
  const calls = new Map<string, ToolCallEntry>();
  events.forEach((raw, i) => {
    const c: Common = { source: { first: i + 1, last: i + 1 } };
    if (!isObject(raw)) {
      entries.push(unknownEntry(c, '', raw, FULL));
      return;
    }
    c.id = str(raw.id);
    c.timestamp = str(raw.created_at);
    addEvent(entries, calls, c, raw);
  });
  entries.forEach((entry, index) => (entry.index = index));
  return entries;
}

/** Tool calls waiting for their output, by tool_call_id (the first call of an id wins). */
type PendingCalls = Map<string, ToolCallEntry>;

/** The entries of one event, in order; a tool output completes its call's entry instead. */
function addEvent(entries: TranscriptEntry[], calls: PendingCalls, c: Common, event: Json): void {
  const type = str(event.type) ?? '';
  switch (type) {
    case api.INPUT_MESSAGE:
      entries.push(inputMessage(c, event));
      break;
    case api.THINKING:
      entries.push(textEntry('thinking', c, contentText(event.content), FULL));
      break;
    case api.AGENT_OUTPUT:
      entries.push(textEntry('assistant', c, contentText(event.content), FULL));
      break;
    case api.STRUCTURED_OUTPUT:
      entries.push(textEntry('assistant', c, pretty(event.output ?? null), FULL, { json: true }));
      break;
    case api.TOOL_INPUT: {
      const callId = str(event.tool_call_id) ?? '';
      const name = str(event.tool_name) ?? '';
      entries.push(
        trackCall(calls, toolCallEntry(c, { callId, name, input: event.tool_input }, FULL)),
      );
      break;
    }
    case api.CLIENT_TOOL_PENDING:
      entries.push(...clientToolPending(calls, c, event));
      break;
    case api.TOOL_OUTPUT: {
      const orphan = toolOutput(calls, c, event);
      if (orphan) entries.push(orphan);
      break;
    }
    case api.COMPACTION:
      entries.push(compaction(c, event));
      break;
    default:
      entries.push(systemEvent(c, type, event) ?? unknownEntry(c, type, event, FULL));
  }
}

function trackCall(calls: PendingCalls, entry: ToolCallEntry): ToolCallEntry {
  if (entry.callId && !calls.has(entry.callId)) calls.set(entry.callId, entry);
  return entry;
}

/** One pending tool-call entry per call the service waits for, or a system line without any. */
function clientToolPending(calls: PendingCalls, c: Common, event: Json): TranscriptEntry[] {
  const pending = Array.isArray(event.pending_calls) ? event.pending_calls : [];
  const entries: TranscriptEntry[] = [];
  for (const call of pending) {
    const p = obj(call);
    const callId = str(p?.tool_call_id) ?? '';
    const name = str(p?.tool_name) ?? '';
    const input = { callId, name, input: p?.tool_input, client: true };
    entries.push(trackCall(calls, toolCallEntry(c, input, FULL)));
  }
  if (pending.length === 0) {
    const type = api.CLIENT_TOOL_PENDING;
    const level = api.eventLevel(type) ?? 'warning';
    entries.push(
      textEntry('system', c, 'Waiting for client tools', FULL, { subtype: type, level }),
    );
  }
  return entries;
}

/** Completes the pending call of the output's id; an orphan entry when there is none. */
function toolOutput(calls: PendingCalls, c: Common, event: Json): TranscriptEntry | undefined {
  const callId = str(event.tool_call_id) ?? '';
  const error = event.error;
  const hasError = api.isToolError(error);
  const output =
    hasError && (event.tool_output === undefined || event.tool_output === null)
      ? pretty(error)
      : pretty(event.tool_output ?? null);
  const result = { output, isError: hasError, source: c.source, timestamp: c.timestamp };
  const call = calls.get(callId);
  if (call && call.status === 'pending') {
    applyResult(call, result, FULL);
    return undefined;
  }
  return orphanResultEntry(c, callId, result, FULL);
}

function compaction(c: Common, event: Json): TranscriptEntry {
  const extra: Record<string, unknown> = {};
  const turns = num(event.turns_compacted);
  const compacted = num(event.events_compacted);
  if (turns !== undefined) extra.turnsCompacted = turns;
  if (compacted !== undefined) extra.eventsCompacted = compacted;
  return textEntry('compaction', c, str(event.summary_text) ?? '', FULL, extra);
}

/** The system line of an event type shown as one; undefined for a type this does not know. */
function systemEvent(c: Common, type: string, event: Json): TranscriptEntry | undefined {
  const system = (text: string, extra: Record<string, unknown> = {}) =>
    textEntry('system', c, text, FULL, { subtype: type, ...extra });
  switch (type) {
    case api.CONTEXT_LIMIT_EXCEEDED: {
      const used = num(event.input_tokens);
      const window = num(event.model_context_window);
      const detail =
        used !== undefined && window !== undefined ? `: ${used} of ${window} tokens` : '';
      return system(`Context limit exceeded${detail}`, { level: api.eventLevel(type) ?? 'error' });
    }
    case api.STEP_TRANSITION:
      return system(`${str(event.from_step) ?? '?'} → ${str(event.to_step) ?? '?'}`);
    case api.SESSION_INTERRUPTED:
      return system('Session interrupted', { level: api.eventLevel(type) ?? 'warning' });
    case api.IMAGE_READ:
    case api.ARTIFACT_UPLOAD: {
      const file = obj(event.image) ?? obj(event.artifact) ?? {};
      const attachment = fileAttachment(type === api.IMAGE_READ ? 'image' : 'artifact', file);
      const verb = type === api.IMAGE_READ ? 'Read image' : 'Uploaded';
      return system(`${verb} ${attachment.name ?? ''}`.trim(), { attachments: [attachment] });
    }
    case api.SKILL_LOAD: {
      const version = str(event.skill_version);
      return system(`Loaded skill ${str(event.skill_name) ?? ''}${version ? ` v${version}` : ''}`);
    }
    default:
      return undefined;
  }
}

function contentText(content: unknown): string {
  return typeof content === 'string' ? content : pretty(content ?? '');
}

function inputMessage(c: Common, event: Json): TranscriptEntry {
  const texts: string[] = [];
  const attachments: Attachment[] = [];
  const messages = Array.isArray(event.messages) ? event.messages : [];
  for (const message of messages) {
    const m = obj(message);
    if (m && typeof m.content === 'string' && (m.type === 'text' || m.type === undefined))
      texts.push(m.content);
    else if (m) attachments.push(fileAttachment(str(m.type) ?? 'unknown', m));
  }
  if (messages.length === 0 && typeof event.content === 'string') texts.push(event.content);
  return userEntry(c, texts.join('\n\n'), 'prompt', FULL, attachments);
}

function fileAttachment(type: string, file: Json): Attachment {
  const attachment: Attachment = { type };
  const mediaType = str(file.mime_type) ?? str(file.media_type);
  const bytes = num(file.size_bytes);
  const name = str(file.file_name) ?? str(file.name);
  if (mediaType) attachment.mediaType = mediaType;
  if (bytes !== undefined) attachment.bytes = bytes;
  if (name) attachment.name = name;
  return attachment;
}
