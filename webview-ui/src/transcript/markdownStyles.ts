import { css } from 'lit';

/**
 * Rendered Markdown, highlighted code and edit diffs, from VS Code theme variables only
 * (constructable stylesheets: no inline style, nothing the CSP has to allow). Code colours
 * use the debug views' token colours, which every theme sets to its own string, number,
 * keyword… colours, with the terminal's ANSI colours as fallbacks.
 */
export const markdownStyles = css`
  .text.md {
    margin: 4px 0;
    overflow-wrap: anywhere;
    line-height: 1.45;
  }
  .md > :first-child {
    margin-top: 0;
  }
  .md > :last-child {
    margin-bottom: 0;
  }
  .md p,
  .md ul,
  .md ol,
  .md blockquote,
  .md pre,
  .md .md-table {
    margin: 0 0 6px;
  }
  .md h1,
  .md h2,
  .md h3,
  .md h4,
  .md h5,
  .md h6 {
    margin: 8px 0 4px;
    font-weight: 600;
    line-height: 1.25;
  }
  .md h1 {
    font-size: 1.3em;
  }
  .md h2 {
    font-size: 1.2em;
  }
  .md h3 {
    font-size: 1.1em;
  }
  .md h4,
  .md h5,
  .md h6 {
    font-size: 1em;
  }
  .md ul,
  .md ol {
    padding-left: 1.6em;
  }
  .md blockquote {
    padding: 0 8px;
    border-left: 3px solid var(--vscode-textBlockQuote-border);
    background: var(--vscode-textBlockQuote-background);
  }
  .md hr {
    border: none;
    border-top: 1px solid var(--vscode-panel-border);
  }
  .md code {
    font-family: var(--vscode-editor-font-family);
    font-size: 0.95em;
    color: var(--vscode-textPreformat-foreground);
    background: var(--vscode-textPreformat-background, var(--vscode-textCodeBlock-background));
    border-radius: 3px;
    padding: 0 3px;
  }
  .md pre.md-code,
  pre.diff-body {
    font-family: var(--vscode-editor-font-family);
    font-size: var(--vscode-editor-font-size);
    background: var(--vscode-textCodeBlock-background);
    padding: 4px 6px;
    overflow-x: auto;
    white-space: pre;
    text-align: left;
  }
  .md pre.md-code code {
    color: var(--vscode-editor-foreground);
    background: none;
    padding: 0;
    font-size: inherit;
  }
  .md .md-table {
    overflow-x: auto;
  }
  .md table {
    border-collapse: collapse;
  }
  .md th,
  .md td {
    border: 1px solid var(--vscode-panel-border);
    padding: 2px 6px;
  }
  .md .align-left {
    text-align: left;
  }
  .md .align-center {
    text-align: center;
  }
  .md .align-right {
    text-align: right;
  }
  .md .md-image {
    font-style: italic;
    color: var(--vscode-descriptionForeground);
  }
  .md .more-hint {
    color: var(--vscode-descriptionForeground);
  }
  button.md-link {
    display: inline;
    font: inherit;
    color: var(--vscode-textLink-foreground);
    background: none;
    border: none;
    padding: 0;
    margin: 0;
    cursor: pointer;
    text-align: inherit;
    overflow-wrap: anywhere;
    white-space: normal;
  }
  button.md-link:hover,
  button.md-link:focus-visible {
    color: var(--vscode-textLink-activeForeground);
    text-decoration: underline;
  }
  button.raw-toggle {
    flex: 0 0 auto;
    font-size: 0.85em;
  }
  button.raw-toggle[aria-pressed='true'] {
    text-decoration: underline;
    font-weight: 600;
  }

  /* highlight.js scopes (class names only) */
  .hljs-keyword,
  .hljs-selector-tag,
  .hljs-literal,
  .hljs-doctag,
  .hljs-meta .hljs-keyword {
    color: var(--vscode-debugTokenExpression-boolean, var(--vscode-terminal-ansiBlue));
  }
  .hljs-built_in,
  .hljs-name,
  .hljs-tag,
  .hljs-selector-pseudo {
    color: var(--vscode-debugTokenExpression-name, var(--vscode-terminal-ansiMagenta));
  }
  .hljs-string,
  .hljs-regexp,
  .hljs-char.escape_,
  .hljs-template-tag,
  .hljs-link,
  .hljs-symbol {
    color: var(--vscode-debugTokenExpression-string, var(--vscode-terminal-ansiRed));
  }
  .hljs-number,
  .hljs-bullet {
    color: var(--vscode-debugTokenExpression-number, var(--vscode-terminal-ansiGreen));
  }
  .hljs-title,
  .hljs-section,
  .hljs-title.function_ {
    color: var(--vscode-symbolIcon-functionForeground, var(--vscode-terminal-ansiYellow));
  }
  .hljs-type,
  .hljs-title.class_,
  .hljs-class .hljs-title {
    color: var(--vscode-symbolIcon-classForeground, var(--vscode-terminal-ansiCyan));
  }
  .hljs-attr,
  .hljs-attribute,
  .hljs-variable,
  .hljs-template-variable,
  .hljs-property,
  .hljs-params,
  .hljs-selector-class,
  .hljs-selector-id {
    color: var(--vscode-symbolIcon-variableForeground, var(--vscode-terminal-ansiCyan));
  }
  .hljs-comment,
  .hljs-quote,
  .hljs-meta {
    color: var(--vscode-descriptionForeground);
    font-style: italic;
  }
  .hljs-addition {
    color: var(--vscode-gitDecoration-addedResourceForeground);
  }
  .hljs-deletion {
    color: var(--vscode-gitDecoration-deletedResourceForeground);
  }
  .hljs-emphasis {
    font-style: italic;
  }
  .hljs-strong {
    font-weight: 600;
  }

  /* Edit diffs */
  .diff {
    margin: 4px 0;
  }
  .diff-file {
    display: flex;
    align-items: center;
    gap: 8px;
    min-width: 0;
    margin-top: 4px;
  }
  .diff-file .meta {
    flex: 0 1 auto;
  }
  .diff-path {
    min-width: 0;
    overflow: hidden;
    text-overflow: ellipsis;
    white-space: nowrap;
    font-family: var(--vscode-editor-font-family);
  }
  .diff-counts {
    flex: 0 0 auto;
    white-space: nowrap;
    font-family: var(--vscode-editor-font-family);
    font-size: 0.9em;
  }
  .diff-counts .added,
  .dl.add {
    color: var(--vscode-gitDecoration-addedResourceForeground);
  }
  .diff-counts .removed,
  .dl.del {
    color: var(--vscode-gitDecoration-deletedResourceForeground);
  }
  pre.diff-body {
    margin: 2px 0 0;
  }
  .dl {
    display: block;
    min-height: 1.2em;
  }
  .dl.add {
    background: var(--vscode-diffEditor-insertedLineBackground, transparent);
  }
  .dl.del {
    background: var(--vscode-diffEditor-removedLineBackground, transparent);
  }
  .dl.hunk {
    color: var(--vscode-descriptionForeground);
  }
`;
