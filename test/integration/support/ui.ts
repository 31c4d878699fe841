import * as vscode from 'vscode';

/**
 * Answers the extension's prompts in order, as a user would, and records every
 * message it shows. The extension's own code runs unchanged; only the human is scripted.
 */
export class ScriptedUser {
  readonly messages: {
    level: 'info' | 'warning' | 'error';
    text: string;
    detail?: string;
    buttons: string[];
  }[] = [];
  /** The titles, prompts, placeholders and values of every input box and quick pick shown. */
  readonly prompts: { kind: 'input' | 'pick'; texts: string[] }[] = [];
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
    const texts = (options: unknown, keys: string[]) =>
      keys
        .map((key) => (options as Record<string, unknown> | undefined)?.[key])
        .filter((value): value is string => typeof value === 'string');
    this.window.showInputBox = async (options?: vscode.InputBoxOptions) => {
      this.prompts.push({
        kind: 'input',
        texts: texts(options, ['title', 'prompt', 'placeHolder', 'value']),
      });
      return this.inputs.shift();
    };
    this.window.showQuickPick = async (
      items: readonly vscode.QuickPickItem[] | Thenable<readonly vscode.QuickPickItem[]>,
      options?: vscode.QuickPickOptions,
    ) => {
      this.prompts.push({ kind: 'pick', texts: texts(options, ['title', 'placeHolder']) });
      const answer = this.picks.shift();
      return answer ? answer(await items) : undefined;
    };
    const message =
      (level: 'info' | 'warning' | 'error') =>
      async (text: string, ...rest: unknown[]) => {
        const options =
          rest[0] && typeof rest[0] === 'object' ? (rest[0] as { detail?: string }) : undefined;
        const offered = rest.filter((r): r is string => typeof r === 'string');
        this.messages.push({ level, text, detail: options?.detail, buttons: offered });
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

  /** Drops answers no prompt asked for (a flow that ended early). */
  forget(): this {
    this.inputs.length = 0;
    this.picks.length = 0;
    this.buttons.length = 0;
    return this;
  }

  restore(): void {
    Object.assign(this.window, this.originals);
  }
}
