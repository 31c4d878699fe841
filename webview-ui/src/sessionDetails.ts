import { LitElement, css, html, nothing } from 'lit';
import type { PendingTask } from '../../src/shared/sessionSummary.ts';
import type {
  ChangesView,
  CommentsView,
  HostMessage,
  ManualTaskView,
  SessionView,
  TranscriptFileView,
  TranscriptStatus,
  UsageView,
  WebviewMessage,
} from '../../src/shared/protocol.ts';
import * as l10n from '@vscode/l10n';
import {
  L10nController,
  formatDateTime,
  formatMinutes,
  formatNumber,
  formatRelative,
} from './shared/l10n.ts';
import { host } from './vscodeApi.ts';

/** The header's Export, Copy and Archive buttons. */
type SessionCommand = Extract<WebviewMessage, { type: 'sessionCommand' }>['command'];

/**
 * The session panel. Every value from a backend is untrusted and rendered through
 * Lit's text bindings, which escape it: it never becomes markup (no innerHTML).
 */
export class SessionDetails extends LitElement {
  static override properties = {
    view: { state: true },
    failure: { state: true },
    tasks: { state: true },
    transcript: { state: true },
    comments: { state: true },
    usage: { state: true },
    changes: { state: true },
    tab: { state: true },
  };

  declare transcript:
    { status: TranscriptStatus; files: TranscriptFileView[]; fileKey: string } | undefined;
  declare comments: CommentsView | undefined;
  declare usage: UsageView | undefined;
  declare changes: ChangesView | undefined;
  /** Selected tab: 0 details, 1 transcript, 2 comments, 3 usage, 4 changes. */
  declare tab: number;

  declare view: SessionView | undefined;
  declare failure: string | undefined;
  /** Manual tasks the user opened: detail, or the error that came back. */
  declare tasks: Map<string, ManualTaskView | { error: string }>;

  constructor() {
    super();
    new L10nController(this);
    this.tasks = new Map();
    this.tab = 0;
  }

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
    .warning {
      color: var(--vscode-editorWarning-foreground);
    }
    .muted {
      color: var(--vscode-descriptionForeground);
      font-size: 0.9em;
    }
    .actions {
      display: flex;
      gap: 8px;
      margin: 8px 0 16px;
    }
    h2 {
      font-size: 1.1em;
      margin: 20px 0 8px;
    }
    h3 {
      font-size: 1em;
      margin: 8px 0 4px;
    }
    ul.tasks {
      list-style: none;
      padding: 0;
    }
    ul.tasks > li {
      border-top: 1px solid var(--vscode-panel-border);
      padding: 8px 0;
    }
    pre.body {
      white-space: pre-wrap;
      overflow-wrap: anywhere;
      background: var(--vscode-textCodeBlock-background);
      padding: 8px;
      max-height: 300px;
      overflow: auto;
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
      } else if (message.type === 'manualTask') {
        this.tasks = new Map(this.tasks).set(message.task.id, message.task);
      } else if (message.type === 'manualTaskFailed') {
        this.tasks = new Map(this.tasks).set(message.id, { error: message.message });
      } else if (message.type === 'transcriptStatus') {
        this.transcript = {
          status: message.status,
          files: message.files,
          fileKey: message.fileKey,
        };
      } else if (message.type === 'comments') {
        this.comments = message.view;
      } else if (message.type === 'usage') {
        this.usage = message.view;
      } else if (message.type === 'changes') {
        this.changes = message.view;
      } else if (message.type === 'reveal') {
        this.tab = 1; // a comment's anchor: show the transcript (it scrolls itself)
      }
    });
    host.post({ type: 'ready' });
  }

  override render() {
    if (this.failure) {
      return html`<p class="error" role="alert">${this.failure}</p>
        <vscode-button @click=${() => host.post({ type: 'refresh' })}
          >${l10n.t('Retry')}</vscode-button
        >`;
    }
    if (!this.view)
      return html`<vscode-progress-ring aria-label=${l10n.t('Loading')}></vscode-progress-ring>`;
    const { session, connectionLabel, actions } = this.view;
    return html`
      <h1 id="title">${session.label}</h1>
      <div class="subtitle">
        <vscode-badge>${statusLabel(session.status.status)}</vscode-badge>
        ${connectionLabel}
      </div>
      ${this.renderActions(actions)}
      <vscode-tabs
        .selectedIndex=${this.tab}
        @vsc-tabs-select=${(e: CustomEvent<{ selectedIndex: number }>) => this.selectTab(e.detail.selectedIndex)}
      >
        <vscode-tab-header slot="header">${l10n.t('Details')}</vscode-tab-header>
        <vscode-tab-panel>
          <dl aria-labelledby="title">
            ${detailRows(this.view).map(([name, value]) =>
              value === undefined
                ? nothing
                : html`<dt>${name}</dt>
                    <dd>${value}</dd>`,
            )}
          </dl>
          ${this.renderTasks(session.pendingTasks ?? [], session.waitingUnknown === true)}
        </vscode-tab-panel>
        <vscode-tab-header slot="header">${l10n.t('Transcript')}</vscode-tab-header>
        <vscode-tab-panel>
          <transcript-view
            .status=${this.transcript?.status}
            .files=${this.transcript?.files ?? []}
            .fileKey=${this.transcript?.fileKey ?? 'main'}
          ></transcript-view>
        </vscode-tab-panel>
        <vscode-tab-header slot="header"
          >${
            this.comments?.state === 'ready'
              ? l10n.t('Comments ({0})', formatNumber(this.comments.total))
              : l10n.t('Comments')
          }</vscode-tab-header
        >
        <vscode-tab-panel><comments-view .view=${this.comments}></comments-view></vscode-tab-panel>
        <vscode-tab-header slot="header">${l10n.t('Usage')}</vscode-tab-header>
        <vscode-tab-panel><usage-view .view=${this.usage}></usage-view></vscode-tab-panel>
        <vscode-tab-header slot="header"
          >${
            this.changes?.state === 'ready'
              ? l10n.t('Changes ({0})', formatNumber(this.changes.files.length))
              : l10n.t('Changes')
          }</vscode-tab-header
        >
        <vscode-tab-panel><changes-view .view=${this.changes}></changes-view></vscode-tab-panel>
      </vscode-tabs>
    `;
  }
  /** The Changes tab reads every transcript of the session: only once it is shown. */
  private selectTab(index: number): void {
    this.tab = index;
    if (index === 4 && this.changes === undefined) {
      this.changes = { state: 'loading', files: [], failedCalls: 0, missingSubagents: 0 };
      host.post({ type: 'loadChanges' });
    }
  }

  private renderActions(actions: SessionView['actions']) {
    const run = (command: SessionCommand) => host.post({ type: 'sessionCommand', command });
    return html`<div class="actions" role="toolbar" aria-label=${l10n.t('Session actions')}>
      ${
        actions.complete
          ? html`<vscode-button @click=${() => host.post({ type: 'complete' })}
                >${l10n.t('Complete…')}</vscode-button
              >
              <vscode-button secondary @click=${() => host.post({ type: 'cancel' })}
                >${l10n.t('Cancel Session…')}</vscode-button
              >`
          : nothing
      }
      ${
        actions.interrupt
          ? html`<vscode-button secondary @click=${() => host.post({ type: 'interrupt' })}
              >${l10n.t('Interrupt')}</vscode-button
            >`
          : nothing
      }
      ${
        actions.resume
          ? html`<vscode-button secondary @click=${() => host.post({ type: 'resume' })}
              >${l10n.t('Resume in Terminal')}</vscode-button
            >`
          : nothing
      }
      <vscode-button secondary icon="export" @click=${() => run('export')}
        >${l10n.t('Export…')}</vscode-button
      >
      <vscode-button secondary icon="copy" @click=${() => run('copyId')}
        >${l10n.t('Copy ID')}</vscode-button
      >
      ${
        actions.resume
          ? html`<vscode-button secondary @click=${() => run('copyResume')}
              >${l10n.t('Copy Resume Command')}</vscode-button
            >`
          : nothing
      }
      ${
        actions.link
          ? html`<vscode-button secondary @click=${() => run('copyLink')}
              >${l10n.t('Copy Link')}</vscode-button
            >`
          : nothing
      }
      ${
        actions.archived
          ? html`<vscode-button secondary icon="discard" @click=${() => run('unarchive')}
              >${l10n.t('Unarchive')}</vscode-button
            >`
          : html`<vscode-button secondary icon="archive" @click=${() => run('archive')}
              >${l10n.t('Archive')}</vscode-button
            >`
      }
    </div>`;
  }

  private renderTasks(tasks: PendingTask[], unknown: boolean) {
    if (unknown) {
      return html`<h2>${l10n.t('Manual tasks')}</h2>
        <p class="warning">
          ${l10n.t("The backend could not look up this session's manual tasks; some may be waiting.")}
        </p>`;
    }
    if (tasks.length === 0) return nothing;
    return html`<h2>${l10n.t('Manual tasks waiting on you')}</h2>
      <ul class="tasks">
        ${tasks.map((task) => {
          const detail = this.tasks.get(task.id);
          const age =
            task.waitingAgeSeconds !== undefined
              ? ` · ${l10n.t('waiting {0}', formatMinutes(Math.round(task.waitingAgeSeconds / 60)))}`
              : '';
          return html`<li>
            <div class="task-title">
              ${task.title ?? task.id} <span class="muted">${task.viewType ?? ''}${age}</span>
            </div>
            ${
              detail === undefined
                ? html`<vscode-button
                    secondary
                    @click=${() => host.post({ type: 'openManualTask', id: task.id })}
                    >${l10n.t('Open task')}</vscode-button
                  >`
                : 'error' in detail
                  ? html`<p class="error" role="alert">${detail.error}</p>`
                  : renderTask(detail)
            }
          </li>`;
        })}
      </ul>`;
  }
}

/** The derived status in the words of the Sessions view's groups (the same translations). */
function statusLabel(status: string): string {
  switch (status) {
    case 'waiting':
      return l10n.t('Waiting on you');
    case 'active':
      return l10n.t('Active');
    case 'idle':
      return l10n.t('Idle');
    case 'error':
      return l10n.t('Error');
    case 'finished':
      return l10n.t('Finished');
    case 'stale':
      return l10n.t('Stale');
    case 'unknown':
      return l10n.t('Unknown');
    default:
      return status;
  }
}

function outcomeLabel(outcome: string): string {
  switch (outcome) {
    case 'completed':
      return l10n.t('completed');
    case 'canceled':
      return l10n.t('canceled');
    case 'interrupted':
      return l10n.t('interrupted');
    default:
      return outcome;
  }
}

/** A time as the language writes it, with how long ago: "2 Dec 2026, 10:04 (3 hours ago)". */
function when(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const ago = formatRelative(value);
  return ago ? `${formatDateTime(value)} (${ago})` : value;
}

/** A manual task's content. Workflow-authored, so every field is bound as text. */
function renderTask(task: ManualTaskView) {
  const variables = Object.entries(task.variables ?? {});
  return html`<div class="task" aria-label=${l10n.t('Manual task {0}', task.header ?? task.id)}>
    ${task.header ? html`<h3>${task.header}</h3>` : nothing}
    ${task.message ? html`<p>${task.message}</p>` : nothing}
    ${task.body ? html`<pre class="body">${task.body}</pre>` : nothing}
    ${
      variables.length
        ? html`<dl>
            ${variables.map(
              ([k, v]) =>
                html`<dt>${k}</dt>
                  <dd>${typeof v === 'string' ? v : JSON.stringify(v)}</dd>`,
            )}
          </dl>`
        : nothing
    }
    ${
      task.completionSupported
        ? html`<div class="actions">
            <vscode-button
              @click=${() => host.post({ type: 'finishManualTask', id: task.id, finish: 'success' })}
              >${task.successLabel || l10n.t('Success')}…</vscode-button
            >
            ${
              task.failureLabel
                ? html`<vscode-button
                    secondary
                    @click=${() => host.post({ type: 'finishManualTask', id: task.id, finish: 'failure' })}
                    >${task.failureLabel}…</vscode-button
                  >`
                : nothing
            }
          </div>`
        : html`<p class="muted">
            ${l10n.t("This task's form cannot be completed from VS Code; open it in the platform.")}
          </p>`
    }
  </div>`;
}

/** The Details tab's rows: name and value, undefined where the session does not say. */
function detailRows({ session, cost }: SessionView): [string, string | undefined][] {
  const count = (n: number | undefined) => (n === undefined ? undefined : formatNumber(n));
  return [
    [
      l10n.t('Status'),
      `${statusLabel(session.status.status)}${session.status.outcome ? ` (${outcomeLabel(session.status.outcome)})` : ''}`,
    ],
    [l10n.t('Raw status'), session.status.raw || undefined],
    [l10n.t('Harness'), session.harness],
    [l10n.t('Model'), session.model],
    [l10n.t('Repository'), session.repository],
    [l10n.t('Branch'), session.branch],
    [l10n.t('User'), session.user],
    [l10n.t('Started'), when(session.startedAt)],
    [l10n.t('Last activity'), when(session.lastActivityAt)],
    [l10n.t('Ended'), when(session.endedAt)],
    [l10n.t('Input tokens'), count(session.inputTokens)],
    [l10n.t('Output tokens'), count(session.outputTokens)],
    [l10n.t('Cache read tokens'), count(session.cacheReadTokens)],
    [l10n.t('Cache write tokens'), count(session.cacheWriteTokens)],
    [l10n.t('Estimated cost'), cost],
    [
      l10n.t('Context window'),
      session.context
        ? l10n.t(
            '{0}% of {1} tokens',
            Math.round((100 * session.context.used) / session.context.window),
            formatNumber(session.context.window),
          )
        : undefined,
    ],
    ...(session.details ?? []),
    [l10n.t('Session ID'), session.id],
  ];
}

customElements.define('session-details', SessionDetails);

declare global {
  interface HTMLElementTagNameMap {
    'session-details': SessionDetails;
  }
}
