import * as assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import type { BackendResponse, ReferenceBackend } from '../../src/demo/server.ts';
import type { ExtensionApi } from '../../src/extension.ts';
import type { TreeNode } from '../../src/views/sessionsTree.ts';
import { startTestBackend } from '../support/backend.ts';
import { until } from './support/until.ts';
import { extensionApi } from './support/extensionApi.ts';

const REPORTING = 'reportsReporting';
const MISSING_AGENT = 'reportsMissingAgent';
const MISSING_PATH = 'reportsMissingPath';

interface ListAnswer {
  items: { id: string; estimatedCost?: unknown }[];
  total?: unknown;
}

/** Rewrites a list-agent-sessions answer in both places the tool puts it. */
function rewriteList(
  response: BackendResponse,
  change: (answer: ListAnswer) => void,
): BackendResponse {
  const message = JSON.parse(Buffer.from(response.body as Uint8Array).toString('utf8')) as {
    result?: { structuredContent?: ListAnswer; content?: { type: string; text?: string }[] };
  };
  const result = message.result;
  if (result?.structuredContent) change(result.structuredContent);
  for (const block of result?.content ?? []) {
    if (block.type !== 'text' || !block.text) continue;
    const answer = JSON.parse(block.text) as ListAnswer;
    change(answer);
    block.text = JSON.stringify(answer);
  }
  const body = Buffer.from(JSON.stringify(message));
  return {
    ...response,
    headers: { ...response.headers, 'content-length': String(body.length) },
    body,
  };
}

/** Numbers the server got wrong and addresses that do not exist, as the tree shows them. */
describe("the server's own inconsistencies and 404s, as the tree shows them", () => {
  let backend: ReferenceBackend;
  let api: ExtensionApi;
  /** When set, list-agent-sessions answers claim this total. */
  let claimedTotal: number | undefined;
  let negativeCostFor: string | undefined;

  before(async () => {
    backend = await startTestBackend({
      interceptor: async (request, next) => {
        const response = await next();
        if (request.toolName !== 'list-agent-sessions') return response;
        if (claimedTotal === undefined && negativeCostFor === undefined) return response;
        return rewriteList(response, (answer) => {
          if (claimedTotal !== undefined) answer.total = claimedTotal;
          for (const item of answer.items)
            if (item.id === negativeCostFor) item.estimatedCost = -12.5;
        });
      },
    });
    api = await extensionApi();
  });
  after(async () => {
    for (const id of [REPORTING, MISSING_AGENT, MISSING_PATH]) await api.registry.remove(id);
    await backend.close();
  });

  const rootNodes = (connectionId: string) =>
    api.tree.getChildren({ kind: 'connection', connectionId }) as TreeNode[];
  const errorLabel = async (connectionId: string) => {
    const node = await until('an error node', () =>
      rootNodes(connectionId).find((n) => n.kind === 'message' && n.message === 'error'),
    );
    return String(api.tree.getTreeItem(node).label);
  };

  it('a 404 is "not found", not "could not be read": an agent key the server does not have', async () => {
    await api.tokens.set(MISSING_AGENT, backend.url, backend.token);
    api.registry.addEphemeral({
      id: MISSING_AGENT,
      label: 'Missing agent',
      kind: 'rest',
      url: backend.url,
      agents: ['no-such-agent'],
    });
    await api.store.refreshAfterCurrent(MISSING_AGENT);
    assert.equal(api.store.state(MISSING_AGENT)?.error?.kind, 'notFound');
    const label = await errorLabel(MISSING_AGENT);
    assert.match(label, /not found/i);
    assert.doesNotMatch(label, /could not be read/);
  });

  it('a 404 is "not found": an MCP URL with no server behind it', async () => {
    const url = `${backend.url}/mcp/no-such-system`;
    await api.tokens.set(MISSING_PATH, url, backend.token);
    api.registry.addEphemeral({ id: MISSING_PATH, label: 'Missing path', kind: 'mcp', url });
    await api.store.refreshAfterCurrent(MISSING_PATH);
    assert.equal(api.store.state(MISSING_PATH)?.error?.kind, 'notFound');
    const label = await errorLabel(MISSING_PATH);
    assert.match(label, /not found/i);
    assert.doesNotMatch(label, /could not be read/);
  });

  it('a negative cost and a total below the loaded count are shown as the server contradicting itself', async () => {
    await api.tokens.set(REPORTING, backend.mcpUrls.closedloop, backend.token);
    api.registry.addEphemeral({
      id: REPORTING,
      label: 'Reporting',
      kind: 'mcp',
      url: backend.mcpUrls.closedloop,
    });
    await api.store.refreshAfterCurrent(REPORTING);
    await api.store.loadMore(REPORTING);
    const loaded = api.store.state(REPORTING)?.sessions ?? [];
    assert.ok(loaded.length > 120, `two pages loaded (${loaded.length})`);

    const costly = loaded[0]!.id;
    negativeCostFor = costly;
    claimedTotal = 120;
    try {
      await api.store.refreshAfterCurrent(REPORTING);
    } finally {
      negativeCostFor = undefined;
      claimedTotal = undefined;
    }
    const state = api.store.state(REPORTING);
    assert.equal(state?.total, 120);
    assert.ok((state?.sessions.length ?? 0) > 120);
    const loadMore = rootNodes(REPORTING).find((n) => n.kind === 'loadMore');
    assert.ok(loadMore, 'paging goes on after what is loaded');
    const description = String(api.tree.getTreeItem(loadMore).description);
    assert.doesNotMatch(description, /of 120 loaded/, 'not "N of 120 loaded" with N > 120');
    assert.match(description, /120/);
    assert.match(description, /inconsistent/);

    const session = state?.sessions.find((s) => s.id === costly);
    assert.ok(session, 'the session with the negative cost');
    const tooltip = (
      api.tree.getTreeItem({ kind: 'session', session }).tooltip as vscode.MarkdownString
    ).value;
    assert.doesNotMatch(tooltip, /\$-12\.50/, 'a negative cost is not shown as a cost');
    assert.match(tooltip, /negative/);
  });
});
