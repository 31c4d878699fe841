/**
 * The standing hostile-data suite, webview side: the reference backend in its hostile data
 * mode (a payload in every text field it serves), read in Node by the host's own sources
 * into exactly what each session panel is given (hostileFeeds.ts) for every session of the
 * reporting, platform and agents-API backends, and rendered by the real webview app in
 * Chromium, one page for all sessions as a panel receives them: the sessions that together
 * hold every payload placement of the whole set (hostileCoverage.ts: every place with a
 * payload, every payload, every payload in a Markdown-rendered place, every shape), every
 * tab (Details with its manual tasks, Transcript with every entry of every file expanded
 * and every truncated part fetched, Comments, Usage, Changes), comment anchors revealed,
 * and the usage dashboard. Without any CSP (where a payload that reached the DOM as markup
 * would run or load), and a third of them again under the webview's CSP.
 *
 * Asserted: no element or attribute from data (MutationObservers on every shadow root,
 * from its first render, and a scan at the end), no request to any URL but the page's own
 * (Playwright sees every request; a canary server that every URL in the data points at
 * must hear nothing), no dialog, no CSP violation, no page error.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { ReferenceBackend } from '../../src/demo/server.ts';
import type { HostMessage } from '../../src/shared/protocol.ts';
import { toDashboardView } from '../../src/webview/dashboardView.ts';
import { startTestBackend } from '../support/backend.ts';
import { chooseCovering, type Cover } from './support/hostileCoverage.ts';
import { ALLOWED, LIGHT_DOM_FORBIDDEN } from './support/allowedElements.ts';
import { openHarness, type Harness } from './support/harness.ts';
import {
  connectHostile,
  dashboardData,
  heldBack,
  listAll,
  sessionFeed,
  type HostileConnections,
  type SessionFeed,
} from './support/hostileFeeds.ts';

let canary: Server;
const canaryHits: string[] = [];
let backend: ReferenceBackend;
let connections: HostileConnections;
/** Built once (the backend's work), rendered twice (with and without CSP). */
const feeds: SessionFeed[] = [];
let cover: Cover;

before(async () => {
  canary = createServer((request, response) => {
    canaryHits.push(`${request.method} ${request.url}`);
    response.writeHead(204).end();
  });
  await new Promise<void>((resolve) => canary.listen(0, '127.0.0.1', resolve));
  backend = await startTestBackend({
    hostile: true,
    canaryUrl: `http://127.0.0.1:${(canary.address() as AddressInfo).port}`,
  });
  connections = connectHostile(backend);
  const started = Date.now();
  for (const source of connections.sources) {
    for (const session of await listAll(source)) {
      feeds.push(await sessionFeed(session, source, connections.storageDir));
    }
  }
  cover = chooseCovering(feeds, backend.hostile!.payloads);
  const entries = (list: SessionFeed[]) =>
    list.reduce((n, f) => n + f.transcripts.reduce((m, t) => m + t.entries.length, 0), 0);
  const { all } = cover;
  console.log(
    `# ${feeds.length} sessions (${entries(feeds)} transcript entries) read from the hostile backend in ${Date.now() - started} ms; ` +
      `${all.pairs} payload placements (${all.payloads} payloads × ${all.places} places), ` +
      `${all.markdown} payloads in Markdown places: all in ${cover.chosen.length} sessions (${entries(cover.chosen)} entries)`,
  );
});

after(async () => {
  await connections?.close();
  await backend?.close();
  await new Promise((resolve) => canary?.close(resolve));
});

/** Requests the page made to anything but its own server (read after the page loaded). */
function watchRequests(h: Harness): { readonly list: string[] } {
  const all: string[] = [];
  h.page.on('request', (request) => void all.push(request.url()));
  return {
    get list() {
      const own = new URL(h.page.url()).origin;
      return all.filter((url) => new URL(url).origin !== own).map((url) => url.slice(0, 200));
    },
  };
}

interface Counts {
  sessions: number;
  messages: number;
  files: number;
  entries: number;
  fullTexts: number;
  reveals: number;
  tabs: number;
  elements: number;
  scans: number;
  /** The elements the transcript view drew (its Markdown, diffs and highlighting among them). */
  transcriptTags: string[];
}

/** Checks what the page did so far; `scan` also walks the DOM as it is now. */
async function check(
  h: Harness,
  foreign: { readonly list: string[] },
  label: string,
  scan: boolean,
): Promise<void> {
  const health = await h.probe.health();
  assert.equal(health.xss, undefined, `${label}: a payload ran`);
  assert.deepEqual(h.dialogs, [], `${label}: dialogs`);
  assert.deepEqual(health.violations.slice(0, 5), [], `${label}: CSP violations`);
  assert.deepEqual([...health.errors, ...h.pageErrors].slice(0, 5), [], `${label}: page errors`);
  assert.deepEqual(foreign.list.slice(0, 5), [], `${label}: requests to URLs from data`);
  const watched = await h.probe.watched();
  assert.deepEqual(watched.problems.slice(0, 5), [], `${label}: attributes or URLs from data`);
  for (const [component, tags] of Object.entries(watched.tags)) {
    const unexpected =
      component === 'body'
        ? tags.filter((t) => LIGHT_DOM_FORBIDDEN.includes(t))
        : tags.filter((t) => !(ALLOWED[component] ?? []).includes(t));
    assert.deepEqual(unexpected, [], `${label}: elements from data in ${component}`);
  }
  if (!scan) return;
  const report = await h.probe.scan();
  assert.deepEqual(report.problems.slice(0, 5), [], `${label}: forbidden attributes or URLs`);
}

/** Renders these sessions' panels in one page: their messages, every transcript file, every tab. */
async function renderAll(
  h: Harness,
  foreign: { readonly list: string[] },
  mode: string,
  sessions: readonly SessionFeed[],
): Promise<Counts> {
  const counts: Counts = {
    sessions: 0,
    messages: 0,
    files: 0,
    entries: 0,
    fullTexts: 0,
    reveals: 0,
    tabs: 0,
    elements: 0,
    scans: 0,
    transcriptTags: [],
  };
  await h.load();
  // Tall: most transcripts fit on one page (the virtualizer renders what the window shows).
  await h.page.setViewportSize({ width: 1280, height: 6_000 });
  await h.probe.setTranscriptHeight(4_000);
  await h.probe.clearWatched();
  // HOSTILE_ONLY=<text>[,<text>…]: the sessions whose key contains one (to look into them).
  const only = process.env.HOSTILE_ONLY?.split(',');
  const chosen = only ? feeds.filter((f) => only.some((part) => f.key.includes(part))) : sessions;
  for (const [i, feed] of chosen.entries()) {
    const label = `${mode} ${feed.key}`;
    for (const message of feed.messages) await h.probe.send(message);
    counts.messages += feed.messages.length;
    for (const transcript of feed.transcripts) {
      counts.files++;
      // As the host does for every file it opens: loading first, then the outcome.
      await h.probe.send({
        type: 'transcriptStatus',
        fileKey: transcript.fileKey,
        files: transcript.files,
        status: { state: 'loading', message: 'Loading the transcript…' },
      } satisfies HostMessage);
      if (transcript.status.state !== 'ready') {
        await h.probe.send({
          type: 'transcriptStatus',
          fileKey: transcript.fileKey,
          files: transcript.files,
          status: transcript.status,
        } satisfies HostMessage);
        continue;
      }
      await h.probe.setTranscript({
        entries: transcript.entries,
        fullTexts: transcript.fullTexts,
        files: transcript.files,
        fileKey: transcript.fileKey,
        format: transcript.status.format,
        errorCount: transcript.status.errorCount,
      });
      counts.fullTexts += Object.keys(transcript.fullTexts).length;
      if (transcript.entries.length === 0) continue;
      const walked = await h.probe
        .walkTranscript(transcript.entries.length)
        .catch((error: unknown) => {
          throw new Error(
            `${label}, file ${transcript.fileKey} (${transcript.entries.length} entries): ${String(error)}`,
          );
        });
      assert.equal(walked.entries, transcript.entries.length, `${label}: every entry rendered`);
      counts.entries += walked.entries;
    }
    for (const reveal of feed.reveals) {
      await h.probe.send({ type: 'reveal', ...reveal });
      counts.reveals++;
    }
    // The app's tabs, each shown in turn (Details, Transcript, Comments, Usage, Changes).
    counts.tabs += await h.probe.showAppTabs();
    const scan = i % 10 === 9 || i === chosen.length - 1;
    await check(h, foreign, label, scan);
    if (scan) counts.scans++;
    counts.sessions++;
  }
  const watched = await h.probe.watched();
  counts.elements = watched.elements;
  counts.transcriptTags = watched.tags['transcript-view'] ?? [];
  return counts;
}

function report(mode: string, counts: Counts): void {
  const placements = backend.hostile!.placements();
  console.log(
    `# ${mode}: ${backend.hostile!.payloads.length} payloads in ${Object.keys(placements).length} backend fields; ` +
      `${counts.sessions} sessions × 5 tabs (${counts.tabs} tab views), ${counts.messages} host messages, ` +
      `${counts.files} transcript files, ${counts.entries} entries rendered expanded, ${counts.fullTexts} full texts, ` +
      `${counts.reveals} comment anchors revealed; ${counts.elements} elements watched, ${counts.scans} scans`,
  );
  console.log(`# ${mode}: the transcript view drew ${counts.transcriptTags.join(' ')}`);
  if (heldBack.length > 0)
    console.log(`# shown as their preview only (not expanded): ${heldBack.join('; ')}`);
}

test(
  'every payload placement of the hostile backend, every tab, without any CSP: rendering alone keeps every payload inert',
  { timeout: 600_000 },
  async () => {
    assert.equal(feeds.length, 323);
    // Every payload of the corpus reaches some panel; the chosen sessions hold every
    // placement the whole set has.
    assert.equal(cover.all.payloads, backend.hostile!.payloads.length);
    assert.deepEqual(cover.missed, []);
    // No CSP: a payload that reached the DOM as markup would run or load here, and the
    // canary would hear it.
    const h = await openHarness({ csp: false, app: true });
    try {
      const foreign = watchRequests(h);
      const counts = await renderAll(h, foreign, 'no-csp', cover.chosen);
      report('no-csp', counts);
      if (process.env.HOSTILE_ONLY) return;
      assert.equal(counts.sessions, cover.chosen.length);
      const expected = cover.chosen.reduce(
        (n, f) => n + f.transcripts.reduce((m, t) => m + t.entries.length, 0),
        0,
      );
      assert.equal(counts.entries, expected, 'every entry of every chosen transcript rendered');
      assert.ok(counts.reveals > 0, `${counts.reveals} anchors`);
      assert.deepEqual(canaryHits, []);
    } finally {
      await h.close();
    }
  },
);

test(
  'a third of them again under the webview CSP: no violation (nothing even tried to load)',
  { timeout: 600_000 },
  async () => {
    const h = await openHarness({ app: true });
    try {
      const foreign = watchRequests(h);
      const sample = cover.chosen.filter((_, i) => i % 3 === 0);
      const counts = await renderAll(h, foreign, 'csp', sample);
      report('csp', counts);
      assert.deepEqual(canaryHits, []);
    } finally {
      await h.close();
    }
  },
);

test('the usage dashboard of the hostile reporting backend', { timeout: 120_000 }, async () => {
  const data = await dashboardData(connections.sources[0]!);
  const view = toDashboardView(data, {
    connectionLabel: 'hostile',
    range: 30,
    filters: {},
  });
  for (const csp of [true, false]) {
    const h = await openHarness({ dashboard: true, csp });
    try {
      const foreign = watchRequests(h);
      await h.load();
      await h.probe.clearWatched();
      await h.probe.send({ type: 'data', view, state: { connectionId: 'hostile', range: 30 } });
      await h.page
        .locator('usage-dashboard')
        .locator('table')
        .first()
        .waitFor({ state: 'attached' });
      const health = await h.probe.health();
      assert.equal(health.xss, undefined);
      assert.deepEqual(h.dialogs, []);
      assert.deepEqual(health.violations, []);
      assert.deepEqual(foreign.list, []);
      const watched = await h.probe.watched();
      assert.deepEqual(watched.problems, []);
      assert.deepEqual(
        (watched.tags.body ?? []).filter((t) => LIGHT_DOM_FORBIDDEN.includes(t)),
        [],
      );
      // Its own drawing is SVG; nothing else may come from a name.
      const dashboardTags = watched.tags['usage-dashboard'] ?? [];
      for (const tag of ['script', 'img', 'iframe', 'object', 'embed', 'a', 'style', 'base'])
        assert.ok(!dashboardTags.includes(tag), `<${tag}> in the dashboard`);
      const rows = view.breakdowns.reduce((n, b) => n + b.rows.length, 0);
      assert.ok(rows > 50, `${rows} breakdown rows`);
      console.log(
        `# dashboard (${csp ? 'csp' : 'no-csp'}): ${rows} breakdown rows named by the server, ${watched.elements} elements watched`,
      );
    } finally {
      await h.close();
    }
  }
  assert.deepEqual(canaryHits, []);
});
