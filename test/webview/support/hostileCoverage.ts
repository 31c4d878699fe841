/**
 * Which sessions of the hostile backend the webview suite renders: few enough to run in
 * `npm test`, chosen so that nothing the whole backend sends goes unrendered. Each session's
 * feed (what its panel receives) is read for payload placements: a payload (an exact text
 * of the corpus) at a place the webview renders, named by message and field, and for a
 * transcript entry by its kind (user variant, tool-call edit or not) and field. A greedy
 * cover then picks sessions until every place, every payload, every payload in every
 * Markdown-rendered place, and every shape (transcript state, format, subagent files,
 * comment anchors, manual tasks) of the whole set is in at least one chosen session.
 */
import type { TranscriptEntry } from '../../../src/shared/protocol.ts';
import type { SessionFeed } from './hostileFeeds.ts';

/** Places whose text the transcript view renders as Markdown: every payload goes there. */
const MARKDOWN_PLACES =
  /^(entry|fullText):(user:(?!command|interrupt)[^.]*|assistant|thinking|compaction|subagent)\.text$/;

/** Object keys that are field names (others, such as tool names as keys, are data). */
const FIELD_NAME = /^[A-Za-z_][\w-]{0,39}$/;

function entryClass(entry: TranscriptEntry): string {
  const e = entry as TranscriptEntry & { variant?: string; name?: string; input?: string };
  if (entry.kind === 'user') return `user:${e.variant ?? ''}`;
  if (entry.kind === 'tool-call') {
    const edit = /^(Edit|MultiEdit|Write|apply_patch)$/.test(e.name ?? '');
    return `tool-call:${edit ? 'edit' : 'other'}`;
  }
  return entry.kind;
}

export interface Placements {
  /** Cover items: `place:…`, `payload:…`, `markdown:…|…`, `shape:…`. */
  items: Set<string>;
  /** `place|payload` pairs (for the report). */
  pairs: Set<string>;
}

/** The payload placements and shapes of one session's feed. */
export function placementsOf(feed: SessionFeed, payloadIndex: Map<string, number>): Placements {
  const items = new Set<string>();
  const pairs = new Set<string>();
  const place = (where: string, text: string) => {
    const payload = payloadIndex.get(text);
    if (payload === undefined) return;
    items.add(`place:${where}`);
    items.add(`payload:${payload}`);
    pairs.add(`${where}|${payload}`);
    if (MARKDOWN_PLACES.test(where)) items.add(`markdown:${payload}`);
  };
  const walk = (value: unknown, where: string): void => {
    if (typeof value === 'string') {
      place(where, value);
      // A tool call's input is JSON text: its fields carry payloads as well.
      if (where.endsWith('.input') && value.startsWith('{')) {
        try {
          walk(JSON.parse(value), `${where}{json}`);
        } catch {
          // Not JSON: the text itself was checked above.
        }
      }
    } else if (Array.isArray(value)) {
      for (const item of value) walk(item, `${where}[]`);
    } else if (value && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        if (FIELD_NAME.test(key)) walk(item, `${where}.${key}`);
        else {
          place(`${where}{key}`, key);
          walk(item, `${where}.*`);
        }
      }
    }
  };
  for (const message of feed.messages) walk(message, message.type);
  for (const transcript of feed.transcripts) {
    items.add(`shape:transcript ${transcript.status.state}`);
    if (transcript.status.state === 'ready') {
      items.add(`shape:format ${transcript.status.format}`);
      walk(transcript.status, 'transcriptStatus.status');
    } else walk(transcript.status, `transcriptStatus.${transcript.status.state}`);
    walk(transcript.files, 'transcriptStatus.files');
    if (transcript.fileKey !== 'main') items.add('shape:subagent file');
    for (const entry of transcript.entries) {
      const kind = entryClass(entry);
      items.add(`shape:entry ${kind}`);
      walk(entry, `entry:${kind}`);
    }
    for (const [key, text] of Object.entries(transcript.fullTexts)) {
      const [index, part] = key.split(':');
      const entry = transcript.entries[Number(index)];
      if (entry) place(`fullText:${entryClass(entry)}.${part}`, text);
    }
  }
  if (feed.reveals.length > 0) items.add('shape:comment anchors');
  for (const message of feed.messages) {
    if (message.type === 'manualTask' || message.type === 'manualTaskFailed')
      items.add(`shape:${message.type}`);
    if (message.type === 'comments') items.add(`shape:comments ${message.view.state}`);
  }
  return { items, pairs };
}

export interface Cover {
  chosen: SessionFeed[];
  /** Distinct items, place|payload pairs, places and payloads over all sessions. */
  all: { items: number; pairs: number; places: number; payloads: number; markdown: number };
  /** Items of the whole set no chosen session has (empty by construction). */
  missed: string[];
}

/** Sessions until every item of the whole set is in one (the most new items first). */
export function chooseCovering(feeds: readonly SessionFeed[], payloads: readonly string[]): Cover {
  const payloadIndex = new Map(payloads.map((text, i) => [text, i]));
  const placements = feeds.map((feed) => placementsOf(feed, payloadIndex));
  const all = new Set<string>();
  const pairs = new Set<string>();
  for (const p of placements) {
    for (const item of p.items) all.add(item);
    for (const pair of p.pairs) pairs.add(pair);
  }
  const left = new Set(all);
  const chosen: number[] = [];
  while (left.size > 0) {
    let best = -1;
    let gain = 0;
    placements.forEach((p, i) => {
      let n = 0;
      for (const item of p.items) if (left.has(item)) n++;
      if (n > gain) [best, gain] = [i, n];
    });
    if (best < 0) break;
    chosen.push(best);
    for (const item of placements[best]!.items) left.delete(item);
  }
  const count = (prefix: string) => [...all].filter((i) => i.startsWith(prefix)).length;
  return {
    // In the backend's order, so sessions of one backend stay together.
    chosen: chosen.sort((a, b) => a - b).map((i) => feeds[i]!),
    all: {
      items: all.size,
      pairs: pairs.size,
      places: count('place:'),
      payloads: count('payload:'),
      markdown: count('markdown:'),
    },
    missed: [...left],
  };
}
