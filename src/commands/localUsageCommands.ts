import * as vscode from 'vscode';
import { sourceOperation } from '../sources/sessionSource.ts';
import { surfaceError, surfaceLabel } from '../domain/surfaceText.ts';
import type { SessionStore } from '../store/sessionStore.ts';
import { showError, showInformation } from '../views/safeMessage.ts';

export const SHOW_LOCAL_USAGE_COMMAND = 'sessionInspector.showLocalUsageReport';
export const EXPORT_LOCAL_USAGE_COMMAND = 'sessionInspector.exportLocalUsageReport';
/** How long to wait for a just-added local connection to reach the store. */
const ADDED_CONNECTION_WAIT_MS = 5_000;

/**
 * The usage report of the Claude Code and Codex transcripts on this machine: shown in the
 * usage dashboard, or exported as a JSON document. Without a local connection, offers to
 * add one. `showDashboard` opens a connection's usage dashboard (the webview host's, handed
 * in by extension.ts).
 */
export function registerLocalUsageCommands(
  store: SessionStore,
  showDashboard: (connectionId: string) => Thenable<unknown>,
): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(SHOW_LOCAL_USAGE_COMMAND, async () => {
      const id = await localConnection(store);
      if (id) await showDashboard(id);
    }),
    // Returns the document (the integration tests read it).
    vscode.commands.registerCommand(EXPORT_LOCAL_USAGE_COMMAND, async () => {
      const id = await localConnection(store);
      return id ? exportReport(store, id) : undefined;
    }),
  ];
}

async function exportReport(
  store: SessionStore,
  connectionId: string,
): Promise<vscode.TextDocument | undefined> {
  const source = sourceOperation(store.source(connectionId), 'localFiles');
  const label = store.state(connectionId)?.config.label ?? connectionId;
  if (!source) return undefined;
  try {
    const report = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: vscode.l10n.t('Totalling the usage of the local transcripts…'),
      },
      () => source.usage(),
    );
    const document = {
      generatedAt: new Date().toISOString(),
      connection: label,
      days: 'local calendar day of each response',
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      costs:
        'USD at list prices (sessionInspector.local.prices overrides them); cost null = unknown (some tokens are of a model without a price, see unpricedModels); knownCost = the priced part',
      ...report,
    };
    // An unknown cost is written as null rather than left out, so it reads as "unknown".
    const content = JSON.stringify(
      document,
      (key, value: unknown) => (key === 'cost' && value === undefined ? null : value),
      2,
    );
    const opened = await vscode.workspace.openTextDocument({ language: 'json', content });
    await vscode.window.showTextDocument(opened, { preview: false });
    return opened;
  } catch (error) {
    void showError(
      vscode.l10n.t(
        'The usage report of {0} could not be built: {1}',
        surfaceLabel(label),
        surfaceError(error),
      ),
    );
    return undefined;
  }
}

/** The local connection: the only one, a picked one, or a new one the user agrees to add. */
async function localConnection(store: SessionStore): Promise<string | undefined> {
  // Asking for a source builds it (loading the sources bundle): the report needs it anyway.
  const locals = () =>
    store.connections().filter((c) => sourceOperation(store.source(c.config.id), 'localFiles'));
  const found = locals();
  if (found.length === 1) return found[0]!.config.id;
  if (found.length > 1) {
    const picked = await vscode.window.showQuickPick(
      found.map((c) => ({ label: surfaceLabel(c.config.label), id: c.config.id })),
      { placeHolder: vscode.l10n.t('The usage of which local connection?') },
    );
    return picked?.id;
  }
  const add = vscode.l10n.t('Add Local Connection');
  const answer = await showInformation(
    vscode.l10n.t(
      'No local transcripts connection is set up. Add one to read the Claude Code and Codex sessions on this machine?',
    ),
    add,
  );
  if (answer !== add) return undefined;
  await vscode.commands.executeCommand('sessionInspector.addConnection', 'local');
  // The new connection reaches the store through the settings change event.
  const added = await new Promise<string | undefined>((resolve) => {
    const done = (id: string | undefined) => {
      clearTimeout(timer);
      subscription.dispose();
      resolve(id);
    };
    const subscription = store.onDidChange(() => {
      const id = locals()[0]?.config.id;
      if (id) done(id);
    });
    const timer = setTimeout(() => done(locals()[0]?.config.id), ADDED_CONNECTION_WAIT_MS);
    const now = locals()[0]?.config.id;
    if (now) done(now);
  });
  return added;
}
