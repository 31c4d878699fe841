import * as path from 'node:path';
import * as vscode from 'vscode';
import { DETAIL_MAX_LENGTH, plainSurfaceText } from '../../domain/surfaceText.ts';
import { externalUrl } from '../../shared/links.ts';
import { showInformation, showWarning } from '../../views/safeMessage.ts';

/** Opens a path from a tool call only when it lies inside an open workspace folder. */
export async function openWorkspaceFile(filePath: string, line?: number): Promise<void> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  const candidates = path.isAbsolute(filePath)
    ? [vscode.Uri.file(path.normalize(filePath))]
    : folders.map((f) => vscode.Uri.joinPath(f.uri, filePath));
  const inside = candidates.find((uri) =>
    folders.some((f) => {
      const relative = path.relative(f.uri.fsPath, uri.fsPath);
      return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
    }),
  );
  if (!inside) {
    // The path comes from a tool call in the transcript.
    void showWarning(
      vscode.l10n.t(
        '{0} is not inside the open workspace, so it is not opened.',
        plainSurfaceText(filePath, { maxLength: DETAIL_MAX_LENGTH }),
      ),
    );
    return;
  }
  try {
    await vscode.workspace.fs.stat(inside);
  } catch {
    void showWarning(
      vscode.l10n.t(
        '{0} does not exist in this workspace.',
        plainSurfaceText(filePath, { maxLength: DETAIL_MAX_LENGTH }),
      ),
    );
    return;
  }
  const position = new vscode.Position(Math.max(0, (line ?? 1) - 1), 0);
  await vscode.window.showTextDocument(inside, {
    selection: new vscode.Range(position, position),
    preview: true,
  });
}

/** Opens the transcript's file read-only, when it has one on this machine. */
export async function openRawTranscript(file: string | undefined): Promise<void> {
  if (!file) {
    void showInformation(vscode.l10n.t('This transcript has no raw file.'));
    return;
  }
  const document = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
  await vscode.window.showTextDocument(document, { preview: true });
  await vscode.commands.executeCommand('workbench.action.files.setActiveEditorReadonlyInSession');
}

/**
 * Opens an http(s) link from transcript Markdown in the browser. The webview only offers
 * such links, but its word is not trusted: anything else is refused here too. VS Code asks
 * before it opens a site the user has not trusted.
 */
export async function openExternalLink(url: string): Promise<boolean> {
  const checked = externalUrl(url);
  if (!checked) return false;
  return vscode.env.openExternal(vscode.Uri.parse(checked, true));
}
