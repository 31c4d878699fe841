/**
 * The components inside the real app (<session-details> with its tabs), as
 * webview-ui/src/main.ts mounts them: a reveal switches to the Transcript tab, which
 * has room to show rows.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { HostMessage } from '../../src/shared/protocol.ts';
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
      id: 'session-1',
      connectionId: 'demo',
      label: 'Refactor the parser',
      status: { status: 'active', raw: 'active' },
    },
    connectionLabel: 'Demo',
    cost: '$1.20',
    actions: { complete: false, interrupt: false },
  },
};

test('a reveal opens the Transcript tab at the entry', async () => {
  await h.load();
  // Only the app on the page: the standalone components would answer too.
  await h.page.locator('main').evaluate((main) => main.remove());
  await h.probe.send(session);
  await h.probe.setTranscript({ generated: 2_000 });
  await h.probe.send({ type: 'reveal', index: 1_500, highlight: 'item #1500' });
  const row = h.page.locator('session-details transcript-view .entry[data-index="1500"]');
  await row.waitFor();
  await until(
    () => row.locator('mark').count(),
    (n) => n === 1,
    'the highlighted match',
  );
  assert.ok(await row.isVisible());
  const box = await h.page.locator('session-details transcript-view').boundingBox();
  assert.ok((box?.height ?? 0) >= 240, `transcript height ${box?.height}`);
  await h.shot('app-transcript');
});

test('a resumable local session has a Resume in Terminal button that asks the host', async () => {
  await h.load();
  await h.page.locator('main').evaluate((main) => main.remove());
  const resumable = structuredClone(session) as Extract<HostMessage, { type: 'session' }>;
  resumable.view.actions = { complete: false, interrupt: false, resume: true };
  await h.probe.send(resumable);
  const button = h.page.locator('session-details vscode-button', {
    hasText: 'Resume in Terminal',
  });
  await button.waitFor();
  await h.probe.clearPosted();
  await button.click();
  assert.deepEqual(await h.probe.posted(), [{ type: 'resume' }]);
  // Without the action (another backend, a subagent) there is no button.
  await h.probe.send(session);
  await until(
    () => button.count(),
    (n) => n === 0,
    'the button gone',
  );
});

test('the header exports, copies and archives through the host; Unarchive and Copy Link follow the session', async () => {
  await h.load();
  await h.page.locator('main').evaluate((main) => main.remove());
  await h.probe.send(session);
  const button = (text: string) =>
    h.page.locator('session-details .actions vscode-button', {
      hasText: new RegExp(`^\\s*${text}\\s*$`),
    });
  await button('Export…').waitFor();
  await h.probe.clearPosted();
  for (const text of ['Export…', 'Copy ID', 'Archive']) await button(text).click();
  assert.deepEqual(await h.probe.posted(), [
    { type: 'sessionCommand', command: 'export' },
    { type: 'sessionCommand', command: 'copyId' },
    { type: 'sessionCommand', command: 'archive' },
  ]);
  assert.equal(await button('Copy Link').count(), 0, 'no web address: no Copy Link');
  assert.equal(await button('Copy Resume Command').count(), 0, 'not resumable');
  // Archived, with a link, resumable: Unarchive, Copy Link and Copy Resume Command.
  const archived = structuredClone(session) as Extract<HostMessage, { type: 'session' }>;
  archived.view.actions = {
    complete: false,
    interrupt: false,
    resume: true,
    archived: true,
    link: true,
  };
  await h.probe.send(archived);
  await button('Unarchive').waitFor();
  assert.equal(await button('Archive').count(), 0);
  await h.probe.clearPosted();
  for (const text of ['Copy Link', 'Copy Resume Command', 'Unarchive']) await button(text).click();
  assert.deepEqual(await h.probe.posted(), [
    { type: 'sessionCommand', command: 'copyLink' },
    { type: 'sessionCommand', command: 'copyResume' },
    { type: 'sessionCommand', command: 'unarchive' },
  ]);
});

test("the host's init sets the language: translated strings, dates and numbers through Intl", async () => {
  await h.load();
  await h.page.locator('main').evaluate((main) => main.remove());
  // A malformed bundle is refused whole (checked at run time): nothing changes.
  await h.probe.send({ type: 'init', l10n: { language: 'de', bundle: { Details: 42 } } });
  await h.probe.send({
    type: 'init',
    l10n: {
      language: 'de',
      bundle: {
        Details: 'Einzelheiten',
        Started: 'Gestartet',
        'Input tokens': 'Eingabetokens',
        'Comments ({0})': 'Kommentare ({0})',
      },
    },
  });
  const localized = structuredClone(session) as Extract<HostMessage, { type: 'session' }>;
  localized.view.session.startedAt = new Date(Date.now() - 3 * 86_400_000).toISOString();
  localized.view.session.lastActivityAt = new Date(Date.now() - 3 * 3_600_000).toISOString();
  localized.view.session.inputTokens = 1_234_567;
  await h.probe.send(localized);
  const app = h.page.locator('session-details');
  await app.locator('vscode-tab-header', { hasText: 'Einzelheiten' }).waitFor();
  const row = async (name: string) =>
    (
      await app
        .locator('dt', { hasText: name })
        .locator('xpath=following-sibling::dd[1]')
        .innerText()
    ).trim();
  // German date and number forms, and a relative time in German.
  assert.match(await row('Gestartet'), /^\d\d\.\d\d\.\d{4}, \d\d:\d\d \(vor 3 Tagen\)$/);
  assert.match(
    await row('Last activity'),
    /\(vor 3 Stunden\)$/,
    'an untranslated label stays English',
  );
  assert.equal(await row('Eingabetokens'), '1.234.567');
  await h.probe.send({
    type: 'comments',
    view: { state: 'ready', filter: 'OPEN', threads: [], total: 1234, hasMore: false },
  });
  await app.locator('vscode-tab-header', { hasText: 'Kommentare (1.234)' }).waitFor();
  assert.equal(await h.page.evaluate('document.documentElement.lang'), 'de');
});
