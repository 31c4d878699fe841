import { LitElement, css, html, nothing } from 'lit';
import type {
  ChangeRowView,
  ChangesView as ChangesViewModel,
} from '../../../src/shared/changesView.ts';
import * as l10n from '@vscode/l10n';
import { L10nController, formatNumber } from '../shared/l10n.ts';
import { host } from '../vscodeApi.ts';

/**
 * `<changes-view>`: the files the session changed, in order, with +/- counts. A click on
 * a file asks the host to open VS Code's diff editor; the toolbar opens every change in
 * the multi-file diff editor or compares the agent's last versions with the workspace.
 * Paths are untrusted text: bound as text only.
 */
export class ChangesView extends LitElement {
  static override properties = {
    view: { attribute: false },
  };

  declare view: ChangesViewModel | undefined;

  constructor() {
    super();
    new L10nController(this);
  }

  static override styles = css`
    :host {
      display: block;
      color: var(--vscode-foreground);
      font-family: var(--vscode-font-family);
      font-size: var(--vscode-font-size);
    }
    .toolbar {
      display: flex;
      flex-wrap: wrap;
      gap: 8px;
      margin: 4px 0 12px;
    }
    .summary,
    .muted {
      color: var(--vscode-descriptionForeground);
    }
    .summary {
      margin: 0 0 8px;
    }
    .error {
      color: var(--vscode-errorForeground);
    }
    ul {
      list-style: none;
      margin: 0;
      padding: 0;
    }
    li {
      display: flex;
      align-items: center;
      gap: 8px;
      border-top: 1px solid var(--vscode-panel-border);
    }
    button.file {
      flex: 1;
      min-width: 0;
      display: flex;
      align-items: baseline;
      gap: 8px;
      padding: 6px 4px;
      background: none;
      border: none;
      color: inherit;
      font: inherit;
      text-align: start;
      cursor: pointer;
    }
    button.file:hover {
      background: var(--vscode-list-hoverBackground);
    }
    button.file:focus-visible,
    button.compare:focus-visible {
      outline: 1px solid var(--vscode-focusBorder);
      outline-offset: -1px;
    }
    .kind {
      flex: none;
      min-width: 5.5em;
      font-size: 0.85em;
      text-transform: uppercase;
      color: var(--vscode-descriptionForeground);
    }
    .kind.created {
      color: var(--vscode-gitDecoration-addedResourceForeground);
    }
    .kind.deleted {
      color: var(--vscode-gitDecoration-deletedResourceForeground);
    }
    .kind.edited,
    .kind.written {
      color: var(--vscode-gitDecoration-modifiedResourceForeground);
    }
    .path {
      overflow-wrap: anywhere;
    }
    .counts {
      flex: none;
      margin-inline-start: auto;
      font-variant-numeric: tabular-nums;
    }
    .added {
      color: var(--vscode-gitDecoration-addedResourceForeground);
    }
    .removed {
      color: var(--vscode-gitDecoration-deletedResourceForeground);
    }
    .notes {
      display: block;
      font-size: 0.9em;
    }
    button.compare {
      flex: none;
      background: none;
      border: none;
      color: var(--vscode-textLink-foreground);
      cursor: pointer;
      font: inherit;
      padding: 4px;
    }
  `;

  override render() {
    const view = this.view;
    if (!view || view.state === 'loading') {
      return html`<p role="status">
        <vscode-progress-ring aria-hidden="true"></vscode-progress-ring>
        ${l10n.t("Reading the session's changes…")}
      </p>`;
    }
    if (view.state === 'failed') {
      return html`<p class="error" role="alert">${view.message ?? ''}</p>
        <vscode-button @click=${() => host.post({ type: 'loadChanges' })}
          >${l10n.t('Retry')}</vscode-button
        >`;
    }
    if (view.state === 'none') return html`<p class="muted">${view.message ?? ''}</p>`;
    const added = view.files.reduce((n, f) => n + f.added, 0);
    const removed = view.files.reduce((n, f) => n + f.removed, 0);
    const notes = [
      view.failedCalls === 1
        ? l10n.t('1 failed tool call changed nothing.')
        : view.failedCalls > 1
          ? l10n.t('{0} failed tool calls changed nothing.', formatNumber(view.failedCalls))
          : '',
      view.missingSubagents > 0
        ? l10n.t(
            '{0} subagent transcripts could not be read: their changes are missing.',
            formatNumber(view.missingSubagents),
          )
        : '',
    ].filter(Boolean);
    return html`
      <div class="toolbar" role="toolbar" aria-label=${l10n.t('Changes')}>
        <vscode-button
          class="open-all"
          icon="diff-multiple"
          ?disabled=${view.files.length === 0}
          @click=${() => host.post({ type: 'openAllChanges' })}
          >${l10n.t('Open All Changes')}</vscode-button
        >
        <vscode-button
          class="compare-all"
          secondary
          ?disabled=${view.files.length === 0}
          @click=${() => host.post({ type: 'compareWithWorkspace' })}
          >${l10n.t('Compare with Workspace')}</vscode-button
        >
        <vscode-button
          class="reload"
          secondary
          icon="refresh"
          @click=${() => host.post({ type: 'loadChanges' })}
          >${l10n.t('Refresh')}</vscode-button
        >
      </div>
      <p class="summary">
        ${
          view.files.length === 0
            ? l10n.t('This session changed no files.')
            : l10n.t(
                '{0} files changed, {1} lines added, {2} removed (as the tool calls describe them).',
                formatNumber(view.files.length),
                formatNumber(added),
                formatNumber(removed),
              )
        }
        ${notes.map((note) => html`<span class="notes">${note}</span>`)}
      </p>
      <ul aria-label=${l10n.t('Changed files')}>
        ${view.files.map((file) => this.renderFile(file))}
      </ul>
    `;
  }

  private renderFile(file: ChangeRowView) {
    const notes = [
      file.movedFrom ? l10n.t('moved from {0}', file.movedFrom) : '',
      file.beforeKnown ? '' : l10n.t('before unknown'),
      file.bySubagent ? l10n.t('by a subagent') : '',
      file.failedCalls === 1
        ? l10n.t('1 failed call skipped')
        : file.failedCalls > 1
          ? l10n.t('{0} failed calls skipped', formatNumber(file.failedCalls))
          : '',
    ].filter(Boolean);
    return html`<li data-index=${file.index}>
      <button
        class="file"
        title=${file.path}
        @click=${() => host.post({ type: 'openChange', index: file.index })}
      >
        <span class="kind ${file.kind}">${kindLabel(file.kind)}</span>
        <span class="path"
          >${file.label}
          ${
            notes.length ? html`<span class="notes muted">${notes.join(' · ')}</span>` : nothing
          }</span
        >
        <span
          class="counts"
          aria-label=${l10n.t('{0} lines added, {1} removed', file.added, file.removed)}
          ><span class="added">+${formatNumber(file.added)}</span>
          <span class="removed">−${formatNumber(file.removed)}</span></span
        >
      </button>
      ${
        file.kind === 'deleted'
          ? nothing
          : html`<button
              class="compare"
              title=${l10n.t("Compare the agent's last version with the workspace file")}
              aria-label=${l10n.t('Compare {0} with the workspace', file.label)}
              @click=${() => host.post({ type: 'compareWithWorkspace', index: file.index })}
            >
              ${l10n.t('Compare')}
            </button>`
      }
    </li>`;
  }
}

function kindLabel(kind: ChangeRowView['kind']): string {
  switch (kind) {
    case 'created':
      return l10n.t('Created');
    case 'edited':
      return l10n.t('Edited');
    case 'deleted':
      return l10n.t('Deleted');
    case 'written':
      return l10n.t('Written');
  }
}

customElements.define('changes-view', ChangesView);

declare global {
  interface HTMLElementTagNameMap {
    'changes-view': ChangesView;
  }
}
