import { LitElement, css, html, nothing } from 'lit';
import type { HostMessage, SessionView } from '../../src/shared/protocol.ts';
import { host } from './vscodeApi.ts';

/**
 * The session panel. Every value from a backend is untrusted and rendered through
 * Lit's text bindings, which escape it: no innerHTML, no unsafeHTML.
 */
export class SessionDetails extends LitElement {
  static override properties = {
    view: { state: true },
    failure: { state: true },
  };

  declare view: SessionView | undefined;
  declare failure: string | undefined;

  static override styles = css`
    :host {
      display: block;
      padding: 12px 20px;
      color: var(--vscode-foreground);
      font-family: var(--vscode-font-family);
      font-size: var(--vscode-font-size);
    }
    h1 {
      font-size: 1.4em;
      font-weight: 600;
      margin: 0 0 4px;
      overflow-wrap: anywhere;
    }
    .subtitle {
      color: var(--vscode-descriptionForeground);
      margin-bottom: 16px;
    }
    dl {
      display: grid;
      grid-template-columns: max-content 1fr;
      gap: 6px 16px;
      margin: 0;
    }
    dt {
      color: var(--vscode-descriptionForeground);
    }
    dd {
      margin: 0;
      overflow-wrap: anywhere;
    }
    .error {
      color: var(--vscode-errorForeground);
    }
  `;

  override connectedCallback(): void {
    super.connectedCallback();
    host.onMessage((message: HostMessage) => {
      if (message.type === 'session') {
        this.view = message.view;
        this.failure = undefined;
        // Lets the panel come back after a window reload (WebviewPanelSerializer).
        host.saveState({
          connectionId: message.view.session.connectionId,
          sessionId: message.view.session.id,
        });
      } else if (message.type === 'failed') {
        this.failure = message.message;
      }
    });
    host.post({ type: 'ready' });
  }

  override render() {
    if (this.failure) {
      return html`<p class="error" role="alert">${this.failure}</p>
        <vscode-button @click=${() => host.post({ type: 'refresh' })}>Retry</vscode-button>`;
    }
    if (!this.view) return html`<vscode-progress-ring aria-label="Loading"></vscode-progress-ring>`;
    const { session, connectionLabel, cost } = this.view;
    const rows: [string, string | undefined][] = [
      [
        'Status',
        `${session.status.status}${session.status.outcome ? ` (${session.status.outcome})` : ''}`,
      ],
      ['Raw status', session.status.raw || undefined],
      ['Harness', session.harness],
      ['Model', session.model],
      ['Repository', session.repository],
      ['Branch', session.branch],
      ['User', session.user],
      ['Started', session.startedAt],
      ['Last activity', session.lastActivityAt],
      ['Ended', session.endedAt],
      ['Input tokens', session.inputTokens?.toLocaleString()],
      ['Output tokens', session.outputTokens?.toLocaleString()],
      ['Cache read tokens', session.cacheReadTokens?.toLocaleString()],
      ['Cache write tokens', session.cacheWriteTokens?.toLocaleString()],
      ['Estimated cost', cost],
      ['Session ID', session.id],
    ];
    return html`
      <h1 id="title">${session.label}</h1>
      <div class="subtitle">
        <vscode-badge>${session.status.status}</vscode-badge>
        ${connectionLabel}
      </div>
      <dl aria-labelledby="title">
        ${rows.map(([name, value]) =>
          value === undefined
            ? nothing
            : html`<dt>${name}</dt>
                <dd>${value}</dd>`,
        )}
      </dl>
    `;
  }
}

customElements.define('session-details', SessionDetails);

declare global {
  interface HTMLElementTagNameMap {
    'session-details': SessionDetails;
  }
}
