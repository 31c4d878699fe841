/**
 * UI tier: the packaged .vsix installed into code-server, driven through Chromium
 * the way a person would: activity bar → welcome view → Open Demo → tree, badge and
 * status bar. Screenshots go to test-results/ui/.
 */
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import type { Page } from 'playwright-core';
import { startCodeServer, workbenchUrl } from '../../scripts/lib/codeServer.ts';
import { buildDataset } from '../../src/demo/dataset.ts';
import { DEFAULT_SEED } from '../../src/demo/server.ts';
import { chromiumArgs, chromiumPath, projectRoot } from '../../scripts/lib/tools.ts';
import { generateClaudeCodeTranscript } from '../../src/demo/transcripts/index.ts';
import { writeLocalCorpus } from '../support/localCorpus.ts';

/** The part of a page's HTMLImageElement the checks read (this file has no DOM types). */
interface PageImage {
  complete: boolean;
  naturalWidth: number;
  addEventListener(event: 'load', listener: () => void, options: { once: boolean }): void;
}

const shots = path.join(projectRoot, 'test-results', 'ui');
mkdirSync(shots, { recursive: true });
const vsix = path.join(projectRoot, 'dist', 'agent-session-inspector.vsix');

let passed = 0;
let failed = 0;
/**
 * Opens the command palette and types `text`. Focus may sit inside a webview (the session
 * panel) when this is called, where a key press can land elsewhere: move it to the
 * workbench first and try again until the palette is really open.
 */
async function typeCommand(page: Page, text: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press('Escape');
    await page.locator('.part.sidebar .composite.title .title-label').first().click();
    await page.keyboard.press('F1');
    // The command palette is the quick input whose text starts with ">".
    const input = page.locator('.quick-input-widget input').first();
    const opened = await input
      .waitFor({ timeout: 5_000 })
      .then(async () => (await input.inputValue()).startsWith('>'))
      .catch(() => false);
    if (opened) break;
    if (attempt === 3) throw new Error('the command palette did not open');
  }
  await page.keyboard.type(text);
}

/** Runs the Session Inspector command titled `title` from the command palette. */
async function runCommand(page: Page, title: string): Promise<void> {
  await typeCommand(page, `Session Inspector: ${title}`);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor();
  await page.keyboard.press('Enter');
}

/**
 * Runs "Filter by Text" with `text`. The session panel's webview can take focus back
 * just after the box opens, which closes it: then open it again.
 */
async function filterByText(page: Page, text: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await runCommand(page, 'Filter by Text');
    const box = page.locator('.quick-input-widget', { hasText: 'Show sessions whose name' });
    const filled = await box
      .waitFor({ timeout: 5_000 })
      .then(() => page.locator('.quick-input-widget input').first().fill(text, { timeout: 5_000 }))
      .then(() => true)
      .catch(() => false);
    if (filled) break;
    if (attempt === 3) throw new Error('the "Filter by Text" box did not take the text');
  }
  await page.keyboard.press('Enter');
}

/**
 * Clicks an action in the Sessions view's title bar. With a second view in the container
 * (Search Results) each view's actions sit in its own header and show only while the
 * pointer is over it: hover the header first.
 */
async function sessionsAction(page: Page, label: string): Promise<void> {
  const header = page.locator('.part.sidebar .pane-header', { hasText: /^\s*Sessions/ }).first();
  // A view alone in its container has its actions in the container's title bar instead.
  if ((await header.count()) > 0) await header.hover();
  await page.locator(`.part.sidebar .action-label[aria-label="${label}"]`).first().click();
}

async function step(name: string, body: () => Promise<void>): Promise<void> {
  const started = Date.now();
  try {
    await body();
    passed++;
    console.log(`  ✔ ${name} (${Date.now() - started} ms)`);
  } catch (error) {
    failed++;
    console.log(
      `  ✘ ${name}\n    ${String((error as Error).stack ?? error)
        .split('\n')
        .slice(0, 4)
        .join('\n    ')}`,
    );
    console.log(`    shown at the failure: ${await whatIsShown().catch((e) => String(e))}`);
    throw error;
  }
}

/** What a failed step leaves on screen, for CI's log: the active editor tabs and panel titles. */
async function whatIsShown(): Promise<string> {
  const tabs = await page.locator('.tabs-container .tab.active').allInnerTexts();
  const panel = page
    .frameLocator('iframe.webview.ready >> visible=true')
    .frameLocator('#active-frame');
  const titles = await panel
    .locator('session-details h1')
    .allInnerTexts()
    .catch(() => []);
  const entries = await panel
    .locator('transcript-view .entry')
    .count()
    .catch(() => -1);
  const status = await panel
    .locator('transcript-view [role="status"], transcript-view [role="alert"]')
    .allInnerTexts()
    .catch(() => []);
  return JSON.stringify({ tabs, titles, entries, status }).slice(0, 600);
}

/** An element's computed text colour (run in the page). */
const textColour = (element: unknown): string =>
  (globalThis as unknown as { getComputedStyle(e: unknown): { color: string } }).getComputedStyle(
    element,
  ).color;

const sidebarRow = (page: Page, text: string | RegExp) =>
  page.locator('.part.sidebar .monaco-list-row', { hasText: text }).first();

// Local transcripts for the local-sessions step: a generated corpus plus one session this
// test keeps writing, as an agent would.
const localCorpus = await writeLocalCorpus(mkdtempSync(path.join(os.tmpdir(), 'asi-ui-corpus-')));
const LIVE_ID = '4d2e8b1c-6a7f-4e3d-9c5b-0f1a2b3c4d5e';
const liveCwd = '/home/dev/live-ui';
const liveFile = path.join(
  localCorpus.claudeDir,
  'projects',
  liveCwd.replaceAll('/', '-'),
  `${LIVE_ID}.jsonl`,
);
/** One user or assistant line of a Claude Code session, as the harness writes it. */
const chatLine = (
  session: { id: string; cwd: string; prefix: string },
  type: 'user' | 'assistant',
  text: string,
  n: number,
  timestamp = new Date().toISOString(),
) =>
  JSON.stringify({
    parentUuid: null,
    isSidechain: false,
    userType: 'external',
    cwd: session.cwd,
    sessionId: session.id,
    version: '2.1.40',
    gitBranch: 'main',
    type,
    uuid: `${session.prefix}-${n}`,
    timestamp,
    ...(type === 'user'
      ? { message: { role: 'user', content: text } }
      : {
          requestId: `req_${session.prefix}_${n}`,
          message: {
            id: `msg_${session.prefix}_${n}`,
            type: 'message',
            role: 'assistant',
            model: 'claude-sonnet-4-5-20250929',
            content: [{ type: 'text', text }],
            stop_reason: 'end_turn',
            usage: { input_tokens: 20, output_tokens: 40 },
          },
        }),
  }) + '\n';
const liveLine = (type: 'user' | 'assistant', text: string, n: number) =>
  chatLine({ id: LIVE_ID, cwd: liveCwd, prefix: 'live' }, type, text, n);
mkdirSync(path.dirname(liveFile), { recursive: true });
writeFileSync(
  liveFile,
  liveLine('user', 'Add a readiness probe to the API', 1) +
    liveLine('assistant', 'Added GET /readyz next to /healthz.', 2),
);

// The session for the reading steps: npm start's demo session whose agent writes a new test,
// Edits the file it read whole and MultiEdits a third, in a project of its own; then one more
// exchange, as the agent would write it, with a Markdown heading, a list and a fenced code
// block (the generator writes none) and a ticket number no other corpus session mentions.
const CHANGES_ID = '7c1d9e2a-3b4f-4a5c-8d6e-1f2a3b4c5d6e';
const changesCwd = '/home/dev/changes-ui';
/** The start of its first prompt, which names it. */
const CHANGES_LABEL = 'Invoice.total ignores the discount';
const SEARCH_WORD = 'LEDGER-4711';
const changesFile = path.join(
  localCorpus.claudeDir,
  'projects',
  changesCwd.replaceAll('/', '-'),
  `${CHANGES_ID}.jsonl`,
);
{
  const { main } = generateClaudeCodeTranscript({
    seed: 2020,
    sessionId: CHANGES_ID,
    cwd: changesCwd,
    model: 'claude-sonnet-4-5-20250929',
    startedAt: '2026-06-03T08:00:00.000Z',
    turns: 2,
    editsThreeFiles: true,
  });
  const stamps = [...main.matchAll(/"timestamp":"([^"]+)"/g)];
  const after = Date.parse(stamps.at(-1)![1]!);
  const line = (type: 'user' | 'assistant', text: string, n: number) =>
    chatLine(
      { id: CHANGES_ID, cwd: changesCwd, prefix: 'changes' },
      type,
      text,
      n,
      new Date(after + n * 20_000).toISOString(),
    );
  mkdirSync(path.dirname(changesFile), { recursive: true });
  writeFileSync(
    changesFile,
    main +
      line('user', `Paste the fixed property so I can quote it in ticket ${SEARCH_WORD}.`, 1) +
      line(
        'assistant',
        [
          '## The fixed `Invoice.total`',
          '',
          '- the discount is subtracted first, never below zero',
          '- tax-exempt invoices are quantized like taxed ones',
          '',
          '```python',
          '@property',
          'def total(self) -> Decimal:',
          '    taxable = max(self.subtotal - self.discount, Decimal("0"))',
          '    if self.tax_exempt:',
          '        return taxable.quantize(Decimal("0.01"))',
          '    return (taxable * (1 + self.tax_rate)).quantize(Decimal("0.01"))',
          '```',
        ].join('\n'),
        2,
      ),
  );
}

const server = await startCodeServer({
  install: [vsix],
  env: { CLAUDE_CONFIG_DIR: localCorpus.claudeDir, CODEX_HOME: localCorpus.codexDir },
});
const browser = await chromium.launch({
  executablePath: chromiumPath(),
  headless: true,
  args: chromiumArgs,
});
const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
page.on('pageerror', (error) => console.log(`  [pageerror] ${error.message}`));
try {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'asi-ui-ws-'));
  await step('the workbench loads with the Session Inspector container', async () => {
    await page.goto(workbenchUrl(server, { folder }));
    await page
      .locator('.part.activitybar [aria-label^="Session Inspector"]')
      .first()
      .waitFor({ timeout: 90_000 });
  });

  await step('the welcome view offers Add Connection and Open Demo', async () => {
    await page.locator('.part.activitybar [aria-label^="Session Inspector"]').first().click();
    const welcome = page.locator('.part.sidebar .welcome-view-content');
    await welcome.getByRole('button', { name: 'Add Connection' }).waitFor({ timeout: 30_000 });
    await welcome.getByRole('button', { name: 'Open Demo' }).waitFor();
    await page.screenshot({ path: path.join(shots, '1-welcome.png') });
  });

  await step(
    'Open Demo adds the three demo backends; each groups its sessions, waiting first',
    async () => {
      await page
        .locator('.part.sidebar .welcome-view-content')
        .getByRole('button', { name: 'Open Demo' })
        .click();
      await sidebarRow(page, 'Waiting on you').waitFor({ timeout: 60_000 });
      // Expanded groups push the rest out of the virtualised list: collapse, then open one connection.
      await sessionsAction(page, 'Collapse All');
      const connections = await page
        .locator('.part.sidebar .monaco-list-row .label-name')
        .allInnerTexts();
      const expected = ['Demo · Reporting', 'Demo · Platform', 'Demo · Agents API'];
      if (JSON.stringify(connections) !== JSON.stringify(expected)) {
        throw new Error(`connections ${JSON.stringify(connections)}`);
      }
      await sidebarRow(page, 'Demo · Reporting').click();
      await sidebarRow(page, 'Finished').waitFor({ timeout: 10_000 });
      for (const group of ['Active', 'Error']) {
        const row = sidebarRow(page, group);
        if ((await row.getAttribute('aria-expanded')) === 'true') await row.click();
      }
      const labels = await page
        .locator('.part.sidebar .monaco-list-row .label-name')
        .allInnerTexts();
      const groups = [
        'Waiting on you',
        'Active',
        'Idle',
        'Error',
        'Finished',
        'Stale',
        'Unknown',
      ].filter((g) => labels.includes(g));
      if (labels[1] !== 'Waiting on you')
        throw new Error(`first group is ${JSON.stringify(labels[1])}`);
      if (groups.length < 5)
        throw new Error(`expected the status groups, saw ${JSON.stringify(labels)}`);
      await page.screenshot({ path: path.join(shots, '2-tree.png') });
    },
  );

  await step('the status bar counts sessions waiting on you', async () => {
    const item = page.locator(
      '.part.statusbar [id="agent-session-inspector.agent-session-inspector.sessionInspector.waiting"]',
    );
    await item.waitFor({ timeout: 30_000 });
    const text = (await item.innerText()).trim();
    const reportingWaiting = Number(
      await sidebarRow(page, 'Waiting on you').locator('.label-description').innerText(),
    );
    const badge = Number(
      await page
        .locator(
          '.part.activitybar .action-item:has([aria-label^="Session Inspector"]) .badge-content',
        )
        .first()
        .innerText(),
    );
    const match = /^(\d+)(\+\?)?$/.exec(text);
    if (!match) throw new Error(`status bar says ${JSON.stringify(text)}`);
    // The platform demo has a session whose manual-task lookup fails: the count must say so.
    if (!match[2]) throw new Error('the count does not admit it may be incomplete');
    if (Number(match[1]) < reportingWaiting || badge < reportingWaiting) {
      throw new Error(
        `status bar ${match[1]}, badge ${badge}, reporting alone has ${reportingWaiting}`,
      );
    }
    await item.hover();
    await page.waitForTimeout(800);
    await page.screenshot({ path: path.join(shots, '3-status-bar.png') });
  });

  await step('clicking a session opens its panel with the details', async () => {
    const waitingGroup = sidebarRow(page, 'Waiting on you');
    if ((await waitingGroup.getAttribute('aria-expanded')) !== 'true') await waitingGroup.click();
    const first = page.locator('.part.sidebar .monaco-list-row[aria-level="3"]').first();
    const label = (await first.locator('.label-name').innerText()).trim();
    await first.click();
    const panel = page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
    const title = await panel.locator('session-details h1').innerText({ timeout: 30_000 });
    if (title.trim() !== label)
      throw new Error(`panel title ${JSON.stringify(title)} ≠ ${JSON.stringify(label)}`);
    await panel.locator('session-details dt', { hasText: 'Raw status' }).waitFor();
    await page.screenshot({ path: path.join(shots, '4-session-panel.png') });
  });

  await step('the transcript tab streams entries; comments and usage render', async () => {
    const panel = page.frameLocator('iframe.webview.ready').last().frameLocator('#active-frame');
    await panel.locator('session-details vscode-tab-header', { hasText: 'Transcript' }).click();
    const transcript = panel.locator('transcript-view');
    await transcript.locator('[role="listitem"], .entry').first().waitFor({ timeout: 60_000 });
    const rendered = await transcript.locator('[role="listitem"], .entry').count();
    if (rendered === 0) throw new Error('no transcript entries rendered');
    await page.screenshot({ path: path.join(shots, '6-transcript.png') });
    await panel.locator('session-details vscode-tab-header', { hasText: 'Comments' }).click();
    await panel.locator('comments-view').waitFor();
    await page.screenshot({ path: path.join(shots, '7-comments.png') });
    await panel.locator('session-details vscode-tab-header', { hasText: 'Usage' }).click();
    await panel.locator('usage-view').waitFor();
    await page.screenshot({ path: path.join(shots, '8-usage.png') });
  });

  await step(
    'a comment click scrolls the transcript to its anchor; a subagent opens from its tool call',
    async () => {
      const activePanel = () =>
        page.frameLocator('iframe.webview.ready >> visible=true').frameLocator('#active-frame');
      /** Opens a group's sessions in turn until `accept` says one is suitable. */
      const openFirst = async (group: string, accept: () => Promise<boolean>) => {
        await sessionsAction(page, 'Collapse All');
        await sidebarRow(page, 'Demo · Reporting').click();
        // Load every page (218 sessions, 100 a page): with the groups collapsed the row is in view.
        for (let i = 0; i < 3; i++) {
          const more = sidebarRow(page, 'Load more');
          if (!(await more.isVisible().catch(() => false))) break;
          await more.click();
          await page.waitForTimeout(1_000);
        }
        const groupRow = page
          .locator('.part.sidebar .monaco-list-row[aria-level="2"]')
          .filter({ has: page.locator('.label-name', { hasText: new RegExp(`^${group}$`) }) })
          .first();
        if ((await groupRow.getAttribute('aria-expanded')) !== 'true') await groupRow.click();
        await page.waitForTimeout(500);
        const rows = page.locator('.part.sidebar .monaco-list-row[aria-level="3"]');
        const count = await rows.count();
        for (let i = 0; i < count; i++) {
          await rows.nth(i).click();
          if (await accept().catch(() => false)) return;
        }
        throw new Error(`none of the ${count} sessions in ${group} was suitable`);
      };
      // The demo has one session with many comment threads (its status is "error").
      await openFirst('Error', async () => {
        const header = activePanel().locator('session-details vscode-tab-header', {
          hasText: /Comments \(\d+\)/,
        });
        await header.waitFor({ timeout: 6_000 });
        return !/\(0\)/.test(await header.innerText());
      });
      const panel = activePanel();
      await panel.locator('session-details vscode-tab-header', { hasText: 'Comments' }).click();
      const thread = panel.locator('comments-view .thread').first();
      await thread.waitFor({ timeout: 30_000 });
      await thread.click();
      const mark = panel.locator('transcript-view mark').first();
      await mark.waitFor({ timeout: 60_000 });
      if (!(await mark.isVisible())) throw new Error('the anchor is not visible in the transcript');
      await page.screenshot({ path: path.join(shots, '9-comment-anchor.png') });

      // The demo's data is deterministic: this session has subagent files in several states.
      const dataset = buildDataset({ seed: DEFAULT_SEED, now: new Date() });
      const name =
        dataset.closedloop.byId.get(dataset.closedloop.fixtures.mixedSubagentFiles)?.name ?? '';
      await filterByText(page, name);
      await page.waitForTimeout(500);
      // Among the sessions of that name, one whose first subagent file was uploaded.
      await openFirst('Finished', async () => {
        await activePanel()
          .locator('session-details vscode-tab-header', { hasText: 'Transcript' })
          .click();
        const open = activePanel()
          .locator('transcript-view button.link', { hasText: /subagent/i })
          .first();
        await open.waitFor({ timeout: 15_000 });
        await open.click();
        // Shown once the file switcher names the subagent's file and its entries render.
        const select = activePanel().locator('transcript-view select.files');
        const deadline = Date.now() + 8_000;
        while (!(await select.inputValue().catch(() => '')).startsWith('subagent:')) {
          if (Date.now() > deadline) return false;
          await page.waitForTimeout(200);
        }
        await activePanel()
          .locator('transcript-view [role="article"]')
          .first()
          .waitFor({ timeout: 8_000 });
        return true;
      });
      await page.screenshot({ path: path.join(shots, '10-subagent.png') });
      await runCommand(page, 'Clear Filters');
    },
  );

  await step('a platform session shows its manual task; the workflow body stays text', async () => {
    await sessionsAction(page, 'Collapse All');
    const platform = sidebarRow(page, 'Demo · Platform');
    const waiting = sidebarRow(page, 'Waiting on you');
    // Clear Filters just reloaded every connection: a node expanded while its reload lands
    // can come back collapsed, so expand until its groups show.
    for (let attempt = 1; ; attempt++) {
      if ((await platform.getAttribute('aria-expanded')) !== 'true') await platform.click();
      const shown = await waiting
        .waitFor({ timeout: 10_000 })
        .then(() => true)
        .catch(() => false);
      if (shown) break;
      if (attempt === 4) throw new Error('the platform connection did not expand');
    }
    if ((await waiting.getAttribute('aria-expanded')) !== 'true') await waiting.click();
    // Look through the waiting sessions for a task whose body is HTML (ViewHTML).
    // Only the rows of the waiting group (the group's label ends with its count).
    const waitingCount = Number(/(\d+)\s*$/.exec(await waiting.innerText())?.[1] ?? 0);
    let found = false;
    for (let i = 0; i < Math.min(waitingCount, 6) && !found; i++) {
      await page.locator('.part.sidebar .monaco-list-row[aria-level="3"]').nth(i).click();
      const panel = page.frameLocator('iframe.webview.ready').last().frameLocator('#active-frame');
      await panel
        .locator('session-details vscode-button', { hasText: 'Open task' })
        .first()
        .click({ timeout: 30_000 });
      const body = panel.locator('session-details .task pre.body').first();
      await body.waitFor({ timeout: 30_000 });
      const injected = await panel
        .locator(
          'session-details .task script, session-details .task img, session-details .task iframe',
        )
        .count();
      if (injected !== 0) throw new Error(`${injected} elements came from a task body`);
      found = /<\w+/.test(await body.innerText());
    }
    if (!found) throw new Error('no waiting task with an HTML body was found to check');
    await page.screenshot({ path: path.join(shots, '5-manual-task.png') });
  });

  await step(
    'local sessions: grouped by project; a session being written grows in its open transcript',
    async () => {
      await runCommand(page, 'Add Connection');
      await page
        .locator('.quick-input-list .monaco-list-row', { hasText: 'Local transcripts' })
        .first()
        .click();
      await sessionsAction(page, 'Collapse All');
      await sidebarRow(page, 'This machine').waitFor({ timeout: 30_000 });
      await sessionsAction(page, 'Group by Project');
      const machine = sidebarRow(page, 'This machine');
      if ((await machine.getAttribute('aria-expanded')) !== 'true') await machine.click();
      const project = sidebarRow(page, /^live-ui/);
      await project.waitFor({ timeout: 30_000 });
      await project.click();
      await sidebarRow(page, 'Add a readiness probe to the API').click();
      const panel = page
        .frameLocator('iframe.webview.ready >> visible=true')
        .frameLocator('#active-frame');
      // On a loaded machine the previous step's panel is still the visible one for a while:
      // act only once the visible panel is this session's.
      await panel
        .locator('session-details h1', { hasText: 'Add a readiness probe' })
        .waitFor({ timeout: 30_000 });
      await panel.locator('session-details vscode-tab-header', { hasText: 'Transcript' }).click();
      const transcript = panel.locator('transcript-view');
      await transcript.locator('.entry', { hasText: 'Added GET /readyz' }).waitFor({
        timeout: 30_000,
      });
      // The agent answers again: the new entry appears without any refresh by the user.
      const started = Date.now();
      appendFileSync(
        liveFile,
        liveLine('user', 'Wire both probes into the load balancer', 3) +
          liveLine('assistant', 'Both probes are now in the load balancer health check.', 4),
      );
      await transcript
        .locator('.entry', { hasText: 'Both probes are now in the load balancer' })
        .waitFor({ timeout: 15_000 });
      console.log(`    the appended reply rendered ${Date.now() - started} ms after the write`);
      await page.screenshot({ path: path.join(shots, '11-local-live.png') });
      await sessionsAction(page, 'Group by Status');
    },
  );
  await step('the Extensions view shows the package with its icon and its README', async () => {
    // The .vsix carries the icon and the screenshots the README shows.
    const packaged = readFileSync(vsix).toString('latin1');
    if (!packaged.includes('extension/media/icon.png'))
      throw new Error('extension/media/icon.png is not in the .vsix');
    await typeCommand(page, 'Extensions: Show Installed Extensions');
    await page
      .locator('.quick-input-list .monaco-list-row', { hasText: 'Show Installed Extensions' })
      .first()
      .click();
    await page
      .locator('.extensions-viewlet .monaco-list-row', { hasText: 'Agent Session Inspector' })
      .first()
      .click();
    const editor = page.locator('.extension-editor');
    await editor.locator('.header .name', { hasText: 'Agent Session Inspector' }).waitFor();
    const icon = editor.locator('.header .icon-container img.icon');
    await icon.waitFor();
    const iconWidth = await icon.evaluate((element) => {
      const img = element as unknown as PageImage;
      return img.complete ? img.naturalWidth : 0;
    });
    if (iconWidth !== 128) throw new Error(`the icon shows ${iconWidth} px wide, not 128`);
    // The README is a webview: find its frame and wait until every image has loaded.
    const readme = page
      .frameLocator('iframe.webview.ready >> visible=true')
      .last()
      .frameLocator('#active-frame');
    await readme.locator('h1', { hasText: 'Agent Session Inspector' }).waitFor();
    // Its images cannot load here: the view takes README images from https: only, and the
    // project has no public address yet (see scripts/package.ts).
    await readme.locator('text=Privacy').first().waitFor();
    await readme.locator('h1').first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(shots, '12-extension-details.png') });
  });

  const sessionPanel = () =>
    page.frameLocator('iframe.webview.ready >> visible=true').frameLocator('#active-frame');
  /** The Sessions view grouped by project, "This machine" expanded, every other node collapsed. */
  const showLocalProjects = async () => {
    // A click on the container shown already would close the sidebar.
    const shown = page.locator('.part.sidebar .composite.title', { hasText: 'Session Inspector' });
    if (!(await shown.isVisible())) {
      // The icon's badge covers part of it: click the item that holds both.
      await page
        .locator('.part.activitybar .action-item:has([aria-label^="Session Inspector"])')
        .first()
        .click();
    }
    await sessionsAction(page, 'Collapse All');
    const byProject = page.locator('.part.sidebar .action-label[aria-label="Group by Project"]');
    if ((await byProject.count()) > 0) await sessionsAction(page, 'Group by Project');
    const machine = sidebarRow(page, 'This machine');
    await machine.waitFor({ timeout: 30_000 });
    if ((await machine.getAttribute('aria-expanded')) !== 'true') await machine.click();
  };

  await step(
    'a session whose agent changed three files: its transcript renders Markdown, a highlighted code block and per-call diffs',
    async () => {
      await showLocalProjects();
      const project = sidebarRow(page, /^changes-ui/);
      await project.waitFor({ timeout: 30_000 });
      if ((await project.getAttribute('aria-expanded')) !== 'true') await project.click();
      const row = page
        .locator('.part.sidebar .monaco-list-row[aria-level="3"]', { hasText: CHANGES_LABEL })
        .first();
      await row.click();
      const panel = sessionPanel();
      const title = await panel.locator('session-details h1').innerText({ timeout: 30_000 });
      if (!title.trim().startsWith(CHANGES_LABEL))
        throw new Error(`panel title ${JSON.stringify(title)}`);
      await panel.locator('session-details vscode-tab-header', { hasText: 'Transcript' }).click();
      const transcript = panel.locator('transcript-view');
      const answer = transcript.locator('.entry', { hasText: 'The fixed' }).last();
      // Rows are drawn as they scroll into view: go to the end, where the answer is.
      const feed = transcript.locator('.feed').first();
      await feed.waitFor({ timeout: 30_000 });
      for (let i = 0; !(await answer.isVisible()); i++) {
        if (i === 40) throw new Error("the session's last answer did not render");
        await feed.evaluate((el) => {
          const box = el as unknown as { scrollTop: number; scrollHeight: number };
          box.scrollTop = box.scrollHeight;
        });
        await page.waitForTimeout(500);
      }
      await answer.scrollIntoViewIfNeeded();
      await answer.locator('h2', { hasText: 'The fixed' }).waitFor({ timeout: 10_000 });
      await answer.locator('li', { hasText: 'never below zero' }).waitFor();
      // The language arrives as a module of its own the first time a block asks for it.
      const keyword = answer.locator('pre code .hljs-keyword', { hasText: 'def' }).first();
      await keyword.waitFor({ timeout: 30_000 });
      const spans = await answer.locator('pre code [class^="hljs-"]').count();
      if (spans < 3) throw new Error(`the code block has ${spans} highlighted spans`);
      const colour = await keyword.evaluate(textColour);
      const plain = await answer.locator('pre code').first().evaluate(textColour);
      if (colour === plain) throw new Error(`the keyword has the code's own colour ${colour}`);
      await page.screenshot({ path: path.join(shots, '13-transcript-markdown.png') });
      // The agent's Edit shows as a diff with its counts, not as JSON.
      const edit = transcript.locator('.diff', { hasText: 'invoice.py' }).first();
      for (let i = 0; !(await edit.isVisible()); i++) {
        if (i === 40) throw new Error('no Edit diff rendered');
        await feed.evaluate((el) => {
          (el as unknown as { scrollTop: number }).scrollTop -= 400;
        });
        await page.waitForTimeout(300);
      }
      await edit.locator('.dl.add').first().waitFor();
    },
  );

  await step(
    'the Changes tab lists the three files with +/- counts; a click opens the diff editor',
    async () => {
      const panel = sessionPanel();
      await panel.locator('session-details vscode-tab-header', { hasText: 'Changes' }).click();
      const files = panel.locator('changes-view li');
      await files.nth(2).waitFor({ timeout: 60_000 });
      const rows = await files.allInnerTexts();
      if (rows.length !== 3) throw new Error(`changed files ${JSON.stringify(rows)}`);
      for (const name of ['test_invoice_regression.py', 'invoice.py', 'pyproject.toml']) {
        const file = files.filter({ has: panel.locator('.path', { hasText: name }) }).first();
        const added = (await file.locator('.counts .added').innerText()).trim();
        const removed = (await file.locator('.counts .removed').innerText()).trim();
        if (!/^\+[1-9]\d*$/.test(added) || !/^−\d+$/.test(removed))
          throw new Error(`${name}: counts ${added} ${removed}`);
      }
      await page.screenshot({ path: path.join(shots, '14-changes.png') });
      await files
        .filter({ has: panel.locator('.path', { hasText: /(^|\/)invoice\.py/ }) })
        .first()
        .locator('button.file')
        .click();
      const diff = page.locator('.part.editor .monaco-diff-editor').first();
      await diff.waitFor({ timeout: 30_000 });
      const tab = page.locator('.part.editor .tab.active').first();
      const tabTitle = (await tab.innerText()).trim();
      if (!tabTitle.includes('invoice.py') || !tabTitle.includes('before ↔ after'))
        throw new Error(`diff tab title ${JSON.stringify(tabTitle)}`);
      // Both sides hold text: the file before the Edit and after it. A narrow editor shows the
      // diff inline, where the hidden original side keeps its own (invisible) decorations.
      for (const kind of ['delete', 'insert'])
        await diff
          .locator(`.line-${kind}, .char-${kind}`)
          .filter({ visible: true })
          .first()
          .waitFor({ timeout: 15_000 });
      await page.screenshot({ path: path.join(shots, '15-diff-editor.png') });
    },
  );

  await step(
    'Search Sessions… finds a word only that session has; its result opens the panel at the match',
    async () => {
      for (let attempt = 1; ; attempt++) {
        await runCommand(page, 'Search Sessions…');
        // The query box has a title; the palette it replaces has none.
        const box = page.locator('.quick-input-widget .quick-input-title', {
          hasText: 'Search Sessions',
        });
        const filled = await box
          .waitFor({ timeout: 5_000 })
          .then(() =>
            page.locator('.quick-input-widget input').first().fill(SEARCH_WORD, { timeout: 5_000 }),
          )
          .then(() => true)
          .catch(() => false);
        if (filled) break;
        if (attempt === 3) throw new Error('the Search Sessions box did not take the text');
      }
      await page.keyboard.press('Enter');
      const hit = page.locator('.part.sidebar .monaco-list-row', { hasText: SEARCH_WORD }).first();
      await hit.waitFor({ timeout: 60_000 });
      const hits = await page
        .locator('.part.sidebar .monaco-list-row', { hasText: SEARCH_WORD })
        .count();
      if (hits !== 1) throw new Error(`${hits} result lines for ${SEARCH_WORD}`);
      const highlighted = await hit.locator('.highlight').allInnerTexts();
      if (!highlighted.includes(SEARCH_WORD))
        throw new Error(`the result highlights ${JSON.stringify(highlighted)}`);
      // Grouped under its session.
      const group = page
        .locator('.part.sidebar .monaco-list-row[aria-level="1"]', { hasText: CHANGES_LABEL })
        .last();
      await group.waitFor();
      await page.screenshot({ path: path.join(shots, '16-search-results.png') });
      await hit.click();
      const mark = sessionPanel().locator('transcript-view mark', { hasText: SEARCH_WORD }).first();
      await mark.waitFor({ timeout: 60_000 });
      if (!(await mark.isVisible())) throw new Error('the match is not visible in the transcript');
      const entry = sessionPanel()
        .locator('transcript-view .entry', { has: sessionPanel().locator('mark') })
        .first();
      if (!(await entry.innerText()).includes('quote it in ticket'))
        throw new Error('the match is marked in another entry');
      await page.screenshot({ path: path.join(shots, '17-search-match.png') });
    },
  );

  /**
   * Export… in the panel's header, the format's quick pick, then the save dialog. code-server's
   * save dialog is VS Code's simple file dialog, a quick input holding a path; what it does
   * with a typed path depends on when its own completion catches up with the typing, so the
   * test types nothing: the workspace folder is where the export proposes to write, and the
   * test checks that proposal (folder and `<title>-<id>` name) and accepts it.
   */
  const exportFromPanel = async (format: 'Markdown' | 'HTML', extension: string) => {
    await sessionPanel()
      .locator('session-details vscode-button', { hasText: 'Export…' })
      .first()
      .click();
    await page
      .locator('.quick-input-list .monaco-list-row', { hasText: new RegExp(`^${format}\\b`) })
      .first()
      .click({ timeout: 15_000 });
    const input = page.locator('.quick-input-widget input').first();
    await page
      .locator('.quick-input-widget .quick-input-title', { hasText: 'Export Transcript' })
      .waitFor();
    // The dialog fills in the proposed path once it has read the folder.
    let proposed = '';
    for (const deadline = Date.now() + 30_000; !proposed.endsWith(extension);) {
      if (Date.now() > deadline)
        throw new Error(`the save dialog proposes ${JSON.stringify(proposed)}`);
      await page.waitForTimeout(250);
      proposed = await input.inputValue();
    }
    if (path.resolve(path.dirname(proposed)) !== path.resolve(folder))
      throw new Error(`the save dialog proposes ${JSON.stringify(proposed)}, not the workspace`);
    const name = path.basename(proposed);
    const expected = new RegExp(
      `^Invoice\\.total-ignores-the-discount[^/]*-${CHANGES_ID}\\${extension}$`,
    );
    if (!expected.test(name)) throw new Error(`the proposed file name is ${JSON.stringify(name)}`);
    await page.keyboard.press('Enter');
    // Written in place: wait until the file is there and stops growing, and the export says so.
    const target = path.join(folder, name);
    let size = -1;
    for (const deadline = Date.now() + 60_000; ;) {
      const now = existsSync(target) ? statSync(target).size : -1;
      if (now > 0 && now === size) break;
      if (Date.now() > deadline) throw new Error(`${name} was not written`);
      size = now;
      await page.waitForTimeout(500);
    }
    await page
      .locator('.notifications-toasts', { hasText: 'Exported' })
      .first()
      .waitFor({ timeout: 60_000 });
    const written = readdirSync(folder).filter((file) => file.endsWith(extension));
    if (JSON.stringify(written) !== JSON.stringify([name]))
      throw new Error(`the workspace holds ${JSON.stringify(written)}, not ${name}`);
    return readFileSync(target, 'utf8');
  };

  await step('Export… writes the transcript as Markdown and as HTML without scripts', async () => {
    const markdown = await exportFromPanel('Markdown', '.md');
    for (const text of [CHANGES_LABEL, SEARCH_WORD, '```python'])
      if (!markdown.includes(text)) throw new Error(`the Markdown lacks ${JSON.stringify(text)}`);
    const html = await exportFromPanel('HTML', '.html');
    for (const text of [CHANGES_LABEL, SEARCH_WORD, '<html'])
      if (!html.includes(text)) throw new Error(`the HTML lacks ${JSON.stringify(text)}`);
    if (/<script/i.test(html)) throw new Error('the HTML has a <script');
    await page.screenshot({ path: path.join(shots, '18-exported.png') });
  });

  await step(
    'Archive takes the session out of the tree; Show Archived brings it back',
    async () => {
      await runCommand(page, 'Clear Search Results');
      await sessionPanel()
        .locator('session-details vscode-button', { hasText: /^\s*Archive\s*$/ })
        .first()
        .click();
      await sessionPanel()
        .locator('session-details vscode-button', { hasText: 'Unarchive' })
        .first()
        .waitFor({ timeout: 15_000 });
      await showLocalProjects();
      const project = sidebarRow(page, /^changes-ui/);
      const gone = Date.now() + 30_000;
      while (await project.isVisible()) {
        if (Date.now() > gone) throw new Error('the archived session is still in the tree');
        await page.waitForTimeout(250);
      }
      await page.screenshot({ path: path.join(shots, '19-archived.png') });
      await runCommand(page, 'Show Archived');
      await project.waitFor({ timeout: 30_000 });
      if ((await project.getAttribute('aria-expanded')) !== 'true') await project.click();
      const archivedRow = page
        .locator('.part.sidebar .monaco-list-row[aria-level="3"]', { hasText: CHANGES_LABEL })
        .first();
      await archivedRow.waitFor({ timeout: 15_000 });
      const description = await archivedRow.locator('.label-description').innerText();
      if (!/\barchived\b/.test(description))
        throw new Error(`the shown row says ${JSON.stringify(description)}, not archived`);
      await page.screenshot({ path: path.join(shots, '20-show-archived.png') });
      await runCommand(page, 'Hide Archived');
      const hidden = Date.now() + 30_000;
      while (await project.isVisible()) {
        if (Date.now() > hidden) throw new Error('Hide Archived left the session in the tree');
        await page.waitForTimeout(250);
      }
    },
  );
} catch {
  await page.screenshot({ path: path.join(shots, 'failure.png') }).catch(() => undefined);
  console.log(`  code-server log: ${server.logFile}`);
} finally {
  await browser.close();
  await server.close();
}
console.log(`ui: ${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
