/**
 * XSS corpus through every text field the webview components show: every entry kind
 * (expanded, with full texts fetched), file paths, file switcher, statuses, comment
 * bodies, authors and anchors, usage labels and cost, the session view and a manual
 * task. Run under the webview CSP and again without any CSP, where a payload that
 * reached the DOM as markup would actually run: nothing may run, no dialog may open,
 * no unexpected element or URL may appear in the components' shadow DOM.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isWebviewMessage } from '../../src/shared/protocol.ts';
import type { HostMessage } from '../../src/shared/protocol.ts';
import { openHarness, until } from './support/harness.ts';
import type { Harness } from './support/harness.ts';
import { ALLOWED } from './support/allowedElements.ts';
import { SHORT_PAYLOADS, XSS_PAYLOADS } from './support/xssCorpus.ts';

function payloadAt(i: number): string {
  return XSS_PAYLOADS[i % XSS_PAYLOADS.length] ?? '';
}

/** Feeds the corpus to the comments, usage and session views. */
async function feedSideViews(h: Harness): Promise<void> {
  const threads = XSS_PAYLOADS.map((p, i) => ({
    id: p,
    threadId: `t${i}`,
    body: p,
    authorName: p,
    createdAt: p,
    status: i % 3 === 0 ? p : i % 2 ? 'OPEN' : 'RESOLVED',
    resolvedByName: p,
    resolvedAt: p,
    anchor: { selectedText: p, sourceText: p, turnId: p, row: 1, actor: p },
    entryIndex: i,
    replies: [{ id: p, body: p, authorName: p, createdAt: p }],
  }));
  const messages: HostMessage[] = [
    {
      type: 'comments',
      view: { state: 'ready', filter: 'ALL', threads, total: threads.length, hasMore: true },
    },
    {
      type: 'usage',
      view: {
        input: 1,
        output: 2,
        cacheRead: 3,
        cacheWrite: 4,
        reasoning: 5,
        cost: payloadAt(0),
        turns: XSS_PAYLOADS.map((p, i) => ({ label: p, input: i * 10, output: i })),
        context: { used: 5, window: 10 },
      },
    },
    {
      type: 'session',
      view: {
        session: {
          id: payloadAt(1),
          connectionId: payloadAt(2),
          label: payloadAt(3),
          status: { status: 'waiting', raw: payloadAt(4) },
          harness: payloadAt(5),
          model: payloadAt(6),
          repository: payloadAt(7),
          branch: payloadAt(8),
          user: payloadAt(9),
          startedAt: payloadAt(10),
          pendingTasks: XSS_PAYLOADS.map((p) => ({
            id: p,
            title: p,
            viewType: p,
            completionSupported: true,
          })),
        },
        connectionLabel: payloadAt(11),
        cost: payloadAt(12),
        actions: { complete: true, interrupt: true },
      },
    },
    ...XSS_PAYLOADS.map((p): HostMessage => ({
      type: 'manualTask',
      task: {
        id: p,
        header: p,
        message: p,
        body: p,
        variables: { [p]: p, nested: { p } },
        viewType: p,
        successLabel: p,
        failureLabel: p,
        completionSupported: true,
      },
    })),
  ];
  for (const message of messages) await h.probe.send(message);
}

async function checkPage(h: Harness, label: string): Promise<void> {
  const health = await h.probe.health();
  assert.equal(health.xss, undefined, `${label}: a payload ran`);
  assert.deepEqual(h.dialogs, [], `${label}: dialogs`);
  assert.deepEqual(health.violations, [], `${label}: CSP violations`);
  assert.deepEqual([...health.errors, ...h.pageErrors], [], `${label}: page errors`);
  assert.deepEqual(
    h.consoleErrors.filter((e) => !/^Failed to load resource/.test(e)),
    [],
    `${label}: console errors`,
  );
  const report = await h.probe.scan();
  assert.deepEqual(report.problems, [], `${label}: forbidden attributes or URLs`);
  for (const [component, tags] of Object.entries(report.tags)) {
    if (component === 'body') continue;
    const unexpected = tags.filter((t) => !(ALLOWED[component] ?? []).includes(t));
    assert.deepEqual(unexpected, [], `${label}: unexpected elements in ${component}`);
  }
  const lightDom = report.tags.body ?? [];
  for (const tag of ['script', 'img', 'iframe', 'object', 'embed', 'svg', 'a', 'style', 'base']) {
    const expected = tag === 'script' ? 1 : 0; // the page's own module script
    assert.ok(
      lightDom.includes(tag) === expected > 0,
      `${label}: <${tag}> in the light DOM: ${lightDom.join(',')}`,
    );
  }
}

async function runCorpus(h: Harness, label: string): Promise<void> {
  await h.load();
  // A tall window and transcript: fewer pages to walk (the virtualizer renders what the window shows).
  await h.page.setViewportSize({ width: 1280, height: 3_200 });
  await h.probe.setTranscriptHeight(3_000);
  await feedSideViews(h);
  await h.probe.setTranscript({
    xss: true,
    files: XSS_PAYLOADS.map((p, i) => ({
      fileKey: i === 0 ? 'main' : p,
      label: p,
      availability: p,
      description: p,
    })),
  });
  const total = XSS_PAYLOADS.length * 10;
  const seen = new Set<number>();
  let atEnd = false;
  // Page through the transcript; on each page open every expander and "show more".
  for (let page = 0; page < 200; page++) {
    await until(
      () => h.probe.rows(),
      (rows) =>
        rows.some((r) => r.visible) && rows.filter((r) => r.visible).every((r) => !r.placeholder),
      `${label}: rows loaded`,
    );
    for (let round = 0; round < 4; round++) {
      if ((await h.probe.expandAll()) === 0) break;
      await h.page.waitForTimeout(30);
    }
    for (const row of await h.probe.rows()) if (!row.placeholder) seen.add(row.index);
    await checkPage(h, `${label} page ${page}`);
    // At the end twice in a row: rows measured late (expanded, taller) no longer move the end.
    if (await h.probe.pageDown()) {
      if (atEnd) break;
      atEnd = true;
    } else atEnd = false;
  }
  const missing = [...Array(total).keys()].filter((i) => !seen.has(i));
  assert.deepEqual(missing, [], `${label}: every entry rendered`);

  // Highlighting a payload (a comment anchor's text) marks it as text.
  for (const index of [0, 41, 75]) {
    const highlight = payloadAt(Math.floor(index / 10));
    await h.probe.send({ type: 'reveal', index, highlight });
    await until(
      () => h.probe.rows(),
      (rows) => rows.some((r) => r.index === index && r.classes.includes('revealed')),
      `${label}: revealed ${index}`,
    );
    await checkPage(h, `${label} reveal ${index}`);
  }

  const fullTexts = ((await h.probe.posted()) as { type: string }[]).filter(
    (m) => m.type === 'getFullText',
  );
  assert.ok(fullTexts.length > 20, `${label}: full texts fetched (${fullTexts.length})`);
  const text = (await h.probe.scan()).text;
  for (const payload of SHORT_PAYLOADS) {
    assert.ok(text.includes(payload), `${label}: shown as text: ${JSON.stringify(payload)}`);
  }

  // Status messages are text too.
  await h.probe.send({
    type: 'transcriptStatus',
    fileKey: 'main',
    files: [],
    status: { state: 'failed', message: payloadAt(1), canRetry: true },
  });
  await h.probe.send({
    type: 'comments',
    view: {
      state: 'failed',
      message: payloadAt(2),
      filter: 'OPEN',
      threads: [],
      total: 0,
      hasMore: false,
    },
  });
  await h.page.waitForTimeout(50);
  await checkPage(h, `${label} statuses`);

  // Whatever the components posted is a valid protocol message.
  for (const message of await h.probe.posted()) {
    assert.ok(
      isWebviewMessage(message),
      `${label}: not a protocol message: ${JSON.stringify(message)}`,
    );
  }
}

// Each test pages through the corpus with a round trip per page: about a minute on a busy
// 2-core machine (the first one also bundles the page and its highlight.js languages).
test('XSS corpus under the webview CSP', { timeout: 150_000 }, async () => {
  assert.ok(XSS_PAYLOADS.length >= 25);
  const h = await openHarness({ app: true });
  try {
    await runCorpus(h, 'csp');
    await h.page.setViewportSize({ width: 1280, height: 900 });
    await h.probe.setTranscriptHeight(860);
    await h.probe.setTranscript({ xss: true });
    await feedSideViews(h);
    await h.page.waitForTimeout(300);
    await h.shot('xss-csp');
  } finally {
    await h.close();
  }
});

test(
  'XSS corpus without any CSP (defence in depth: rendering alone keeps payloads inert)',
  { timeout: 150_000 },
  async () => {
    const h = await openHarness({ csp: false, app: true });
    try {
      await runCorpus(h, 'no-csp');
    } finally {
      await h.close();
    }
  },
);
