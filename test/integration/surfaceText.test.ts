import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type {
  BackendResponse,
  InterceptedRequest,
  ReferenceBackend,
} from '../../src/demo/server.ts';
import type { SessionSummary } from '../../src/domain/session.ts';
import type { ExtensionApi } from '../../src/extension.ts';
import { startTestBackend } from '../support/backend.ts';
import { ScriptedUser } from './support/ui.ts';
import { until } from './support/until.ts';
import { extensionApi } from './support/extensionApi.ts';

/*
 * A session whose name and repository are hostile, served by the reference backend (its
 * listing rewritten on the way out), checked on every VS Code surface the extension puts
 * it on: the waiting notification, the waiting quick pick, the tree item and its tooltip,
 * the status-bar tooltip, a progress title, the persisted completion intent and the tab.
 */
const CONNECTION = 'hostile-text';
const COMMAND_LINK =
  '[click](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22rm%22%7D)';
const HOSTILE_NAME = [
  COMMAND_LINK,
  '[x](https://evil.example)',
  '$(alert) $(loading~spin)',
  '<img src=x onerror=alert(1)>',
  '\u202Eevil\u200B',
  '\uD800',
  '\\[escaped\\]',
  `<https://evil.example>${'A'.repeat(1_000_000)}`,
].join(' ');
const HOSTILE_REPOSITORY = '$(alert) [x](https://evil.example) https://evil.example/a_(b)';

/** VS Code's parsers of extension text (see test/unit/domain/surfaceText.test.ts). */
const LINKS = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)(\3))?\)/i;
const ICONS = /(?<!\\)\$\([A-Za-z0-9-]+(?:~[A-Za-z]+)?\)/;
const HIDDEN = /[\u200B\u202A-\u202E\u2066-\u2069\uFEFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])/;

function assertPlain(text: string | undefined, where: string, max: number): void {
  assert.ok(text, `${where}: shown`);
  assert.doesNotMatch(text, LINKS, `${where}: a link from data`);
  assert.doesNotMatch(text, ICONS, `${where}: an icon from data`);
  assert.doesNotMatch(text, HIDDEN, `${where}: bidi or zero-width characters`);
  assert.ok(text.length <= max, `${where}: ${text.length} characters`);
}

/** The part of the name a reader sees first, as the sanitiser keeps it (joined invisibly). */
const shownStart = (text: string) => text.replaceAll('\u2060', '').startsWith('[click](command:');

describe('backend text on VS Code surfaces (hostile names)', () => {
  let backend: ReferenceBackend;
  let api: ExtensionApi;
  let user: ScriptedUser;
  let target: string | undefined;
  /** Before the notification test the hostile session is not waiting yet. */
  let waiting = false;
  let rewritten = 0;
  /** When set, session_complete answers with this tool error (once). */
  let serverError: string | undefined;

  /** A tool error answer to the request's JSON-RPC id. */
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

  /** Names the first waiting session of the listing, in every listing it appears in. */
  function rewriteListing(value: unknown): unknown {
    const items = (value as { items?: Record<string, unknown>[] } | null)?.items;
    if (!Array.isArray(items)) return value;
    for (const item of items) {
      if (target === undefined && item['status'] === 'waiting') target = String(item['id']);
      if (item['id'] !== target) continue;
      item['name'] = HOSTILE_NAME;
      item['repositoryFullName'] = HOSTILE_REPOSITORY;
      if (!waiting) item['status'] = 'active';
      rewritten++;
    }
    return value;
  }

  async function rewrite(
    request: InterceptedRequest,
    response: BackendResponse,
  ): Promise<BackendResponse> {
    if (request.toolName !== 'list-agent-sessions' || !(response.body instanceof Uint8Array))
      return response;
    const message = JSON.parse(Buffer.from(response.body).toString('utf8')) as {
      result?: { content?: { type: string; text?: string }[]; structuredContent?: unknown };
    };
    const result = message.result;
    if (!result) return response;
    for (const block of result.content ?? []) {
      if (block.type === 'text' && block.text)
        block.text = JSON.stringify(rewriteListing(JSON.parse(block.text)));
    }
    if (result.structuredContent !== undefined)
      result.structuredContent = rewriteListing(result.structuredContent);
    const body = Buffer.from(JSON.stringify(message));
    return {
      ...response,
      headers: { ...response.headers, 'content-length': String(body.length) },
      body,
    };
  }

  before(async () => {
    backend = await startTestBackend({
      interceptor: async (request, next) => {
        if (request.toolName === 'session_complete' && serverError !== undefined) {
          const text = serverError;
          serverError = undefined;
          return toolError(request, text);
        }
        return rewrite(request, await next());
      },
    });
    api = await extensionApi();
    await api.tokens.set(CONNECTION, backend.mcpUrl, backend.token);
    api.registry.addEphemeral({
      id: CONNECTION,
      label: 'Hostile text',
      kind: 'mcp',
      url: backend.mcpUrl,
    });
    await api.store.refreshAfterCurrent(CONNECTION);
    while (api.store.state(CONNECTION)?.next !== undefined) await api.store.loadMore(CONNECTION);
    assert.ok(target && rewritten > 0, 'the listing carried the hostile session');
  });

  beforeEach(() => {
    user = new ScriptedUser();
  });
  afterEach(() => user.restore());
  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await api.registry.remove(CONNECTION);
    await backend.close();
  });

  const hostile = (): SessionSummary => {
    const found = api.store.state(CONNECTION)?.sessions.find((s) => s.id === target);
    assert.ok(found, 'the hostile session is loaded');
    assert.equal(found.label, HOSTILE_NAME, 'the store keeps what the server said');
    return found;
  };

  it('the waiting notification shows the name as text: no link, no icon, shortened', async () => {
    assert.notEqual(hostile().status.status, 'waiting');
    waiting = true;
    await api.store.refresh(CONNECTION);
    const message = await until('the waiting notification', () =>
      user.messages.find((m) => m.text.endsWith('is waiting on you.')),
    );
    assertPlain(message.text, 'notification', 1000);
    assert.ok(shownStart(message.text.slice(1)), message.text.slice(0, 80));
  });

  it('the waiting quick pick: label and description without links or icons', async () => {
    assert.equal(hostile().status.status, 'waiting');
    let items: readonly vscode.QuickPickItem[] = [];
    user.pick((offered) => {
      items = offered;
      return undefined;
    });
    await vscode.commands.executeCommand('sessionInspector.showWaiting');
    const item = items.find((i) => shownStart(i.label));
    assert.ok(item, 'the hostile session is offered');
    assertPlain(item.label, 'quick-pick label', 100);
    assertPlain(item.description, 'quick-pick description', 300);
    // Its description is repeated in a Markdown hover: bare URLs must not link there either.
    assert.doesNotMatch(item.description ?? '', /https?:\/\//);
  });

  it('the tree item: plain label and description, an untrusted tooltip that escapes everything', () => {
    const item = api.tree.getTreeItem({ kind: 'session', session: hostile() });
    assert.equal(typeof item.label, 'string');
    assertPlain(item.label as string, 'tree label', 100);
    assertPlain(item.description as string, 'tree description', 300);
    const tooltip = item.tooltip;
    assert.ok(tooltip instanceof vscode.MarkdownString);
    assert.ok(!tooltip.isTrusted && !tooltip.supportThemeIcons && !tooltip.supportHtml);
    // Every ASCII punctuation character of data is escaped: nothing can become Markdown.
    const heading = tooltip.value.split('\n')[0] ?? '';
    assert.match(heading, /^\*\*\\\[click\\\]/);
    // (Once escaped pairs are removed, only our own `**`, `: ` and line breaks are left.)
    assert.doesNotMatch(tooltip.value.replace(/\\./g, ''), /[[\]()<>&$]/);
    assert.doesNotMatch(tooltip.value, HIDDEN);
    assert.ok(tooltip.value.length < 4000, `${tooltip.value.length}`);
  });

  it('the status bar: our own icon only, the name escaped in its tooltip', () => {
    assert.match(api.statusBar.shownText ?? '', /^\$\(bell\) \d+/);
    const tooltip = api.statusBar.shownTooltip;
    assert.ok(tooltip && !tooltip.isTrusted && !tooltip.supportThemeIcons && !tooltip.supportHtml);
    const line = tooltip.value.split('\n').find((l) => l.startsWith('- \\[click\\]'));
    assert.ok(line, tooltip.value.slice(0, 400));
    assert.doesNotMatch(line.replace(/\\./g, ''), /[[\]()<>&$]/);
    assert.doesNotMatch(line, HIDDEN);
    assert.ok(line.length < 400, `${line.length}`);
  });

  it('a progress title, the persisted intent and its retry pick carry shortened text', async () => {
    const titles: string[] = [];
    const window = vscode.window as unknown as Record<string, unknown>;
    const withProgress = window['withProgress'] as typeof vscode.window.withProgress;
    window['withProgress'] = ((options, task) => {
      if (options.title) titles.push(options.title);
      return withProgress(options, task);
    }) as typeof vscode.window.withProgress;
    // The server answers with a 1 MB "Error 503": not confirmed, so the intent stays.
    serverError = `Error 503 ${'[x](https://evil.example) '.repeat(40_000)}`;
    try {
      user.type('stopping a hostile session').click('Cancel Session', undefined);
      await vscode.commands.executeCommand('sessionInspector.cancelSession', {
        kind: 'session',
        session: hostile(),
      });
    } finally {
      window['withProgress'] = withProgress;
    }
    const title = titles.find((t) => t.startsWith('Canceling'));
    assertPlain(title, 'progress title', 200);
    for (const message of user.messages) assertPlain(message.text, 'cancel dialog', 1000);
    assert.ok(user.messages.some((m) => m.text.startsWith('Not confirmed')));
    const intent = api.completions.unfinished().find((i) => i.args.sessionId === target);
    assert.ok(intent, 'the unconfirmed intent is kept');
    assertPlain(intent.sessionLabel, 'persisted intent label', 100);
    assert.ok(shownStart(intent.sessionLabel));
    assertPlain(intent.lastError, "the server's error, persisted", 1000);
    assert.ok(intent.lastError?.startsWith('Error 503'));
    // Retry Unconfirmed Completions lists it: the server's error as a quick-pick detail.
    let offered: readonly vscode.QuickPickItem[] = [];
    user.pick((items) => {
      offered = items;
      return undefined;
    });
    await vscode.commands.executeCommand('sessionInspector.retryCompletions');
    const retry = offered.find((i) => shownStart(i.label));
    assert.ok(retry, 'the unconfirmed cancellation is offered for a retry');
    assertPlain(retry.label, 'retry quick-pick label', 100);
    assertPlain(retry.detail, 'retry quick-pick detail', 300);
    assert.doesNotMatch(retry.detail ?? '', /https?:\/\//);
    await api.completions.discard(intent);
  });

  it('the session tab title is one short line', async () => {
    api.panels.open(hostile());
    const tab = await until('the session tab', () =>
      vscode.window.tabGroups.all
        .flatMap((g) => g.tabs)
        .find((t) => t.input instanceof vscode.TabInputWebview && shownStart(t.label)),
    );
    assertPlain(tab.label, 'tab title', 100);
    await vscode.window.tabGroups.close(tab);
  });
});
