/**
 * The Changes tab inside the real app: it asks for the list when first shown, shows each
 * file with its kind and +/- counts, and every click asks the host to open a diff.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ChangesView, HostMessage } from '../../src/shared/protocol.ts';
import { openHarness, until } from './support/harness.ts';
import type { Harness } from './support/harness.ts';

let h: Harness;
before(async () => {
  h = await openHarness({ app: true });
});
after(() => h?.close());

const session: HostMessage = {
  type: 'session',
  view: {
    session: {
      id: '/home/dev/orbit-api/s1.jsonl',
      connectionId: 'local',
      label: 'Fix the retry delay',
      status: { status: 'finished', raw: 'finished' },
      project: '/home/dev/orbit-api',
    },
    connectionLabel: 'This machine',
    cost: '$0.20',
    actions: { complete: false, interrupt: false },
  },
};

const HOSTILE = '<img src=x onerror="alert(1)">.ts';

const changes: ChangesView = {
  state: 'ready',
  failedCalls: 1,
  missingSubagents: 0,
  files: [
    {
      index: 0,
      path: '/home/dev/orbit-api/test/lib/retry.regression.test.ts',
      label: 'test/lib/retry.regression.test.ts',
      kind: 'created',
      added: 10,
      removed: 0,
      beforeKnown: true,
      calls: 1,
      failedCalls: 0,
      bySubagent: false,
    },
    {
      index: 1,
      path: '/home/dev/orbit-api/src/lib/retry.ts',
      label: 'src/lib/retry.ts',
      kind: 'edited',
      added: 1,
      removed: 1,
      beforeKnown: true,
      calls: 2,
      failedCalls: 1,
      bySubagent: false,
    },
    {
      index: 2,
      path: `/home/dev/orbit-api/src/${HOSTILE}`,
      label: `src/${HOSTILE}`,
      kind: 'edited',
      added: 2,
      removed: 1,
      beforeKnown: false,
      calls: 1,
      failedCalls: 0,
      bySubagent: true,
    },
    {
      index: 3,
      path: '/home/dev/orbit-api/old.txt',
      label: 'old.txt',
      kind: 'deleted',
      added: 0,
      removed: 0,
      beforeKnown: false,
      calls: 1,
      failedCalls: 0,
      bySubagent: false,
    },
  ],
};

async function openTab(): Promise<void> {
  await h.load();
  // Only the app on the page: the standalone components would answer too.
  await h.page.locator('main').evaluate((main) => main.remove());
  await h.probe.send(session);
  await h.page.locator('session-details vscode-tab-header', { hasText: 'Changes' }).waitFor();
  await h.probe.clearPosted();
  await h.page.locator('session-details vscode-tab-header', { hasText: 'Changes' }).click();
}

test('the tab loads its list once, when first shown; rows show kind, path, counts and notes', async () => {
  await openTab();
  const view = h.page.locator('session-details changes-view');
  await view.locator('[role="status"]').waitFor();
  assert.deepEqual(await h.probe.posted(), [{ type: 'loadChanges' }]);
  await h.probe.send({ type: 'changes', view: changes });
  const rows = view.locator('li');
  await until(
    () => rows.count(),
    (n) => n === 4,
    'four rows',
  );
  await h.page.locator('session-details vscode-tab-header', { hasText: 'Changes (4)' }).waitFor();
  const text = async (i: number) => (await rows.nth(i).innerText()).replace(/\s+/g, ' ').trim();
  assert.match(await text(0), /^Created test\/lib\/retry\.regression\.test\.ts \+10 −0 Compare$/i);
  assert.match(await text(1), /^Edited src\/lib\/retry\.ts 1 failed call skipped \+1 −1 Compare$/i);
  assert.match(await text(2), /before unknown · by a subagent/);
  // Transcript text stays text: the path with markup is shown as written, nothing runs.
  assert.ok((await text(2)).includes(HOSTILE));
  assert.equal(await view.locator('img').count(), 0);
  assert.equal(await rows.nth(3).locator('button.compare').count(), 0, 'nothing to compare');
  assert.match(
    await view.locator('.summary').innerText(),
    /4 files changed, 13 lines added, 2 removed[\s\S]*1 failed tool call changed nothing\./,
  );
  assert.equal(
    await rows.nth(1).locator('.counts').getAttribute('aria-label'),
    '1 lines added, 1 removed',
  );
  await h.shot('changes');
  // Going back and forth does not read the transcripts again.
  await h.probe.clearPosted();
  await h.page.locator('session-details vscode-tab-header', { hasText: 'Details' }).click();
  await h.page.locator('session-details vscode-tab-header', { hasText: 'Changes (4)' }).click();
  assert.deepEqual(await h.probe.posted(), []);
});

test('a click on a file, Compare, Open All Changes, Compare with Workspace and Refresh post their messages', async () => {
  await openTab();
  await h.probe.send({ type: 'changes', view: changes });
  const view = h.page.locator('session-details changes-view');
  await view.locator('li').nth(3).waitFor();
  await h.probe.clearPosted();
  await view.locator('li').nth(1).locator('button.file').click();
  await view.locator('li').nth(2).locator('button.file').focus();
  await h.page.keyboard.press('Enter');
  await view.locator('li').nth(0).locator('button.compare').click();
  await view.locator('vscode-button.open-all').click();
  await view.locator('vscode-button.compare-all').click();
  await view.locator('vscode-button.reload').click();
  assert.deepEqual(await h.probe.posted(), [
    { type: 'openChange', index: 1 },
    { type: 'openChange', index: 2 },
    { type: 'compareWithWorkspace', index: 0 },
    { type: 'openAllChanges' },
    { type: 'compareWithWorkspace' },
    { type: 'loadChanges' },
  ]);
});

test('no changes, a failure with Retry, and a backend without transcripts', async () => {
  await openTab();
  const view = h.page.locator('session-details changes-view');
  await h.probe.send({
    type: 'changes',
    view: { state: 'ready', files: [], failedCalls: 2, missingSubagents: 1 },
  });
  await until(
    () => view.locator('.summary').innerText(),
    (t) => t.includes('This session changed no files.'),
    'the empty summary',
  );
  const summary = await view.locator('.summary').innerText();
  assert.match(summary, /2 failed tool calls changed nothing\./);
  assert.match(summary, /1 subagent transcripts could not be read/);
  assert.equal(await view.locator('vscode-button.open-all').getAttribute('disabled'), '');
  await h.probe.send({
    type: 'changes',
    view: {
      state: 'failed',
      message: 'The transcript is gone.',
      files: [],
      failedCalls: 0,
      missingSubagents: 0,
    },
  });
  await view.locator('[role="alert"]').waitFor();
  assert.equal(await view.locator('[role="alert"]').innerText(), 'The transcript is gone.');
  await h.probe.clearPosted();
  await view.locator('vscode-button', { hasText: 'Retry' }).click();
  assert.deepEqual(await h.probe.posted(), [{ type: 'loadChanges' }]);
  await h.probe.send({
    type: 'changes',
    view: {
      state: 'none',
      message: 'This backend keeps no transcript for its sessions.',
      files: [],
      failedCalls: 0,
      missingSubagents: 0,
    },
  });
  await until(
    () => view.locator('p.muted').allInnerTexts(),
    (t) => t.join() === 'This backend keeps no transcript for its sessions.',
    'the none message',
  );
});
