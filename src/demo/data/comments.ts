import { MINUTE_MS } from '../clock.ts';
import type { SeededRandom } from '../random.ts';
import type { ClosedloopSession } from './closedloopSessions.ts';
import { displayName, type DemoUser, type People } from './people.ts';

export interface CommentAuthorFields {
  readonly authorId: string;
  readonly authorName: string;
  readonly authorAvatarUrl: string | null;
}

export interface TraceReply extends CommentAuthorFields {
  readonly id: string;
  readonly threadId: string;
  readonly body: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly editedAt: string | null;
}

export interface TraceComment extends CommentAuthorFields {
  readonly id: string;
  readonly threadId: string;
  readonly body: string;
  readonly status: 'OPEN' | 'RESOLVED';
  readonly resolvedAt: string | null;
  readonly resolvedById: string | null;
  readonly resolvedByName: string | null;
  readonly resolvedByAvatarUrl: string | null;
  readonly target: { readonly type: 'session'; readonly id: string };
  readonly artifactId: string;
  readonly anchor: {
    readonly anchorType: 'text';
    readonly traceId: string;
    readonly turnId: string;
    readonly row: number;
    readonly selectedText: string;
    readonly sourceText: string;
    readonly startOffset: number;
    readonly endOffset: number;
    readonly sessionId: string;
    readonly actor: {
      readonly name: string;
      readonly human: { readonly id: string; readonly name: string } | null;
    };
  };
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly editedAt: string | null;
  readonly replies: readonly TraceReply[];
}

/** A text block inside one JSONL line of a transcript, usable as an anchor source. */
interface TextSpot {
  readonly row: number;
  readonly turnId: string;
  readonly text: string;
  readonly human: boolean;
}

const MAX_ANCHOR_TEXT = 5_000;

function collectStrings(value: unknown, out: string[]): void {
  if (typeof value === 'string') return;
  if (Array.isArray(value)) {
    for (const item of value) collectStrings(item, out);
    return;
  }
  if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if ((key === 'text' || key === 'content') && typeof v === 'string' && v.trim().length >= 30)
        out.push(v);
      else collectStrings(v, out);
    }
  }
}

/** Text blocks of a Claude Code or Codex JSONL transcript, each with its line number. */
export function textSpots(jsonl: string): TextSpot[] {
  const spots: TextSpot[] = [];
  const lines = jsonl.split('\n');
  for (let row = 0; row < lines.length; row++) {
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(lines[row]!) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (!parsed || typeof parsed !== 'object') continue;
    const payload = parsed['payload'] as Record<string, unknown> | undefined;
    const message = parsed['message'] as Record<string, unknown> | undefined;
    const turnId = String(parsed['uuid'] ?? payload?.['id'] ?? `row-${row}`);
    // A person typed it: a user line that is not a tool result, meta or summary line.
    const human =
      (parsed['type'] === 'user' &&
        parsed['toolUseResult'] === undefined &&
        !parsed['isMeta'] &&
        !parsed['isCompactSummary'] &&
        !JSON.stringify(message?.['content'] ?? '').includes('"tool_result"')) ||
      (payload?.['type'] === 'message' && payload['role'] === 'user');
    const strings: string[] = [];
    collectStrings(message ?? payload ?? parsed, strings);
    for (const text of strings) spots.push({ row, turnId, text, human });
  }
  return spots;
}

function safeBoundary(text: string, index: number): number {
  const code = text.charCodeAt(index);
  // Never cut a surrogate pair in half.
  return code >= 0xdc00 && code <= 0xdfff ? index + 1 : index;
}

function anchorRange(text: string, rng: SeededRandom): [number, number] {
  const length = Math.min(text.length, rng.int(12, 80));
  let start = rng.int(0, text.length - length);
  // Prefer starting on a word, as a person selecting text would.
  for (let k = 0; k < 20 && start > 0 && text[start - 1] !== ' '; k++) start--;
  start = safeBoundary(text, start);
  const end = safeBoundary(text, Math.min(text.length, start + length));
  return [start, Math.max(end, Math.min(text.length, start + 1))];
}

const BODIES = [
  'Check this trace span — the retry here looks like it swallows the original error.',
  'Nice catch. Can we keep this approach for the other handlers too?',
  'This tool call ran against production. Was that intended?',
  'The agent misread the stack trace here; the failing frame is the one below.',
  'Marking for the weekly review: good example of a clean plan.',
  'Why did it skip the tests at this point? `npm test` was available.',
  'Note for the prompt library: ask for a dry run before `terraform apply`.',
  '<img src=x onerror=alert(1)> is what the agent wrote into the HTML — please sanitize.',
];
const REPLIES = [
  'Agreed.',
  'Fixed in the follow-up run.',
  'I will open a ticket.',
  'Not intended, reverting.',
];

function authorFields(user: DemoUser): CommentAuthorFields {
  return { authorId: user.id, authorName: displayName(user), authorAvatarUrl: user.avatarUrl };
}

export function buildComments(
  session: ClosedloopSession,
  transcript: string,
  people: People,
  rng: SeededRandom,
  count: number,
): TraceComment[] {
  const spots = textSpots(transcript);
  if (spots.length === 0) return [];
  const comments: TraceComment[] = [];
  let atMs = session.startedAtMs;
  for (let i = 0; i < count; i++) {
    const spot = rng.pick(spots);
    const windowStart =
      spot.text.length > MAX_ANCHOR_TEXT ? rng.int(0, spot.text.length - MAX_ANCHOR_TEXT) : 0;
    const sourceText = spot.text.slice(windowStart, windowStart + MAX_ANCHOR_TEXT);
    const [startOffset, endOffset] = anchorRange(sourceText, rng);
    const author = rng.pick(people.users);
    const threadId = rng.uuid();
    atMs += rng.int(1, 120) * MINUTE_MS;
    const createdAt = new Date(atMs).toISOString();
    const edited = rng.bool(0.2);
    const resolved = rng.bool(0.4);
    // Older resolved rows carry no resolver metadata at all.
    const resolver = resolved && rng.bool(0.75) ? rng.pick(people.users) : null;
    const resolvedAt = resolved ? new Date(atMs + rng.int(5, 600) * MINUTE_MS).toISOString() : null;
    const replies: TraceReply[] = [];
    for (let r = rng.int(0, i % 4 === 0 ? 3 : 1); r > 0; r--) {
      const replyAt = new Date(atMs + rng.int(1, 300) * MINUTE_MS).toISOString();
      replies.push({
        id: rng.uuid(),
        threadId,
        body: rng.pick(REPLIES),
        createdAt: replyAt,
        updatedAt: replyAt,
        editedAt: null,
        ...authorFields(rng.pick(people.users)),
      });
    }
    replies.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
    const longBody = i === 1 && count > 20;
    comments.push({
      id: rng.uuid(),
      threadId,
      body: longBody ? `${'Detailed review notes. '.repeat(420)}(end)` : rng.pick(BODIES),
      status: resolved ? 'RESOLVED' : 'OPEN',
      resolvedAt: resolver ? resolvedAt : null,
      resolvedById: resolver?.id ?? null,
      resolvedByName: resolver ? displayName(resolver) : null,
      resolvedByAvatarUrl: resolver?.avatarUrl ?? null,
      target: { type: 'session', id: session.id },
      artifactId: session.id,
      anchor: {
        anchorType: 'text',
        traceId: session.externalSessionId,
        turnId: spot.turnId,
        row: spot.row,
        selectedText: sourceText.slice(startOffset, endOffset),
        sourceText,
        startOffset,
        endOffset,
        sessionId: session.id,
        actor: spot.human
          ? {
              name: displayName(session.user),
              human: { id: session.user.id, name: displayName(session.user) },
            }
          : { name: session.harness, human: null },
      },
      createdAt,
      updatedAt: edited ? new Date(atMs + 60_000).toISOString() : createdAt,
      editedAt: edited ? new Date(atMs + 60_000).toISOString() : null,
      ...authorFields(author),
      replies,
    });
  }
  return comments;
}
