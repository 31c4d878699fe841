import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { expectedTokens, reportTokens } from '../support/localCorpus.ts';
import { until } from './support/until.ts';
import { extensionApi } from './support/extensionApi.ts';

/**
 * The local usage report in a real extension host over the runner's generated corpus
 * (ASI_EXPECTED_LOCAL; the host runs in UTC, the generator's days are UTC days): the
 * exported JSON equals the generator's totals per harness, model and day, and a price
 * override in sessionInspector.local.prices sets that model's cost.
 */
interface Totals {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning: number;
  responses: number;
}
interface Expected {
  total: Totals;
  byHarness: Record<string, Totals>;
  byModel: Record<string, Totals>;
  byDay: Record<string, Totals>;
}
interface ReportTotals {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  responses: number;
  cost: number | null;
  knownCost: number;
}
interface ExportedReport {
  days: string;
  totals: ReportTotals;
  byHarness: Record<string, ReportTotals>;
  byModel: Record<string, ReportTotals>;
  byDay: Record<string, ReportTotals>;
  unpricedModels: string[];
}

const ID = 'local-usage';
/** USD per million tokens, far from any list price. */
const OVERRIDE = { input: 1000, output: 2000, cacheRead: 100, cacheWrite: 500 };

describe('local usage report', () => {
  it('the exported report equals the generator totals; a price override sets its model cost', async function () {
    this.timeout(90_000);
    const expected = JSON.parse(process.env.ASI_EXPECTED_LOCAL ?? 'null') as Expected | null;
    assert.ok(expected?.byDay, 'the runner generated a corpus with per-day totals');
    assert.equal(new Date(0).getTimezoneOffset(), 0, 'the runner starts the host in UTC');
    const api = await extensionApi();
    const settings = vscode.workspace.getConfiguration('sessionInspector');
    // The Codex model of the corpus: its cache writes are 0, so the cost is plain arithmetic.
    const model = Object.keys(expected.byModel).find((m) => m.startsWith('gpt-'));
    assert.ok(model, 'the corpus has Codex sessions');
    const exported: vscode.TextDocument[] = [];
    api.registry.addEphemeral({ id: ID, label: 'This machine (usage)', kind: 'local' });
    try {
      await until('the local connection in the store', () => api.store.state(ID));
      const locals = api.store.connections().filter((c) => c.config.kind === 'local');
      assert.deepEqual(
        locals.map((c) => c.config.id),
        [ID],
        'one local connection: the commands use it without asking',
      );
      const exportReport = async () => {
        const document = await vscode.commands.executeCommand<vscode.TextDocument | undefined>(
          'sessionInspector.exportLocalUsageReport',
        );
        assert.ok(document, 'the export opened a document');
        exported.push(document);
        assert.equal(document.languageId, 'json');
        assert.equal(document.isUntitled, true);
        return JSON.parse(document.getText()) as ExportedReport;
      };

      const report = await exportReport();
      assert.equal(report.days, 'local calendar day of each response');
      assert.deepEqual(reportTokens(report.totals), expectedTokens(expected.total), 'totals');
      for (const [harness, e] of Object.entries(expected.byHarness)) {
        assert.deepEqual(reportTokens(report.byHarness[harness]!), expectedTokens(e), harness);
      }
      assert.deepEqual(Object.keys(report.byModel).sort(), Object.keys(expected.byModel).sort());
      for (const [m, e] of Object.entries(expected.byModel)) {
        assert.deepEqual(reportTokens(report.byModel[m]!), expectedTokens(e), m);
      }
      assert.deepEqual(Object.keys(report.byDay).sort(), Object.keys(expected.byDay).sort());
      for (const [day, e] of Object.entries(expected.byDay)) {
        assert.deepEqual(reportTokens(report.byDay[day]!), expectedTokens(e), day);
      }
      assert.deepEqual(report.unpricedModels, [], 'every corpus model has a bundled price');
      const bundledCost = report.byModel[model]!.cost;
      assert.ok(bundledCost !== null && bundledCost > 0);

      // A price override (plus an invalid entry, which is ignored) reloads the connection.
      const before = api.store.source(ID);
      await settings.update(
        'local.prices',
        { [model]: OVERRIDE, 'broken-model': { input: 'three' } },
        vscode.ConfigurationTarget.Global,
      );
      await until(
        'the connection reloaded with the new prices',
        () => api.store.source(ID) !== before,
      );
      const priced = await exportReport();
      const e = expected.byModel[model]!;
      const want =
        (e.input * OVERRIDE.input +
          e.output * OVERRIDE.output +
          e.cacheRead * OVERRIDE.cacheRead +
          e.cacheWrite * OVERRIDE.cacheWrite) /
        1_000_000;
      const got = priced.byModel[model]!.cost;
      assert.ok(got !== null && Math.abs(got - want) < 1e-6 * want, `${model}: ${got} ≈ ${want}`);
      assert.deepEqual(
        reportTokens(priced.totals),
        expectedTokens(expected.total),
        'tokens unchanged',
      );
      for (const other of Object.keys(expected.byModel).filter((m) => m !== model)) {
        assert.equal(priced.byModel[other]!.cost, report.byModel[other]!.cost, other);
      }

      // The dashboard accepts the local connection.
      await vscode.commands.executeCommand('sessionInspector.showLocalUsageReport');
      const tab = await until('the usage dashboard tab', () =>
        vscode.window.tabGroups.all
          .flatMap((g) => g.tabs)
          .find((t) => t.label === 'Usage: This machine (usage)'),
      );
      assert.ok(tab.input instanceof vscode.TabInputWebview);
      assert.deepEqual(api.dashboards.openConnections(), [ID]);

      // A reload restores dashboard tabs from the state their page kept. Not ours, an
      // unknown connection, or a dashboard already open: the restored tab is closed.
      const restore = async (state: unknown) => {
        const panel = vscode.window.createWebviewPanel(
          'sessionInspector.dashboard',
          'restored',
          vscode.ViewColumn.Active,
        );
        let disposed = false;
        panel.onDidDispose(() => (disposed = true));
        // As in a real restore, the tab is shown when the serializer is asked. The
        // workbench finishes showing a new webview a little after `visible`; disposing it
        // sooner only makes the workbench log "OverlayWebview has been disposed".
        await until('the tab to restore is shown', () => panel.visible && panel.active);
        await new Promise((settled) => setTimeout(settled, 300));
        await api.dashboards.serializer.deserializeWebviewPanel(panel, state);
        return { panel, disposed: () => disposed };
      };
      assert.ok((await restore({ sessionId: 'x' })).disposed(), 'not a dashboard state');
      assert.ok((await restore({ connectionId: 'gone', range: 7 })).disposed(), 'unknown');
      assert.ok((await restore({ connectionId: ID, range: 7 })).disposed(), 'already open');

      // The tab as it is now: a Tab object from before other tabs opened and closed may
      // no longer be valid (VS Code 1.100 then refuses to close it).
      const current = vscode.window.tabGroups.all
        .flatMap((g) => g.tabs)
        .find((t) => t.label === 'Usage: This machine (usage)');
      assert.ok(current, 'the dashboard tab is still open');
      await vscode.window.tabGroups.close(current);
      await until('the dashboard closed', () => api.dashboards.openConnections().length === 0);
      const restored = await restore({ connectionId: ID, range: 7 });
      assert.equal(restored.disposed(), false, 'restored');
      assert.deepEqual(api.dashboards.openConnections(), [ID]);
      assert.equal(restored.panel.title, 'Usage: This machine (usage)');
      assert.match(restored.panel.webview.html, /dashboard\.js/);
    } finally {
      await settings.update('local.prices', undefined, vscode.ConfigurationTarget.Global);
      // Untitled documents would ask to be saved: revert them instead.
      for (const document of exported) {
        await vscode.window.showTextDocument(document);
        await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      }
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await api.registry.remove(ID);
    }
  });
});
