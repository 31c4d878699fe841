import * as vscode from 'vscode';
import {
  COMPARE_CHANGES_COMMAND,
  LIST_CHANGES_COMMAND,
  OPEN_CHANGE_COMMAND,
} from '../../commands/changesCommands.ts';
import type { ChangesView } from '../../shared/changesView.ts';
import type { PanelContext, SessionHandlers } from './panelDeps.ts';

/**
 * The Changes tab: loaded when the page first shows it (reading every transcript of the
 * session costs a pass over them), and again on Refresh. The diffs open through the
 * changes commands, which own the virtual documents.
 */
export class ChangesTab {
  private readonly ctx: PanelContext;

  constructor(ctx: PanelContext) {
    this.ctx = ctx;
  }

  readonly handlers = {
    loadChanges: () => this.load(),
    openChange: (m) =>
      vscode.commands.executeCommand(OPEN_CHANGE_COMMAND, this.ctx.session(), m.index),
    openAllChanges: () => vscode.commands.executeCommand(OPEN_CHANGE_COMMAND, this.ctx.session()),
    compareWithWorkspace: (m) =>
      vscode.commands.executeCommand(COMPARE_CHANGES_COMMAND, this.ctx.session(), m.index),
  } satisfies Partial<SessionHandlers>;

  private async load(): Promise<void> {
    this.ctx.post({
      type: 'changes',
      view: { state: 'loading', files: [], failedCalls: 0, missingSubagents: 0 },
    });
    const view = await vscode.commands.executeCommand<ChangesView>(
      LIST_CHANGES_COMMAND,
      this.ctx.session(),
    );
    this.ctx.post({ type: 'changes', view });
  }
}
