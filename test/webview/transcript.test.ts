/**
 * <transcript-view> in Chromium under the webview CSP: virtualization of a 100,000-entry
 * transcript, search, error rows, reveal, the 5 MB line, keyboard and navigation messages.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { TranscriptEntry } from '../../src/shared/protocol.ts';
import { openHarness, until } from './support/harness.ts';
import type { Harness } from './support/harness.ts';
import type { RowInfo } from './support/probeTypes.ts';

let h: Harness;
before(async () => {
  h = await openHarness();
});
after(() => h?.close());

type Posted = Record<string, unknown> & { type: string };
const postedOf = async (type: string) =>
  ((await h.probe.posted()) as Posted[]).filter((m) => m.type === type);

/** Visible, loaded rows once nothing on screen is a placeholder any more. */
async function settledRows(what: string): Promise<RowInfo[]> {
  const rows = await until(
    () => h.probe.rows(),
    (list) => {
      const visible = list.filter((r) => r.visible);
      return visible.length > 0 && visible.every((r) => !r.placeholder);
    },
    what,
  );
  return rows.filter((r) => r.visible);
}

/** Every generated row shows `#<index>` unless it is a (collapsed) error or thinking row. */
function assertRowsMatch(rows: RowInfo[]): void {
  for (const row of rows) {
    assert.ok(row.text.includes(`#${row.index}`), `row ${row.index} shows: ${row.text}`);
  }
}

test('100,000 entries: fewer than 300 entry elements at top, middle and end', async () => {
  await h.load();
  await h.probe.setTranscript({ generated: 100_000, errorCount: 100 });
  const counts: number[] = [];

  const top = await settledRows('the first rows');
  assert.equal(top[0]?.index, 0);
  assertRowsMatch(top);
  counts.push(await h.probe.entryElementCount());
  await h.shot('transcript-top');

  await h.probe.scrollFeed(0.5);
  const middle = await settledRows('rows in the middle');
  const first = middle[0]?.index ?? -1;
  assert.ok(first > 30_000 && first < 70_000, `middle starts at ${first}`);
  assertRowsMatch(middle);
  for (let i = 1; i < middle.length; i++) {
    assert.equal(middle[i]?.index, (middle[i - 1]?.index ?? 0) + 1, 'visible rows are contiguous');
  }
  counts.push(await h.probe.entryElementCount());

  // A sweep through the whole list, as a fast scroll would.
  for (let step = 0; step <= 20; step++) {
    await h.probe.scrollFeed(step / 20);
    await h.page.waitForTimeout(30);
    counts.push(await h.probe.entryElementCount());
  }

  await h.probe.scrollFeed(1);
  const end = await until(
    () => settledRows('the last rows'),
    (rows) => rows.some((r) => r.index === 99_999),
    'entry 99,999 on screen',
  );
  assertRowsMatch(end);
  counts.push(await h.probe.entryElementCount());
  await h.shot('transcript-end');

  const max = Math.max(...counts);
  console.log(`  entry elements in the DOM: max ${max}, samples ${counts.join(',')}`);
  assert.ok(max < 300, `at most ${max} entry elements`);
  const requests = await postedOf('getEntries');
  assert.ok(requests.every((m) => (m.count as number) <= 200 && (m.count as number) > 0));
  console.log(`  getEntries requests: ${requests.length}`);
});

test('rows carry ARIA feed semantics and keyboard navigation', async () => {
  await h.load();
  await h.probe.setTranscript({ generated: 500 });
  await settledRows('rows');
  const feed = h.page.locator('transcript-view [role="feed"]');
  assert.equal(await feed.count(), 1);
  const row3 = h.page.locator('transcript-view [role="article"][data-index="3"]');
  assert.equal(await row3.getAttribute('aria-posinset'), '4');
  assert.equal(await row3.getAttribute('aria-setsize'), '500');

  assert.ok(await h.probe.focusRow(0));
  await h.page.keyboard.press('ArrowDown');
  await h.page.keyboard.press('ArrowDown');
  assert.match(await h.probe.activeElement(), /\[2\]$/);
  // Entry 2 is a tool call: Enter expands it, and its expander says so.
  const expander = h.page.locator('transcript-view .entry[data-index="2"] button.expander');
  assert.equal(await expander.getAttribute('aria-expanded'), 'false');
  await h.page.keyboard.press('Enter');
  await until(
    () => expander.getAttribute('aria-expanded'),
    (v) => v === 'true',
    'expanded tool call',
  );
  const row2 = await h.page.locator('transcript-view .entry[data-index="2"]').innerText();
  assert.match(row2, /Input/);
  assert.match(row2, /contents of file 2/);
  await h.page.keyboard.press('End');
  await until(
    () => h.probe.activeElement(),
    (a) => a.endsWith('[499]'),
    'focus on the last entry',
  );
  await h.page.keyboard.press('ArrowUp');
  await until(
    () => h.probe.activeElement(),
    (a) => a.endsWith('[498]'),
    'focus moved up',
  );
});

test('search posts search messages and shows "k of N"', async () => {
  await h.load();
  await h.probe.setTranscript({ generated: 5_000, errorCount: 5 });
  await settledRows('rows');
  await h.probe.clearPosted();
  const input = h.page.locator('transcript-view input.query');
  await input.fill('item #4200');
  await input.press('Enter');
  const [first] = await postedOf('search');
  assert.deepEqual(
    { ...first, requestId: 0 },
    { type: 'search', requestId: 0, query: 'item #4200', direction: 'next' },
  );
  await h.probe.send({
    type: 'searchResult',
    requestId: first?.requestId,
    result: { index: 4200, ordinal: 3, total: 17, complete: true },
  });
  const status = h.page.locator('transcript-view .search-status');
  await until(
    () => status.innerText(),
    (t) => t === '3 of 17',
    '"3 of 17"',
  );
  const rows = await until(
    () => settledRows('the match'),
    (list) => list.some((r) => r.index === 4200),
    'entry 4200 on screen',
  );
  assert.deepEqual(rows.find((r) => r.index === 4200)?.marks, ['item #4200']);

  await input.press('Enter');
  await input.press('Shift+Enter');
  const [, next, previous] = await postedOf('search');
  assert.equal(next?.direction, 'next');
  assert.equal(next?.from, 4200);
  assert.equal(previous?.direction, 'previous');
  assert.equal(previous?.from, 4200);
  // An answer to an older request does not overwrite the newest one's.
  await h.probe.send({
    type: 'searchResult',
    requestId: next?.requestId,
    result: { index: 10, ordinal: 1, total: 17, complete: true },
  });
  await h.probe.send({
    type: 'searchResult',
    requestId: previous?.requestId,
    result: { index: 1200, ordinal: 2, total: 17, complete: false },
  });
  await until(
    () => status.innerText(),
    (t) => t === '2 of 17+',
    '"2 of 17+"',
  );
  await h.probe.send({
    type: 'searchResult',
    requestId: previous?.requestId,
    result: { index: null, ordinal: 0, total: 0, complete: true },
  });
  await h.page.waitForTimeout(50);
  assert.equal(await status.innerText(), '2 of 17+', 'a second answer to one request is ignored');

  await h.page.locator('transcript-view vscode-button.next-error').click();
  const [nextError] = await postedOf('nextError');
  assert.equal(nextError?.from, 1200);
  await h.probe.send({ type: 'reveal', index: 1999 });
  await until(
    () => settledRows('the error row'),
    (list) => list.some((r) => r.index === 1999 && r.classes.includes('failed')),
    'error entry 1999 on screen',
  );
});

test('error rows show their line numbers, message and excerpt', async () => {
  await h.load();
  const entries: TranscriptEntry[] = [
    {
      index: 0,
      kind: 'user',
      variant: 'prompt',
      text: 'hello',
      source: { first: 1, last: 1 },
      truncated: false,
    },
    {
      index: 1,
      kind: 'error',
      message: 'Unexpected token } in JSON at position 12',
      excerpt: '{"type":"assistant",}',
      source: { first: 17, last: 17 },
      truncated: false,
    },
    {
      index: 2,
      kind: 'error',
      message: 'Unterminated string',
      excerpt: '{"type": "user",\n  "text": "oops',
      source: { first: 30, last: 32 },
      truncated: false,
    },
  ];
  await h.probe.setTranscript({ entries, errorCount: 2 });
  const rows = await settledRows('error rows');
  const [, one, span] = rows;
  assert.match(one?.text ?? '', /Line 17: Unexpected token \} in JSON at position 12/);
  assert.match(one?.text ?? '', /\{"type":"assistant",\}/);
  assert.ok(one?.classes.includes('failed'));
  assert.match(span?.text ?? '', /Lines 30–32: Unterminated string/);
  const icon = h.page.locator('transcript-view .entry[data-index="1"] vscode-icon.icon');
  assert.equal(await icon.getAttribute('name'), 'error');
  assert.match(
    (await h.page.locator('transcript-view vscode-button.next-error').innerText()) ?? '',
    /2/,
  );
  await h.shot('transcript-errors');
});

test('reveal scrolls to the entry and highlights the text', async () => {
  await h.load();
  await h.probe.setTranscript({ generated: 100_000 });
  await settledRows('the first rows');
  await h.probe.send({ type: 'reveal', index: 76_542, highlight: 'ITEM #76542' });
  const rows = await until(
    () => settledRows('the revealed row'),
    (list) => list.some((r) => r.index === 76_542),
    'entry 76,542 on screen',
  );
  const row = rows.find((r) => r.index === 76_542);
  assert.ok(row?.classes.includes('revealed'));
  assert.deepEqual(row?.marks, ['item #76542']);
  assert.ok((await h.probe.entryElementCount()) < 300);
  await h.shot('transcript-reveal');
  // Back near the top: the reveal of an entry already loaded works as well.
  await h.probe.send({ type: 'reveal', index: 12 });
  await until(
    () => settledRows('entry 12'),
    (list) => list.some((r) => r.index === 12 && r.classes.includes('revealed')),
    'entry 12 on screen',
  );
});

test('a 5 MB line renders collapsed; getFullText only on "show more"', async () => {
  await h.load();
  await h.probe.setTranscript({ bigText: true });
  const rows = await settledRows('the big rows');
  const [capped, whole] = rows;
  assert.ok((capped?.textLength ?? Infinity) < 3_000, `capped row: ${capped?.textLength} chars`);
  assert.ok((whole?.textLength ?? Infinity) < 3_000, `whole row: ${whole?.textLength} chars`);
  assert.equal((await postedOf('getFullText')).length, 0);
  await h.shot('transcript-big-collapsed');

  // Text the host sent whole expands locally, without asking.
  const local = h.page.locator('transcript-view .entry[data-index="1"] button.more');
  await local.click();
  await until(
    () => h.probe.rows(),
    (list) => (list.find((r) => r.index === 1)?.textLength ?? 0) > 5_000_000,
    'the whole 5 MB text of entry 1',
    20_000,
  );
  assert.equal((await postedOf('getFullText')).length, 0);
  await local.click();

  const more = h.page.locator('transcript-view .entry[data-index="0"] button.more');
  assert.match(await more.innerText(), /Show more \(4,998,800 more characters\)/);
  const started = Date.now();
  await more.click();
  const requests = await postedOf('getFullText');
  assert.equal(requests.length, 1);
  assert.deepEqual(
    { ...requests[0], requestId: 0 },
    { type: 'getFullText', requestId: 0, index: 0, part: 'text' },
  );
  await until(
    () => h.probe.rows(),
    (list) => (list.find((r) => r.index === 0)?.textLength ?? 0) > 5_000_000,
    'the full 5 MB text',
    20_000,
  );
  console.log(`  5 MB text fetched and expanded in ${Date.now() - started} ms`);
  assert.equal(await more.getAttribute('aria-expanded'), 'true');
  await more.click();
  await until(
    () => h.probe.rows(),
    (list) => (list.find((r) => r.index === 0)?.textLength ?? Infinity) < 3_000,
    'collapsed again',
  );
  assert.equal((await postedOf('getFullText')).length, 1, 'collapsing asks for nothing');
});

test('file links, subagents, the file switcher and Open raw post their messages', async () => {
  await h.load();
  const entries: TranscriptEntry[] = [
    {
      index: 0,
      kind: 'tool-call',
      callId: 'c1',
      name: 'Task',
      input: '{}',
      summary: 'Explore the repository',
      files: [{ path: '/repo/src/app.ts', line: 42, endLine: 60 }],
      status: 'ok',
      output: 'done',
      subagent: { agentId: 'a1', fileKey: 'subagent:a1' },
      source: { first: 1, last: 1 },
      truncated: false,
    },
    {
      index: 1,
      kind: 'subagent',
      agentId: 'a1',
      fileKey: 'subagent:a1',
      text: 'Explore the repository',
      agentType: 'Explore',
      source: { first: 2, last: 2 },
      truncated: false,
      totalTokens: 1234,
    },
  ];
  await h.probe.setTranscript({
    entries,
    files: [
      { fileKey: 'main', label: 'Main', availability: 'available', description: 'Available' },
      {
        fileKey: 'subagent:a1',
        label: 'Subagent Explore',
        availability: 'uploadPending',
        description: 'Upload pending',
      },
    ],
  });
  await settledRows('rows');
  await h.probe.clearPosted();
  await h.page.locator('transcript-view .entry[data-index="0"] button.file').click();
  await h.page
    .locator('transcript-view .entry[data-index="0"] button.link', { hasText: 'subagent' })
    .click();
  await h.page
    .locator('transcript-view .entry[data-index="1"] button.link', { hasText: 'subagent' })
    .click();
  await h.page.locator('transcript-view select.files').selectOption('subagent:a1');
  await h.page.locator('transcript-view vscode-button.open-raw').click();
  assert.deepEqual(await h.probe.posted(), [
    { type: 'openFile', path: '/repo/src/app.ts', line: 42 },
    { type: 'selectFile', fileKey: 'subagent:a1' },
    { type: 'selectFile', fileKey: 'subagent:a1' },
    { type: 'selectFile', fileKey: 'subagent:a1' },
    { type: 'openRaw' },
  ]);
  assert.match(
    await h.page.locator('transcript-view select.files').innerText(),
    /Subagent Explore — Upload pending/,
  );
  assert.equal(await h.page.locator('transcript-view a').count(), 0, 'no anchors at all');
});

test('statuses other than ready show their message; Retry posts retryTranscript', async () => {
  await h.load();
  await h.probe.send({
    type: 'transcriptStatus',
    fileKey: 'main',
    files: [],
    status: { state: 'failed', message: 'The file could not be read.', canRetry: true },
  });
  const alert = h.page.locator('transcript-view [role="alert"]');
  await alert.waitFor();
  assert.equal(await alert.innerText(), 'The file could not be read.');
  await h.probe.clearPosted();
  await h.page.locator('transcript-view vscode-button', { hasText: 'Retry' }).click();
  assert.deepEqual(await h.probe.posted(), [{ type: 'retryTranscript' }]);
  assert.deepEqual(h.pageErrors, []);
});

test('a live transcript grows: a reader at the end follows it, a reader above stays put', async () => {
  await h.load();
  await h.probe.setTranscript({ generated: 120 });
  await settledRows('the first rows');
  // Row heights are measured as they render, so one jump may land short of the end.
  await until(
    async () => {
      await h.probe.scrollFeed(1);
      return settledRows('the last rows');
    },
    (rows) => rows.some((r) => r.index === 119),
    'entry 119 on screen',
  );
  // The agent writes 20 more entries; the host says the count grew.
  await h.probe.setTranscript({ generated: 140 });
  const followed = await until(
    () => settledRows('the new last rows'),
    (rows) => rows.some((r) => r.index === 139),
    'the view follows to entry 139',
  );
  assertRowsMatch(followed);

  // As above, a jump measured while rows render may land short of the top: jump again.
  await until(
    async () => {
      await h.probe.scrollFeed(0);
      return settledRows('the top rows');
    },
    (rows) => rows[0]?.index === 0,
    'back at the top',
  );
  await h.probe.setTranscript({ generated: 160 });
  await h.page.waitForTimeout(300);
  const stayed = await settledRows('the top rows after growth');
  assert.equal(stayed[0]?.index, 0, 'a reader at the top is not moved');
  assert.deepEqual(h.pageErrors, []);
});
