/**
 * <comments-view>: filter, load more and reveal messages; threads with replies,
 * authors, dates, status badges and the anchor's quoted text.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { CommentView, CommentsView } from '../../src/shared/protocol.ts';
import { openHarness, until } from './support/harness.ts';
import type { Harness } from './support/harness.ts';

let h: Harness;
before(async () => {
  h = await openHarness();
});
after(() => h?.close());

const thread = (n: number, status: string): CommentView => ({
  id: `c${n}`,
  threadId: `thread-${n}`,
  body: `Comment body ${n}\nsecond line`,
  authorName: `Author ${n}`,
  createdAt: '2025-03-04T05:06:07Z',
  status,
  ...(status === 'RESOLVED'
    ? { resolvedByName: 'Resolver', resolvedAt: '2025-03-05T00:00:00Z' }
    : {}),
  anchor: { selectedText: `quoted text ${n}`, row: n },
  entryIndex: n * 10,
  replies: [
    {
      id: `r${n}a`,
      body: `Reply A to ${n}`,
      authorName: 'Replier',
      createdAt: '2025-03-04T06:00:00Z',
    },
    { id: `r${n}b`, body: `Reply B to ${n}` },
  ],
});

const view = (over: Partial<CommentsView> = {}): CommentsView => ({
  state: 'ready',
  filter: 'OPEN',
  threads: [thread(1, 'OPEN'), thread(2, 'OPEN')],
  total: 5,
  hasMore: true,
  ...over,
});

test('threads show quote, author, date, status and replies', async () => {
  await h.load();
  await h.probe.send({
    type: 'comments',
    view: view({ threads: [thread(1, 'OPEN'), thread(2, 'RESOLVED')] }),
  });
  const threads = h.page.locator('comments-view li.thread');
  await until(
    () => threads.count(),
    (n) => n === 2,
    'two threads',
  );
  const first = threads.nth(0);
  assert.equal(await first.locator('.quote').innerText(), 'quoted text 1');
  assert.equal(await first.locator(':scope > .head > .author').innerText(), 'Author 1');
  assert.equal(await first.locator(':scope > .head > .badge').innerText(), 'OPEN');
  assert.notEqual(await first.locator(':scope > .head > .meta').first().innerText(), '');
  assert.equal(await first.locator('li.reply').count(), 2);
  assert.match(
    await first.locator('li.reply').nth(1).innerText(),
    /Unknown author[\s\S]*Reply B to 1/,
  );
  const second = threads.nth(1);
  assert.equal(await second.locator(':scope > .head > .badge').innerText(), 'RESOLVED');
  assert.match(await second.innerText(), /resolved by Resolver/);
  assert.match(await h.page.locator('comments-view .count').innerText(), /2 of 5 threads/);
  await h.shot('comments');
});

test('filter, load more and a thread click post their messages', async () => {
  await h.load();
  await h.probe.send({ type: 'comments', view: view() });
  await h.page.locator('comments-view li.thread').first().waitFor();
  await h.probe.clearPosted();

  const pressed = (name: string) =>
    h.page.locator(`comments-view button.filter-${name}`).getAttribute('aria-pressed');
  assert.equal(await pressed('open'), 'true');
  await h.page.locator('comments-view button.filter-resolved').click();
  await h.page.locator('comments-view button.filter-all').click();
  await h.page.locator('comments-view vscode-button.more').click();
  // Until the next page arrives, Load more waits (no second request).
  assert.equal(
    await h.page.locator('comments-view vscode-button.more').getAttribute('disabled'),
    '',
  );
  // The mouse anywhere on a thread, and its keyboard button, reveal it once each.
  await h.page.locator('comments-view li.thread').nth(1).locator(':scope > .body').click();
  await h.page.locator('comments-view li.thread').nth(0).locator('button.show').focus();
  await h.page.keyboard.press('Enter');
  assert.deepEqual(await h.probe.posted(), [
    { type: 'loadComments', filter: 'RESOLVED', more: false },
    { type: 'loadComments', filter: 'ALL', more: false },
    { type: 'loadComments', filter: 'OPEN', more: true },
    { type: 'revealComment', threadId: 'thread-2' },
    { type: 'revealComment', threadId: 'thread-1' },
  ]);

  // The host answers with the new filter: it is pressed; without more pages there is no Load more.
  await h.probe.send({ type: 'comments', view: view({ filter: 'ALL', hasMore: false }) });
  await until(
    () => pressed('all'),
    (v) => v === 'true',
    'ALL pressed',
  );
  assert.equal(await pressed('open'), 'false');
  assert.equal(await h.page.locator('comments-view vscode-button.more').count(), 0);
});

test('loading, failed (with retry) and unsupported states', async () => {
  await h.load();
  await h.probe.send({ type: 'comments', view: view({ state: 'loading', threads: [] }) });
  await h.page.locator('comments-view [role="status"]').waitFor();
  await h.probe.send({
    type: 'comments',
    view: view({
      state: 'failed',
      message: 'The backend said no.',
      threads: [],
      filter: 'RESOLVED',
    }),
  });
  await h.page.locator('comments-view [role="alert"]').waitFor();
  assert.equal(
    await h.page.locator('comments-view [role="alert"]').innerText(),
    'The backend said no.',
  );
  await h.probe.clearPosted();
  await h.page.locator('comments-view vscode-button', { hasText: 'Retry' }).click();
  assert.deepEqual(await h.probe.posted(), [
    { type: 'loadComments', filter: 'RESOLVED', more: false },
  ]);
  await h.probe.send({
    type: 'comments',
    view: view({ state: 'unsupported', message: 'No comments on this backend.', threads: [] }),
  });
  await until(
    () => h.page.locator('comments-view p.muted').innerText(),
    (t) => t.includes('No comments on this backend.'),
    'unsupported message',
  );
});
