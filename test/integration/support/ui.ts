import * as vscode from 'vscode';

/**
 * Answers the extension's prompts in order, as a user would, and records every
 * message it shows. The extension's own code runs unchanged; only the human is scripted.
 */
export class ScriptedUser {
  readonly messages: { level: 'info' | 'warning' | 'error'; text: string; detail?: string }[] = [];
  private readonly inputs: (string | undefined)[] = [];
  private readonly picks: ((items: readonly vscode.QuickPickItem[]) => unknown)[] = [];
  private readonly buttons: (string | undefined)[] = [];
  private readonly originals: Record<string, unknown> = {};
  private readonly window = vscode.window as unknown as Record<string, unknown>;

  constructor() {
    for (const name of [
      'showInputBox',
      'showQuickPick',
      'showInformationMessage',
      'showWarningMessage',
      'showErrorMessage',
    ]) {
      this.originals[name] = this.window[name];
    }
    this.window.showInputBox = async () => this.inputs.shift();
    this.window.showQuickPick = async (
      items: readonly vscode.QuickPickItem[] | Thenable<readonly vscode.QuickPickItem[]>,
    ) => {
      const answer = this.picks.shift();
      return answer ? answer(await items) : undefined;
    };
    const message =
      (level: 'info' | 'warning' | 'error') =>
      async (text: string, ...rest: unknown[]) => {
        const options =
          rest[0] && typeof rest[0] === 'object' ? (rest[0] as { detail?: string }) : undefined;
        this.messages.push({ level, text, detail: options?.detail });
        const offered = rest.filter((r): r is string => typeof r === 'string');
        const wanted = this.buttons.length && offered.length ? this.buttons.shift() : undefined;
        if (wanted === '*') return offered[0];
        return wanted && offered.includes(wanted) ? wanted : undefined;
      };
    this.window.showInformationMessage = message('info');
    this.window.showWarningMessage = message('warning');
    this.window.showErrorMessage = message('error');
  }

  type(...values: (string | undefined)[]): this {
    this.inputs.push(...values);
    return this;
  }

  /** Picks by a predicate on the items (one call per prompt). */
  pick(choose: (items: readonly vscode.QuickPickItem[]) => unknown): this {
    this.picks.push(choose);
    return this;
  }

  /** Clicks these buttons on the next messages that offer buttons, in order ('*': the first offered). */
  click(...labels: (string | undefined)[]): this {
    this.buttons.push(...labels);
    return this;
  }

  restore(): void {
    Object.assign(this.window, this.originals);
  }
}
