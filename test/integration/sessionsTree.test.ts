import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { deriveReportingStatus } from '../../src/domain/derivedStatus.ts';
import type { ReferenceBackend } from '../../src/demo/server.ts';
import type { ExtensionApi } from '../../src/extension.ts';
import type { TreeNode } from '../../src/views/sessionsTree.ts';
import { connectMcp, startTestBackend } from '../support/backend.ts';
import { FaultInjector } from '../support/faults.ts';
import { until } from './support/until.ts';
import { extensionApi } from './support/extensionApi.ts';

const CONNECTION = 'integration-mcp';

describe('sessions tree against the reference backend', () => {
  const faults = new FaultInjector();
  let backend: ReferenceBackend;
  let api: ExtensionApi;
  const authHeaders: (string | undefined)[] = [];
  const listCalls: number[] = [];

  before(async () => {
    backend = await startTestBackend({
      interceptor: (request, next) => {
        if (request.area === 'mcp') authHeaders.push(request.headers.authorization);
        if (request.toolName === 'list-agent-sessions') listCalls.push(Date.now());
        return faults.interceptor(request, next);
      },
    });
    api = await extensionApi();
    await api.tokens.set(CONNECTION, backend.mcpUrl, backend.token);
    api.registry.addEphemeral({
      id: CONNECTION,
      label: 'Integration',
      kind: 'mcp',
      url: backend.mcpUrl,
    });
    await vscode.commands.executeCommand('sessionInspector.sessions.focus');
  });

  after(async () => {
    await api.registry.remove(CONNECTION);
    await backend.close();
  });

  const state = () => api.store.state(CONNECTION);
  const rootNodes = () =>
    api.tree.getChildren({ kind: 'connection', connectionId: CONNECTION }) as TreeNode[];

  it('shows derived-status groups with the right counts, waiting first', async () => {
    await until('first page', () => state()?.loadedOnce);
    while (state()?.next !== undefined) {
      await vscode.commands.executeCommand('sessionInspector.loadMore', CONNECTION);
    }
    // Independent count: the same tool through the official MCP client.
    const client = await connectMcp(backend);
    const expected = new Map<string, number>();
    for (let offset = 0; ; offset += 100) {
      const result = await client.callTool({
        name: 'list-agent-sessions',
        arguments: { limit: 100, offset },
      });
      const body = result.structuredContent as { items: { status: string }[]; total: number };
      for (const item of body.items) {
        const status = deriveReportingStatus(item.status).status;
        expected.set(status, (expected.get(status) ?? 0) + 1);
      }
      if (offset + 100 >= body.total) break;
    }
    await client.close();

    const groups = rootNodes().filter((n) => n.kind === 'group');
    const shown = groups.map((g) => {
      const item = api.tree.getTreeItem(g);
      return [g.kind === 'group' ? g.status : '', Number(item.description)] as const;
    });
    assert.equal(shown[0]?.[0], 'waiting', 'Waiting on you comes first');
    assert.deepEqual(new Map(shown), expected);
    assert.equal(api.view.badge?.value, expected.get('waiting'), 'badge = waiting sessions');
  });

  it('a group expands to its sessions with status, description and tooltip', () => {
    const waiting = rootNodes().find((n) => n.kind === 'group' && n.status === 'waiting');
    assert.ok(waiting);
    const sessions = api.tree.getChildren(waiting) as TreeNode[];
    assert.ok(sessions.length > 0);
    const item = api.tree.getTreeItem(sessions[0] as TreeNode);
    assert.match(String(item.contextValue), /^session\.waiting/);
    assert.match(String(item.description), /·/);
    // The tooltip's Markdown escapes every punctuation mark of backend text (it renders as is).
    const tooltip = (item.tooltip as vscode.MarkdownString).value.replace(/\\(.)/g, '$1');
    assert.match(tooltip, /raw:(&nbsp;| )waiting/);
    assert.equal(item.command?.command, 'sessionInspector.openSession');
  });

  it('401 becomes a Sign in node; signing in stores the token and the next request carries it', async () => {
    const original = vscode.window.showInputBox;
    try {
      await api.tokens.delete(CONNECTION, backend.mcpUrl);
      await api.store.reconnect(CONNECTION);
      const node = await until('sign-in node', () =>
        rootNodes().find((n) => n.kind === 'message' && n.message === 'error'),
      );
      const item = api.tree.getTreeItem(node);
      assert.equal(item.contextValue, 'error.unauthorized');
      assert.equal(item.command?.command, 'sessionInspector.signIn');
      assert.ok(
        rootNodes().some((n) => n.kind === 'group'),
        'the last good data stays visible',
      );

      (vscode.window as { showInputBox: unknown }).showInputBox = async () => backend.token;
      authHeaders.length = 0;
      await vscode.commands.executeCommand('sessionInspector.signIn', CONNECTION);
      assert.equal(
        await api.tokens.get(CONNECTION, backend.mcpUrl),
        backend.token,
        'stored in secret storage',
      );
      await until('reloaded', () => state()?.loadedOnce && !state()?.error && !state()?.loading);
      assert.ok(authHeaders.length > 0);
      assert.ok(
        authHeaders.every((h) => h === `Bearer ${backend.token}`),
        'requests carry the new token',
      );
    } finally {
      (vscode.window as { showInputBox: unknown }).showInputBox = original;
    }
  });

  it('403 from the reporting tools says monitoring is not enabled', async () => {
    backend.setMonitoringEnabled(false);
    try {
      await vscode.commands.executeCommand('sessionInspector.refresh', CONNECTION);
      const node = await until('403 node', () =>
        rootNodes().find((n) => n.kind === 'message' && n.message === 'error'),
      );
      assert.match(String(api.tree.getTreeItem(node).label), /Monitoring is not enabled/);
      assert.ok(
        rootNodes().some((n) => n.kind === 'group'),
        'the last good data stays visible',
      );
    } finally {
      backend.setMonitoringEnabled(true);
    }
  });

  it('5xx becomes a Retry node; Retry recovers', async () => {
    // No load under way (a waiting scan's later page would take the fault), and the fault
    // on both first calls of the next load: its page and its waiting scan run side by side.
    await api.store.refreshAfterCurrent(CONNECTION);
    faults.add({
      match: { area: 'mcp', tool: 'list-agent-sessions' },
      fault: { kind: 'status', status: 502 },
      times: 2,
    });
    await vscode.commands.executeCommand('sessionInspector.refresh', CONNECTION);
    const node = await until('error node', () =>
      rootNodes().find((n) => n.kind === 'message' && n.message === 'error'),
    );
    const item = api.tree.getTreeItem(node);
    assert.equal(item.contextValue, 'error.retry');
    assert.match(String(item.description), /last loaded/);
    await vscode.commands.executeCommand(
      item.command?.command ?? '',
      ...(item.command?.arguments ?? []),
    );
    await until('recovered', () => !state()?.error && !state()?.loading);
    assert.equal(
      rootNodes().some((n) => n.kind === 'message'),
      false,
    );
  });

  it('Refresh during a load under way refreshes after it instead of doing nothing', async () => {
    await api.store.refreshAfterCurrent(CONNECTION);
    faults.add({
      match: { area: 'mcp', tool: 'list-agent-sessions' },
      fault: { kind: 'latency', ms: 1_500 },
      times: 10,
    });
    const inFlight = api.store.refresh(CONNECTION); // a poll, say
    await until('the slow listing is under way', () => state()?.loading);
    const command = vscode.commands.executeCommand('sessionInspector.refresh', CONNECTION);
    await inFlight;
    const afterLoad = listCalls.length;
    await command;
    faults.clear();
    assert.ok(listCalls.length > afterLoad, 'the Refresh asked the server again after the load');
  });

  it('opens a session in a webview panel, once per session', async () => {
    const session = state()?.sessions[0];
    assert.ok(session);
    await vscode.commands.executeCommand('sessionInspector.openSession', {
      kind: 'session',
      session,
    });
    await vscode.commands.executeCommand('sessionInspector.openSession', {
      kind: 'session',
      session,
    });
    const tabs = await until('panel tab', () => {
      const found = vscode.window.tabGroups.all
        .flatMap((g) => g.tabs)
        .filter((t) => t.input instanceof vscode.TabInputWebview && t.label === session.label);
      return found.length ? found : undefined;
    });
    assert.equal(tabs.length, 1, 'the second open reuses the panel');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});
