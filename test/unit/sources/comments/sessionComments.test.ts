/**
 * Trace comments against the reference backend: paging to the end, status filters,
 * tolerant validation, and anchors placed in the downloaded transcript.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import {
  MAX_WINDOW,
  TranscriptDocument,
} from '../../../../src/domain/transcript/transcriptDocument.ts';
import type { TranscriptEntry } from '../../../../src/domain/transcript/model.ts';
import type { McpSource } from '../../../../src/sources/mcp/mcpSource.ts';
import {
  COMMENTS_TOOL,
  commentsView,
  fetchCommentPage,
  listSessionComments,
  placeAnchors,
  searchEntries,
  searchTranscript,
} from '../../../../src/sources/comments/sessionComments.ts';
import type { CommentView } from '../../../../src/shared/protocol.ts';
import { RemoteTranscripts } from '../../../../src/sources/transcripts/remoteTranscripts.ts';
import type { LooseJson } from '../../../support/backend.ts';
import { removeDir, Rig, tempStorage } from '../../../support/mcpRig.ts';

const rig = new Rig();
let source: McpSource;
let storage: string;
const many = () => rig.backend.fixtures.closedloop.manyComments;

before(async () => {
  await rig.start();
  source = rig.source();
  storage = await tempStorage();
});
after(async () => {
  await source.dispose();
  await rig.backend.close();
  await removeDir(storage);
});
beforeEach(() => rig.faults.clear());

describe('list-session-comments', () => {
  it('pages to the end following nextOffset', async () => {
    const mark = rig.mark;
    const list = await listSessionComments(source, many(), { pageSize: 25 });
    assert.equal(list.complete, true);
    assert.equal(list.invalidItems, 0);
    assert.equal(list.threads.length, 60);
    assert.equal(list.total, 60);
    assert.equal(new Set(list.threads.map((t) => t.id)).size, 60);
    assert.equal(rig.count(mark, { tool: COMMENTS_TOOL }), 3, '25 + 25 + 10');
    assert.ok(
      list.threads.some((t) => t.replies.length >= 2),
      'replies included',
    );
    const withReplies = list.threads.find((t) => t.replies.length > 0)!;
    assert.ok(withReplies.replies.every((r) => r.id && typeof r.body === 'string' && r.authorName));
    const t = list.threads[0]!;
    assert.ok(t.threadId && t.body && t.authorName && t.createdAt);
    assert.ok(t.anchor?.selectedText && t.anchor.sourceText?.includes(t.anchor.selectedText));
    assert.ok(t.anchor.actor, 'actor name');
    assert.equal(typeof t.anchor.row, 'number');

    const view = commentsView(list, 'ALL');
    assert.deepEqual(
      { state: view.state, total: view.total, hasMore: view.hasMore, message: view.message },
      { state: 'ready', total: 60, hasMore: false, message: undefined },
    );
  });

  it('one page: hasMore and nextOffset as the server says', async () => {
    const page = await fetchCommentPage(source, many(), { offset: 0, limit: 25 });
    assert.equal(page.threads.length, 25);
    assert.equal(page.hasMore, true);
    assert.equal(page.nextOffset, 25);
    const last = await fetchCommentPage(source, many(), { offset: 50, limit: 25 });
    assert.equal(last.threads.length, 10);
    assert.equal(last.hasMore, false);
    assert.equal(last.nextOffset, null);
  });

  it('filters OPEN and RESOLVED; ALL sends no filter', async () => {
    const mark = rig.mark;
    const open = await listSessionComments(source, many(), { filter: 'OPEN' });
    const resolved = await listSessionComments(source, many(), { filter: 'RESOLVED' });
    const all = await listSessionComments(source, many(), { filter: 'ALL' });
    assert.ok(open.threads.length > 0 && resolved.threads.length > 0);
    assert.ok(open.threads.every((t) => t.status === 'OPEN' && t.resolvedAt === undefined));
    assert.ok(resolved.threads.every((t) => t.status === 'RESOLVED'));
    assert.ok(resolved.threads.some((t) => t.resolvedByName !== undefined));
    assert.ok(
      resolved.threads.some((t) => t.resolvedByName === undefined),
      'nullable resolver',
    );
    assert.equal(open.total + resolved.total, all.total);
    assert.equal(open.threads.length, open.total);
    const statuses = rig.seen
      .slice(mark)
      .filter((r) => r.tool === COMMENTS_TOOL)
      .map((r) => (r.args as { status?: string }).status);
    assert.deepEqual(statuses, ['OPEN', 'RESOLVED', undefined], 'one page each at 100');
  });

  it('a session without comments is an empty, complete list', async () => {
    const list = await listSessionComments(
      source,
      rig.backend.fixtures.closedloop.mainAvailability.missing,
    );
    assert.deepEqual(list, { threads: [], total: 0, invalidItems: 0, complete: true });
  });

  it('unreadable items are counted, not fatal, and paging still reaches the end', async () => {
    // Ids removed and numbers turned into strings on every page.
    rig.faults.add({ match: { tool: COMMENTS_TOOL }, fault: { kind: 'schemaViolation' } });
    const list = await listSessionComments(source, many(), { pageSize: 25 });
    assert.equal(list.threads.length, 0);
    assert.equal(list.invalidItems, 60);
    assert.equal(list.complete, true);
    assert.match(
      commentsView(list, 'ALL').message ?? '',
      /^60 comments or replies could not be read/,
    );
  });
});

describe('list-session-comments paging that repeats itself', () => {
  /** Rewrites the tool's answers; after `cap` calls it ends paging, so a loop fails, not hangs. */
  function rewriteComments(
    edit: (value: LooseJson, args: LooseJson) => LooseJson,
    cap = 60,
  ): { calls: () => number } {
    let calls = 0;
    const counted = new Set<unknown>();
    rig.faults.add({
      match: { tool: COMMENTS_TOOL },
      fault: {
        kind: 'rewriteJson',
        rewrite: (value, req) => {
          // Text and structured content of one answer are rewritten alike: count answers.
          if (!counted.has(req)) {
            counted.add(req);
            calls++;
          }
          const out = edit(value, req.toolArguments);
          return calls > cap ? { ...out, hasMore: false, nextOffset: null } : out;
        },
      },
    });
    return { calls: () => calls };
  }

  it('the same comments for every offset: stops at once, each thread once, marked repeated', async () => {
    const first = await fetchCommentPage(source, many(), { offset: 0, limit: 25 });
    let firstItems: LooseJson[] | undefined;
    const counter = rewriteComments((value, args) => {
      if (args.offset === 0) firstItems ??= value.items;
      return args.offset > 0
        ? { ...value, items: firstItems, hasMore: true, nextOffset: args.offset + args.limit }
        : value;
    });
    const list = await listSessionComments(source, many(), { pageSize: 25 });
    assert.ok(
      counter.calls() <= 2,
      `stopped at the first repeated page (${counter.calls()} calls)`,
    );
    assert.equal(list.complete, false);
    assert.equal(list.repeated, true);
    assert.deepEqual(
      list.threads.map((t) => t.id),
      first.threads.map((t) => t.id),
    );
    assert.match(commentsView(list, 'ALL').message ?? '', /paging repeated itself/);
    assert.equal(commentsView(list, 'ALL').hasMore, false, 'no Load more that would loop again');
  });

  it('a next offset that goes back is a repeat too', async () => {
    rewriteComments((value, args) =>
      args.offset >= 25 ? { ...value, hasMore: true, nextOffset: 0 } : value,
    );
    const list = await listSessionComments(source, many(), { pageSize: 25 });
    assert.equal(list.complete, false);
    assert.equal(list.repeated, true);
    assert.equal(list.threads.length, 50);
  });

  it('pages of nothing readable under ever new offsets end at the bound', async () => {
    const counter = rewriteComments((value, args) => ({
      ...value,
      items: Array.from({ length: args.limit }, () => ({ body: 'no id' })),
      hasMore: true,
      nextOffset: args.offset + args.limit,
    }));
    const list = await listSessionComments(source, many(), { pageSize: 25, maxThreads: 100 });
    assert.ok(counter.calls() <= 5, `bounded (${counter.calls()} calls)`);
    assert.equal(list.complete, false);
    assert.equal(list.threads.length, 0);
  });
});

describe('anchors', () => {
  let threads: CommentView[];
  let doc: TranscriptDocument;
  let entries: TranscriptEntry[];

  before(async () => {
    threads = (await listSessionComments(source, many())).threads;
    const remote = new RemoteTranscripts({ source, storageDir: storage });
    doc = await TranscriptDocument.open(await remote.fetchFile(many(), 'main'));
    await doc.whenIndexed();
    entries = [];
    for (let start = 0; start < doc.entryCount; start += MAX_WINDOW)
      entries.push(...(await doc.getWindow(start, MAX_WINDOW)).entries);
  });
  after(() => doc.close());

  const textOf = (e: TranscriptEntry) =>
    e.kind === 'tool-call'
      ? `${e.input}\n${e.output ?? ''}`
      : e.kind === 'unknown'
        ? e.raw
        : e.kind === 'error'
          ? e.excerpt
          : e.text;

  it('places anchors by searching the transcript for the selected text', async () => {
    const placed = await placeAnchors(threads, searchTranscript(doc));
    assert.equal(placed.length, threads.length);
    const found = placed.filter((t) => t.entryIndex !== undefined);
    assert.ok(found.length >= threads.length * 0.8, `${found.length} of ${threads.length} placed`);
    for (const t of found) {
      const text = textOf(entries[t.entryIndex!]!);
      assert.ok(
        text.includes(t.anchor!.selectedText!) || text.includes(t.anchor!.sourceText!),
        `thread ${t.threadId} lands on text containing its anchor`,
      );
    }
    assert.ok(
      threads.every((t) => t.entryIndex === undefined),
      'the input is not modified',
    );
  });

  it('places the same anchors from entries in memory', async () => {
    const byDoc = await placeAnchors(threads, searchTranscript(doc));
    const byEntries = await placeAnchors(threads, entries);
    const agree = byEntries.filter((t, i) => t.entryIndex === byDoc[i]!.entryIndex).length;
    assert.ok(agree >= threads.length * 0.9, `${agree} of ${threads.length} agree`);
    assert.deepEqual(
      await placeAnchors(threads, searchEntries(entries)),
      byEntries,
      'a search function over entries is the same thing',
    );
  });

  it('falls back to the source text, and searches each text once', async () => {
    const calls: string[] = [];
    const search = async (text: string) => {
      calls.push(text);
      return text === 'the surrounding source text' ? 7 : null;
    };
    const thread = (id: string, selectedText?: string): CommentView => ({
      id,
      threadId: id,
      body: '',
      status: 'OPEN',
      replies: [],
      anchor: { selectedText, sourceText: 'the surrounding source text' },
    });
    const placed = await placeAnchors(
      [thread('a', 'selected words'), thread('b', 'selected words'), thread('c', 'ok')],
      search,
    );
    assert.deepEqual(
      placed.map((t) => t.entryIndex),
      [7, 7, 7],
    );
    // 'ok' is too short to be specific: the source text is tried first (already known).
    assert.deepEqual(calls, ['selected words', 'the surrounding source text']);
    const none = await placeAnchors([{ ...thread('d'), anchor: undefined }], search);
    assert.equal(none[0]!.entryIndex, undefined);
  });
});
