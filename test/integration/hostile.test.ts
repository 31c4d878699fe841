import * as assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as vscode from 'vscode';
import type {
  BackendResponse,
  InterceptedRequest,
  ReferenceBackend,
} from '../../src/demo/server.ts';
import type { SessionSummary } from '../../src/domain/session.ts';
import type { ExtensionApi } from '../../src/extension.ts';
import type { HostMessage } from '../../src/shared/protocol.ts';
import type { TreeNode } from '../../src/views/sessionsTree.ts';
import { startTestBackend } from '../support/backend.ts';
import { SurfaceAudit } from './support/surfaces.ts';
import { ScriptedUser } from './support/ui.ts';
import { until } from './support/until.ts';
import { extensionApi } from './support/extensionApi.ts';

/*
 * The standing hostile-data suite, VS Code side: the reference backend in its hostile data
 * mode (a payload in every text field it serves) behind a reporting, a platform and an
 * agents-API connection, every session loaded, every session's panel opened (the host
 * loads what its Details, Transcript, Comments and Usage tabs show; the webview renders
 * in code-server's browser), and every VS Code surface the extension fills from that data
 * checked: tree items, the status bar, notifications and modals, quick picks, input
 * prompts, progress titles and tab titles. No link or icon may form from data, and no
 * request may reach the canary that every URL in the data points at — neither from the
 * extension host nor from a webview.
 */
const CLOSEDLOOP = 'hostileReporting';
const PLATFORM = 'hostilePlatform';
const AGENTS = 'hostileAgents';
const FAILING = 'hostileFailing';
const CONNECTIONS = [CLOSEDLOOP, PLATFORM, AGENTS];

/** Bounds: the sanitiser's (100 label, 300 detail, 1000 message) plus our own words. */
const LABEL = { max: 300 };
const MESSAGE = { max: 1_100 };
const DETAIL = { max: 3_100 };
const HOVER = { max: 400, hover: true };

describe('hostile backend: every session, every tab, every VS Code surface', function () {
  this.timeout(40 * 60_000);
  let canary: Server;
  const canaryHits: string[] = [];
  let backend: ReferenceBackend;
  let api: ExtensionApi;
  let user: ScriptedUser;
  let audit: SurfaceAudit;
  const progressTitles: string[] = [];
  let restoreProgress: () => void = () => undefined;
  /** The payload the failing connection's next listing fails with. */
  let failingPayload = 0;
  const webviewFields = { sessions: 0, fields: 0, entries: 0, threads: 0, usageTurns: 0 };
  /** Promise rejections nobody handled, raised in the extension's own code. */
  const unhandled: string[] = [];
  const onUnhandled = (reason: unknown) => {
    const stack = reason instanceof Error ? (reason.stack ?? reason.message) : String(reason);
    if (/dist[\\/](extension|sources|mcpClient)\.cjs/.test(stack))
      unhandled.push(stack.slice(0, 600));
  };

  function toolError(request: InterceptedRequest, text: string): BackendResponse {
    const { id } = JSON.parse(request.body.toString('utf8')) as { id: unknown };
    const body = Buffer.from(
      JSON.stringify({
        jsonrpc: '2.0',
        id,
        result: { content: [{ type: 'text', text }], isError: true },
      }),
    );
    return {
      status: 200,
      headers: { 'content-type': 'application/json', 'content-length': String(body.length) },
      body,
    };
  }

  async function connect(id: string, kind: 'mcp' | 'rest', url: string): Promise<void> {
    await api.tokens.set(id, url, backend.token);
    api.registry.addEphemeral({ id, label: id, kind, url });
    // Idle sessions too (reporting servers leave them out unless asked).
    if (id === CLOSEDLOOP) await api.store.setFilters(id, { quality: 'all' });
    await api.store.refreshAfterCurrent(id);
  }

  async function loadAll(id: string): Promise<void> {
    for (let pages = 0; api.store.state(id)?.next !== undefined && pages < 50; pages++)
      await api.store.loadMore(id);
    const state = api.store.state(id);
    assert.equal(state?.error, undefined, `${id}: ${state?.error?.message.slice(0, 200)}`);
    assert.equal(state?.next, undefined, `${id}: every page loaded`);
  }

  const sessionsOf = (id: string): SessionSummary[] => api.store.state(id)?.sessions ?? [];

  before(async () => {
    process.on('unhandledRejection', onUnhandled);
    canary = createServer((request, response) => {
      canaryHits.push(`${request.method} ${request.url} (${request.headers['user-agent'] ?? ''})`);
      response.writeHead(204).end();
    });
    await new Promise<void>((resolve) => canary.listen(0, '127.0.0.1', resolve));
    const canaryUrl = `http://127.0.0.1:${(canary.address() as AddressInfo).port}`;
    backend = await startTestBackend({
      hostile: true,
      canaryUrl,
      interceptor: async (request, next) => {
        // The all-tools endpoint is the failing connection's: its listing fails, each time
        // with the next payload as the server's message.
        if (request.url.pathname === '/mcp' && request.toolName === 'list-agent-sessions') {
          const payloads = backend.hostile!.payloads;
          return toolError(request, `Error 500 (internal_error): ${payloads[failingPayload]}`);
        }
        return next();
      },
    });
    audit = new SurfaceAudit(backend.hostile!.payloads);
    api = await extensionApi();
    user = new ScriptedUser();
    const window = vscode.window as unknown as Record<string, unknown>;
    const withProgress = window['withProgress'] as typeof vscode.window.withProgress;
    window['withProgress'] = ((options, task) => {
      if (options.title) progressTitles.push(options.title);
      return withProgress(options, task);
    }) as typeof vscode.window.withProgress;
    restoreProgress = () => (window['withProgress'] = withProgress);
    await vscode.commands.executeCommand('sessionInspector.sessions.focus');
    const started = Date.now();
    await connect(CLOSEDLOOP, 'mcp', backend.mcpUrls.closedloop);
    await connect(PLATFORM, 'mcp', backend.mcpUrls.itential);
    await connect(AGENTS, 'rest', backend.url);
    await connect(FAILING, 'mcp', backend.mcpUrl);
    for (const id of CONNECTIONS) await loadAll(id);
    console.log(`      every session loaded in ${Math.round((Date.now() - started) / 1000)} s`);
  });

  after(async () => {
    process.off('unhandledRejection', onUnhandled);
    restoreProgress();
    user?.restore();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    for (const id of [...CONNECTIONS, FAILING]) await api?.registry.remove(id);
    await backend?.close();
    await new Promise((resolve) => canary?.close(resolve));
    if (!audit || !backend?.hostile) return;
    const placements = backend.hostile.placements();
    const fields = Object.keys(placements).length;
    const placed = Object.values(placements).reduce((a, b) => a + b, 0);
    console.log(
      `      corpus: ${backend.hostile.payloads.length} payloads in ${fields} backend fields ` +
        `(${placed} distinct field × payload placements, transcripts and comments as read)`,
    );
    console.log(
      `      webview data: ${webviewFields.sessions} sessions, ${webviewFields.fields} session fields, ` +
        `${webviewFields.entries} transcript entries, ${webviewFields.threads} comment threads, ` +
        `${webviewFields.usageTurns} usage turns`,
    );
    const table = audit.table();
    console.log(
      `      surfaces: ${table.length}, texts checked: ${table.reduce((n, r) => n + r.texts, 0)}, ` +
        `distinct payloads seen on them: ${audit.distinctPayloads()}`,
    );
    for (const row of table.sort((a, b) => b.texts - a.texts)) {
      console.log(
        `        ${row.surface.padEnd(34)} ${String(row.texts).padStart(6)} texts, ` +
          `${String(row.carrying).padStart(6)} with a payload, ${String(row.payloads).padStart(4)} distinct payloads`,
      );
    }
  });

  function assertClean(what: string): void {
    assert.deepEqual(audit.failures.slice(0, 20), [], `${what}: ${audit.failures.length} problems`);
  }

  it('loads every session of the reporting, platform and agents-API backends', () => {
    assert.equal(sessionsOf(CLOSEDLOOP).length, 240);
    assert.equal(sessionsOf(PLATFORM).length, 40);
    assert.equal(sessionsOf(AGENTS).length, 43);
    // The store keeps what the server said: the payloads are there to be shown.
    const payloads = new Set(backend.hostile!.payloads);
    assert.ok(sessionsOf(CLOSEDLOOP).every((s) => payloads.has(s.label)));
    assert.ok(sessionsOf(AGENTS).every((s) => payloads.has(s.label)));
  });

  it('tree: every node of every connection (labels, descriptions, tooltips)', () => {
    let nodes = 0;
    const sessionNodes = new Set<string>();
    const walk = (node: TreeNode, depth: number): void => {
      const item = api.tree.getTreeItem(node);
      nodes++;
      const surface = `tree ${node.kind}`;
      const label = typeof item.label === 'string' ? item.label : item.label?.label;
      audit.plain(`${surface} label`, label, LABEL);
      if (typeof item.description === 'string')
        audit.plain(`${surface} description`, item.description, DETAIL);
      audit.markdown(`${surface} tooltip`, item.tooltip);
      if (node.kind === 'session')
        sessionNodes.add(`${node.session.connectionId}/${node.session.id}`);
      if (depth < 6) for (const child of api.tree.getChildren(node)) walk(child, depth + 1);
    };
    for (const id of [...CONNECTIONS, FAILING]) {
      // Show every row: expand each group's "show more" until none is left.
      for (let round = 0; round < 100; round++) {
        const more: Extract<TreeNode, { kind: 'showMore' }>[] = [];
        const find = (node: TreeNode, depth: number): void => {
          if (node.kind === 'showMore') more.push(node);
          if (depth < 3) for (const child of api.tree.getChildren(node)) find(child, depth + 1);
        };
        find({ kind: 'connection', connectionId: id }, 0);
        if (more.length === 0) break;
        for (const node of more) api.tree.showMore(node.connectionId, node.group);
      }
      walk({ kind: 'connection', connectionId: id }, 0);
    }
    const loaded = CONNECTIONS.reduce((n, id) => n + sessionsOf(id).length, 0);
    assert.equal(sessionNodes.size, loaded, 'every loaded session is a tree row');
    assert.ok(nodes > loaded);
    assertClean('tree');
  });

  it("a listing that fails shows the server's message as text in the tree, for 20 payloads", async () => {
    const error = (): TreeNode | undefined =>
      api.tree
        .getChildren({ kind: 'connection', connectionId: FAILING })
        .find((n) => n.kind === 'message');
    for (let i = 0; i < 20; i++) {
      failingPayload = (i * 15) % backend.hostile!.payloads.length;
      await api.store.refresh(FAILING);
      assert.ok(api.store.state(FAILING)?.error, 'the listing failed');
      const node = error();
      assert.ok(node, 'an error row');
      const item = api.tree.getTreeItem(node);
      audit.plain(
        'tree error label',
        typeof item.label === 'string' ? item.label : item.label?.label,
        LABEL,
      );
      audit.plain('tree error description', item.description as string | undefined, DETAIL);
      audit.markdown('tree error tooltip', item.tooltip);
      const connection = api.tree.getTreeItem({ kind: 'connection', connectionId: FAILING });
      audit.plain(
        'tree connection description',
        connection.description as string | undefined,
        DETAIL,
      );
      audit.markdown('tree connection tooltip', connection.tooltip);
    }
    assertClean('error rows');
  });

  it('status bar: our own icon only; the waiting sessions escaped in its tooltip', () => {
    audit.plain('status bar text', api.statusBar.shownText, { max: 60, ownIcons: ['bell'] });
    assert.ok(api.statusBar.shownText, 'sessions are waiting');
    audit.markdown('status bar tooltip', api.statusBar.shownTooltip);
    assertClean('status bar');
  });

  /** A panel's messages settled: nothing is loading any more. */
  const settled = (posted: ReadonlyMap<string, HostMessage> | undefined) => {
    if (!posted) return undefined;
    if (posted.get('failed')) return posted;
    const transcript = posted.get('transcriptStatus') as
      Extract<HostMessage, { type: 'transcriptStatus' }> | undefined;
    const comments = posted.get('comments') as
      Extract<HostMessage, { type: 'comments' }> | undefined;
    if (!posted.get('session') || !posted.get('usage') || !transcript || !comments)
      return undefined;
    if (transcript.status.state === 'loading' || comments.view.state === 'loading')
      return undefined;
    return posted;
  };

  /** Counts what a panel's webview was given to render (its own tier checks the rendering). */
  function countWebviewData(messages: Iterable<HostMessage>): void {
    for (const message of messages) {
      if (message.type === 'session') {
        webviewFields.sessions++;
        const s = message.view.session;
        webviewFields.fields +=
          [s.label, s.harness, s.model, s.repository, s.branch, s.user].filter(Boolean).length +
          (s.details?.length ?? 0) +
          (s.pendingTasks?.length ?? 0);
      } else if (message.type === 'transcriptStatus' && message.status.state === 'ready') {
        webviewFields.entries += message.status.entryCount;
      } else if (message.type === 'comments') {
        webviewFields.threads += message.view.threads.length;
      } else if (message.type === 'usage') {
        webviewFields.usageTurns += message.view.turns.length;
      }
    }
  }

  it('session tab titles are one plain line (every fifth session, and the 1 MB name)', async () => {
    // Every title is made by the same line of code; a sample keeps the tier's time down.
    const huge = backend.hostile!.fixtures.hugeName;
    const all = CONNECTIONS.flatMap(sessionsOf).filter((s, i) => i % 5 === 0 || s.id === huge);
    const sessionTabs = () =>
      vscode.window.tabGroups.all
        .flatMap((g) => g.tabs)
        .filter(
          (t) =>
            t.input instanceof vscode.TabInputWebview &&
            t.input.viewType.endsWith('sessionInspector.session'),
        );
    let titles = 0;
    // In batches: a tab appears once the workbench has it; hidden tabs load no webview.
    for (let start = 0; start < all.length; start += 25) {
      const batch = all.slice(start, start + 25);
      for (const session of batch) api.panels.open(session);
      const tabs = await until(`${batch.length} session tabs`, () => {
        const open = sessionTabs();
        return open.length === batch.length && open;
      });
      for (const tab of tabs) audit.plain('tab title', tab.label, { max: 100 });
      titles += tabs.length;
      await vscode.window.tabGroups.close(tabs);
    }
    assert.equal(titles, all.length);
    assertClean('tabs');
  });

  it("every session's panel: what its Details, Transcript, Comments and Usage tabs are given", async () => {
    const all = CONNECTIONS.flatMap(sessionsOf);
    const started = Date.now();
    let next = 0;
    const states = new Map<string, number>();
    const worker = async () => {
      while (next < all.length) {
        const session = all[next++]!;
        const messages = await api.panels.headless(session);
        countWebviewData(messages);
        for (const m of messages) {
          const state =
            m.type === 'transcriptStatus'
              ? `transcript ${m.status.state}`
              : m.type === 'comments'
                ? `comments ${m.view.state}`
                : undefined;
          if (state) states.set(state, (states.get(state) ?? 0) + 1);
        }
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    console.log(
      `      ${all.length} panels' data in ${Math.round((Date.now() - started) / 1000)} s: ` +
        [...states].map(([state, n]) => `${n} ${state}`).join(', '),
    );
    assert.equal(webviewFields.sessions, all.length);
    assert.ok(webviewFields.entries > 5_000, `${webviewFields.entries} transcript entries`);
    assert.ok(webviewFields.threads > 50, `${webviewFields.threads} comment threads`);
    // Detail requests that fail say a payload: the tabs get the server's words as text.
    assert.ok((states.get('transcript failed') ?? 0) > 10);
    assert.ok((states.get('comments failed') ?? 0) > 10);
    // Panels closed while their usage was still being read left no unhandled rejection.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    assert.deepEqual(unhandled, []);
    assertClean('panel data');
  });

  it("real panels render in code-server's browser with the canary listening", async () => {
    const fixtures = backend.hostile!.fixtures;
    const pick = (id: string, predicate: (s: SessionSummary) => boolean) =>
      sessionsOf(id).filter(predicate).slice(0, 2);
    const sample = [
      ...pick(CLOSEDLOOP, (s) => s.id === fixtures.hugeTranscript),
      ...pick(CLOSEDLOOP, (s) => s.id === backend.fixtures.closedloop.manyComments),
      ...pick(CLOSEDLOOP, (s) => s.status.status === 'waiting').slice(0, 1),
      ...pick(PLATFORM, (s) => (s.pendingTasks?.length ?? 0) > 0).slice(0, 1),
      ...pick(AGENTS, (s) => s.id.endsWith(`/${backend.fixtures.agents.showcase.sessionKey}`)),
    ];
    assert.equal(sample.length, 5);
    for (const session of sample) {
      api.panels.open(session);
      const posted = await until(
        `the panel of ${session.connectionId}/${session.id}`,
        () => settled(api.panels.posted(session.connectionId, session.id)),
        60_000,
      ).catch((error: Error) => {
        const seen = api.panels.posted(session.connectionId, session.id);
        const states = [...(seen ?? new Map<string, HostMessage>()).values()].map((m) =>
          JSON.stringify(m).slice(0, 160),
        );
        throw new Error(`${error.message}; posted: ${states.join(' | ') || 'nothing'}`);
      });
      assert.ok(posted.get('session'), 'the webview said ready and was given the session');
      const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
      assert.ok(tab && tab.input instanceof vscode.TabInputWebview);
      audit.plain('tab title', tab.label, { max: 100 });
      // The webview renders the transcript's first entries; give it a moment to ask.
      await new Promise((resolve) => setTimeout(resolve, 500));
      await vscode.window.tabGroups.close(tab);
    }
    assertClean('real panels');
  });

  it('the waiting quick pick', async () => {
    let items: readonly vscode.QuickPickItem[] = [];
    user.pick((offered) => {
      items = offered;
      return undefined;
    });
    await vscode.commands.executeCommand('sessionInspector.showWaiting');
    assert.ok(items.length > 5, `${items.length} waiting sessions offered`);
    for (const item of items) {
      audit.plain('quick pick label', item.label, {
        max: 300,
        ownIcons: ['bell', 'warning', 'question'],
      });
      audit.plain('quick pick description', item.description, HOVER);
      audit.plain('quick pick detail', item.detail, HOVER);
    }
    assertClean('waiting pick');
  });

  it('completing a session with hostile instructions: prompts and picks, abandoned before sending', async () => {
    const withInstructions = sessionsOf(CLOSEDLOOP).filter((s) =>
      backend.state.instructions(s.id).some((i) => i.state === 'pending'),
    );
    assert.ok(withInstructions.length > 5, `${withInstructions.length} sessions with instructions`);
    let offered = 0;
    for (const session of withInstructions) {
      user
        .forget()
        .type('done')
        .pick((items) => {
          offered += items.length;
          for (const item of items) {
            audit.plain('instruction pick label', item.label, { max: 310 });
            audit.plain('instruction pick description', item.description, HOVER);
            audit.plain('instruction pick detail', item.detail, HOVER);
          }
          return [...items];
        });
      // Then no answer at the review step: nothing is sent.
      user.pick(() => undefined);
      await vscode.commands.executeCommand('sessionInspector.completeSession', {
        kind: 'session',
        session,
      });
      assert.equal(backend.state.appliedCompletions(session.id), 0);
    }
    assert.ok(offered >= withInstructions.length, `${offered} instructions offered`);
    // Cancel asks for a reason and confirms in a modal; dismissed.
    user.forget().type('stop');
    await vscode.commands.executeCommand('sessionInspector.cancelSession', {
      kind: 'session',
      session: withInstructions[0],
    });
    assert.equal(backend.state.appliedCompletions(withInstructions[0]!.id), 0);
    assertClean('completion dialogs');
  });

  it('manual tasks: task pick, finish pick with the workflow’s buttons, the preview modal (dismissed)', async () => {
    const withTasks = sessionsOf(PLATFORM).filter((s) =>
      s.pendingTasks?.some((t) => t.completionSupported),
    );
    assert.ok(withTasks.length >= 2, `${withTasks.length} platform sessions with tasks`);
    let modals = 0;
    const answer = (items: readonly vscode.QuickPickItem[]) => {
      for (const item of items) {
        audit.plain('manual task pick label', item.label, LABEL);
        audit.plain('manual task pick description', item.description, HOVER);
        audit.plain('manual task pick detail', item.detail, HOVER);
      }
      return items[0];
    };
    for (const session of withTasks) {
      const before = user.messages.length;
      // Which task (when there are several), then how to finish it; the modal is dismissed.
      user.forget().pick(answer).pick(answer);
      await vscode.commands.executeCommand('sessionInspector.completeManualTask', {
        kind: 'session',
        session,
      });
      user.forget();
      modals += user.messages.slice(before).filter((m) => m.detail !== undefined).length;
      for (const task of session.pendingTasks ?? [])
        assert.equal(backend.state.appliedManualTasks(task.id), 0);
    }
    assert.ok(modals >= 1, `${modals} preview modals`);
    assertClean('manual tasks');
  });

  it("interrupting an agents-API session: the outcome quotes the server's name as text", async () => {
    const running = sessionsOf(AGENTS).find((s) => s.status.raw === 'running');
    assert.ok(running);
    const before = user.messages.length;
    await vscode.commands.executeCommand('sessionInspector.interruptSession', {
      kind: 'session',
      session: running,
    });
    const [agent, key] = running.id.split('/');
    assert.equal(backend.state.appliedInterrupts(agent!, key!), 1);
    assert.ok(user.messages.length > before, 'the outcome is told');
  });

  it('every notification, modal, prompt and progress title shown meanwhile', () => {
    assert.ok(user.messages.length > 0);
    for (const message of user.messages) {
      audit.plain(`notification (${message.level})`, message.text, MESSAGE);
      audit.plain('modal detail', message.detail, DETAIL);
      for (const button of message.buttons)
        audit.plain('notification button', button, { max: 100 });
    }
    for (const prompt of user.prompts)
      for (const text of prompt.texts)
        audit.plain(`${prompt.kind} title or prompt`, text, { max: 400 });
    for (const title of progressTitles) audit.plain('progress title', title, { max: 300 });
    assertClean('messages');
  });

  it('the canary heard nothing: no URL from data was requested, by the host or a webview', async () => {
    // Give a late image or prefetch of the last panels a moment to arrive.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    assert.deepEqual(canaryHits, []);
  });
});
