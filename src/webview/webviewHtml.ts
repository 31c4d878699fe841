import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { WebviewL10n } from '../shared/protocol.ts';

/** The language and translations a webview asks for with `ready` (see WebviewL10n). */
export function webviewL10n(): WebviewL10n {
  const bundle = vscode.l10n.bundle;
  return { language: vscode.env.language, ...(bundle ? { bundle } : {}) };
}

/**
 * The tab icon of our panels: a dark glyph for light themes and a light one for dark
 * themes (high-contrast themes pick theirs the same way: HC light the light one).
 */
export function panelIcon(extensionUri: vscode.Uri): { light: vscode.Uri; dark: vscode.Uri } {
  return {
    light: vscode.Uri.joinPath(extensionUri, 'media', 'panel-light.svg'),
    dark: vscode.Uri.joinPath(extensionUri, 'media', 'panel-dark.svg'),
  };
}

/** Which bundle of dist/webview a page loads, and the element it mounts. */
export interface WebviewPage {
  /** A file of dist/webview, e.g. 'main.js'. */
  script: string;
  /** A custom element tag name (fixed in code, never from data). */
  element: string;
}

/** The session panel: the main bundle and its app element. */
export const SESSION_PAGE: WebviewPage = { script: 'main.js', element: 'session-details' };

/**
 * Options of our webview panels: scripts on, command links off, resources only from the
 * built webview folder and media/, nothing kept while hidden (pages restore from state).
 */
export function webviewPanelOptions(
  extensionUri: vscode.Uri,
): vscode.WebviewPanelOptions & vscode.WebviewOptions {
  return {
    enableScripts: true,
    enableCommandUris: false,
    retainContextWhenHidden: false,
    localResourceRoots: [
      vscode.Uri.joinPath(extensionUri, 'dist', 'webview'),
      vscode.Uri.joinPath(extensionUri, 'media'),
    ],
  };
}

/**
 * The webview's HTML with a strict CSP: nothing by default, scripts only with this
 * load's nonce, styles and fonts only from the built webview folder.
 */
export function webviewHtml(
  webview: vscode.Webview,
  extensionUri: vscode.Uri,
  title: string,
  page: WebviewPage = SESSION_PAGE,
): string {
  if (!/^[a-z][a-z0-9]*-[a-z0-9-]+$/.test(page.element) || !/^[\w.-]+\.js$/.test(page.script))
    throw new Error(`webviewHtml: invalid page ${page.element} / ${page.script}`);
  const nonce = randomBytes(16).toString('base64');
  const dist = vscode.Uri.joinPath(extensionUri, 'dist', 'webview');
  const script = webview.asWebviewUri(vscode.Uri.joinPath(dist, page.script));
  const codicons = webview.asWebviewUri(vscode.Uri.joinPath(dist, 'codicon.css'));
  const csp = [
    `default-src 'none'`,
    `script-src 'nonce-${nonce}'`,
    // Lit and vscode-elements use constructable stylesheets (adoptedStyleSheets), which CSP allows.
    `style-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `img-src ${webview.cspSource} data:`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="${vscode.env.language}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${codicons}" id="vscode-codicon-stylesheet">
<title>${escapeHtml(title)}</title>
</head>
<body>
<${page.element}></${page.element}>
<script type="module" nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
