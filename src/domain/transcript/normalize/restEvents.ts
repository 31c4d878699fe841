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
    const event = raw;
    c.id = str(event.id);
    c.timestamp = str(event.created_at);
    const type = str(event.type) ?? '';
    const system = (subtype: string, text: string, extra: Record<string, unknown> = {}) =>
      entries.push(textEntry('system', c, text, FULL, { subtype, ...extra }));
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
        const entry = toolCallEntry(c, { callId, name, input: event.tool_input }, FULL);
        if (callId && !calls.has(callId)) calls.set(callId, entry);
        entries.push(entry);
        break;
      }
      case api.CLIENT_TOOL_PENDING: {
        const pending = Array.isArray(event.pending_calls) ? event.pending_calls : [];
        for (const call of pending) {
          const p = obj(call);
          const callId = str(p?.tool_call_id) ?? '';
          const name = str(p?.tool_name) ?? '';
          const entry = toolCallEntry(
            c,
            { callId, name, input: p?.tool_input, client: true },
            FULL,
          );
          if (callId && !calls.has(callId)) calls.set(callId, entry);
          entries.push(entry);
        }
        if (pending.length === 0)
          system(type, 'Waiting for client tools', { level: api.eventLevel(type) ?? 'warning' });
        break;
      }
      case api.TOOL_OUTPUT: {
        const callId = str(event.tool_call_id) ?? '';
        const error = event.error;
        const hasError = api.isToolError(error);
        const output =
          hasError && (event.tool_output === undefined || event.tool_output === null)
            ? pretty(error)
            : pretty(event.tool_output ?? null);
        const result = { output, isError: hasError, source: c.source, timestamp: c.timestamp };
        const call = calls.get(callId);
        if (call && call.status === 'pending') applyResult(call, result, FULL);
        else entries.push(orphanResultEntry(c, callId, result, FULL));
        break;
      }
      case api.COMPACTION: {
        const extra: Record<string, unknown> = {};
        const turns = num(event.turns_compacted);
        const compacted = num(event.events_compacted);
        if (turns !== undefined) extra.turnsCompacted = turns;
        if (compacted !== undefined) extra.eventsCompacted = compacted;
        entries.push(textEntry('compaction', c, str(event.summary_text) ?? '', FULL, extra));
        break;
      }
      case api.CONTEXT_LIMIT_EXCEEDED: {
        const used = num(event.input_tokens);
        const window = num(event.model_context_window);
        const detail =
          used !== undefined && window !== undefined ? `: ${used} of ${window} tokens` : '';
        system(type, `Context limit exceeded${detail}`, { level: api.eventLevel(type) ?? 'error' });
        break;
      }
      case api.STEP_TRANSITION:
        system(type, `${str(event.from_step) ?? '?'} → ${str(event.to_step) ?? '?'}`);
        break;
      case api.SESSION_INTERRUPTED:
        system(type, 'Session interrupted', { level: api.eventLevel(type) ?? 'warning' });
        break;
      case api.IMAGE_READ:
      case api.ARTIFACT_UPLOAD: {
        const file = obj(event.image) ?? obj(event.artifact) ?? {};
        const attachment = fileAttachment(type === api.IMAGE_READ ? 'image' : 'artifact', file);
        const verb = type === api.IMAGE_READ ? 'Read image' : 'Uploaded';
        system(type, `${verb} ${attachment.name ?? ''}`.trim(), { attachments: [attachment] });
        break;
      }
      case api.SKILL_LOAD: {
        const version = str(event.skill_version);
        system(type, `Loaded skill ${str(event.skill_name) ?? ''}${version ? ` v${version}` : ''}`);
        break;
      }
      default:
        entries.push(unknownEntry(c, type, event, FULL));
    }
  });
  entries.forEach((entry, index) => (entry.index = index));
  return entries;
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
