import * as vscode from 'vscode';
import { LABEL_MAX_LENGTH, plainSurfaceText } from '../domain/surfaceText.ts';

/**
 * The extension's only way to show a notification or a modal message. The message, a
 * modal's detail and the buttons go through plainSurfaceText: VS Code renders
 * `[label](command:…)` in a notification as a link that runs the command, and these
 * messages quote session names, server errors and paths. Answers are the caller's own
 * button strings, so `answer === confirm` still works when a label had to be cleaned.
 * (eslint forbids calling vscode.window.show*Message anywhere else.)
 */
export function showInformation(
  message: string,
  ...rest: MessageArgs
): Thenable<string | undefined> {
  return show(vscode.window.showInformationMessage, message, rest);
}

export function showWarning(message: string, ...rest: MessageArgs): Thenable<string | undefined> {
  return show(vscode.window.showWarningMessage, message, rest);
}

export function showError(message: string, ...rest: MessageArgs): Thenable<string | undefined> {
  return show(vscode.window.showErrorMessage, message, rest);
}

/** Buttons, optionally after MessageOptions (as vscode.window.show*Message takes them). */
type MessageArgs = string[] | [vscode.MessageOptions, ...string[]];

type Show = (
  message: string,
  options: vscode.MessageOptions,
  ...items: string[]
) => Thenable<string | undefined>;

async function show(
  showMessage: Show,
  message: string,
  rest: MessageArgs,
): Promise<string | undefined> {
  const [first, ...others] = rest;
  const options = typeof first === 'object' ? first : {};
  const items = (typeof first === 'object' ? others : rest) as string[];
  const buttons = items.map((item) => plainSurfaceText(item, { maxLength: LABEL_MAX_LENGTH }));
  const safeOptions: vscode.MessageOptions =
    options.detail === undefined
      ? options
      : {
          ...options,
          detail: plainSurfaceText(options.detail, { multiline: true, maxLength: 3000 }),
        };
  // Looked up on each call, so a test that replaces vscode.window's functions sees it.
  const answer = await showMessage.call(
    vscode.window,
    plainSurfaceText(message),
    safeOptions,
    ...buttons,
  );
  return answer === undefined ? undefined : items[buttons.indexOf(answer)];
}
