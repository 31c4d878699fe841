import { css } from 'lit';

/**
 * The transcript's look, from VS Code theme variables only, so light, dark and
 * high-contrast themes apply as they are (contrastBorder is set only in high contrast).
 */
export const transcriptStyles = css`
  /*
   * The list scrolls inside the element, so it needs a definite height. Without one from
   * the page (a style on transcript-view wins over this), it fills the panel below a
   * header of about 160px.
   */
  :host {
    display: flex;
    flex-direction: column;
    height: calc(100vh - 160px);
    min-height: 240px;
    color: var(--vscode-foreground);
    font-family: var(--vscode-font-family);
    font-size: var(--vscode-font-size);
  }
  .toolbar {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: 6px;
    padding: 6px 0;
    border-bottom: 1px solid var(--vscode-panel-border);
  }
  .search {
    display: flex;
    align-items: center;
    gap: 4px;
  }
  input,
  select {
    font: inherit;
    color: var(--vscode-input-foreground);
    background: var(--vscode-input-background);
    border: 1px solid var(--vscode-input-border, var(--vscode-contrastBorder, transparent));
    padding: 3px 6px;
    border-radius: 2px;
  }
  select {
    color: var(--vscode-dropdown-foreground);
    background: var(--vscode-dropdown-background);
    border-color: var(--vscode-dropdown-border, transparent);
    max-width: 28em;
  }
  input:focus,
  select:focus,
  button:focus-visible,
  .entry:focus {
    outline: 1px solid var(--vscode-focusBorder);
    outline-offset: -1px;
  }
  .search-status,
  .muted,
  .meta,
  .time,
  .usage,
  .availability {
    color: var(--vscode-descriptionForeground);
  }
  .search-status {
    min-width: 6em;
  }
  .spacer {
    flex: 1;
  }
  .feed {
    flex: 1;
    min-height: 0;
    overflow: auto;
  }
  .message {
    padding: 16px 4px;
  }
  .entry {
    box-sizing: border-box;
    width: 100%;
    padding: 6px 8px 6px 10px;
    border-bottom: 1px solid var(--vscode-panel-border);
    border-left: 3px solid transparent;
  }
  .entry.placeholder {
    min-height: 48px;
    color: var(--vscode-descriptionForeground);
  }
  .entry.kind-user {
    background: var(--vscode-editor-inactiveSelectionBackground);
  }
  .entry.failed {
    border-left-color: var(--vscode-errorForeground);
  }
  .entry.failed .head .icon,
  .entry.failed .status,
  .error {
    color: var(--vscode-errorForeground);
  }
  .entry.pending {
    border-left-color: var(--vscode-editorWarning-foreground);
  }
  .entry.pending .status,
  .entry.warning .head .icon {
    color: var(--vscode-editorWarning-foreground);
  }
  .entry.muted {
    color: var(--vscode-descriptionForeground);
  }
  .entry.sidechain {
    padding-left: 24px;
  }
  .entry.kind-compaction {
    border-top: 2px dashed var(--vscode-panel-border);
    text-align: center;
  }
  .entry.revealed {
    border-left-color: var(--vscode-focusBorder);
    outline: 1px dashed var(--vscode-contrastActiveBorder, transparent);
  }
  .head {
    display: flex;
    align-items: center;
    gap: 6px;
    min-width: 0;
    overflow: hidden;
  }
  .kind-compaction .head {
    justify-content: center;
  }
  /*
   * Untrusted labels can be long and unbroken: every part of a header clips with an
   * ellipsis. The label keeps its width first; summaries and details take what is left.
   */
  .who,
  .summary,
  .meta {
    min-width: 0;
    overflow: hidden;
    text-overflow: ellipsis;
    white-space: nowrap;
  }
  .who {
    flex: 0 1 auto;
    font-weight: 600;
  }
  .summary,
  .meta {
    flex: 1 1 0;
  }
  .time,
  .badge,
  vscode-icon {
    flex: 0 0 auto;
  }
  .time {
    margin-left: auto;
    white-space: nowrap;
    font-size: 0.9em;
  }
  .badge,
  .chip {
    border: 1px solid var(--vscode-badge-background, var(--vscode-contrastBorder));
    border-radius: 8px;
    padding: 0 6px;
    font-size: 0.85em;
    white-space: nowrap;
  }
  .chip {
    max-width: 100%;
    overflow: hidden;
    text-overflow: ellipsis;
  }
  .attachments,
  .files {
    display: flex;
    flex-wrap: wrap;
    gap: 4px 10px;
    margin-top: 2px;
  }
  pre.text {
    margin: 4px 0;
    white-space: pre-wrap;
    overflow-wrap: anywhere;
    font-family: inherit;
    text-align: left;
  }
  pre.code {
    font-family: var(--vscode-editor-font-family);
    font-size: var(--vscode-editor-font-size);
    background: var(--vscode-textCodeBlock-background);
    padding: 4px 6px;
  }
  .section {
    margin-top: 6px;
    font-weight: 600;
  }
  .usage {
    font-size: 0.9em;
    margin-top: 2px;
  }
  mark {
    color: inherit;
    background: var(--vscode-editor-findMatchHighlightBackground);
    outline: 1px solid var(--vscode-editor-findMatchHighlightBorder, transparent);
  }
  button.link,
  button.expander {
    font: inherit;
    background: none;
    border: none;
    padding: 0;
    cursor: pointer;
    text-align: left;
  }
  button.link {
    color: var(--vscode-textLink-foreground);
    overflow-wrap: anywhere;
  }
  button.link:hover {
    color: var(--vscode-textLink-activeForeground);
    text-decoration: underline;
  }
  button.expander {
    color: inherit;
    display: flex;
    align-items: center;
    gap: 6px;
    flex: 0 1 auto;
    min-width: 0;
    overflow: hidden;
  }
`;
