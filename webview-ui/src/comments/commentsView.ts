import '@vscode-elements/elements/dist/vscode-button/index.js';
import { LitElement, css, html, nothing } from 'lit';
import type {
  CommentFilter,
  CommentReplyView,
  CommentView,
  CommentsView as CommentsViewModel,
} from '../../../src/shared/protocol.ts';
import * as l10n from '@vscode/l10n';
import { L10nController, formatDateTime, formatNumber } from '../shared/l10n.ts';
import { host } from '../vscodeApi.ts';

const FILTERS: { filter: CommentFilter; label: () => string }[] = [
  { filter: 'OPEN', label: () => l10n.t('Open') },
  { filter: 'RESOLVED', label: () => l10n.t('Resolved') },
  { filter: 'ALL', label: () => l10n.t('All') },
];

/** A date in VS Code's display language; a string that is not a date stays as written. */
const formatDate = formatDateTime;

/**
 * `<comments-view>`: the session's trace comment threads. The app sets `view` from
 * the host's `comments` message; the element posts loadComments (filter, load more)
 * and revealComment (a thread clicked; the host answers the transcript with a reveal).
 * Bodies, names and quoted anchors are untrusted and bound as text.
 */
export class CommentsView extends LitElement {
  static override properties = {
    view: { attribute: false },
    waitingForMore: { state: true },
  };

  declare view: CommentsViewModel | undefined;
  /** "Load more" was clicked and the next page has not arrived: one request per click. */
  declare waitingForMore: boolean;

  constructor() {
    super();
    new L10nController(this);
    this.waitingForMore = false;
  }

  override willUpdate(changed: Map<PropertyKey, unknown>): void {
    if (changed.has('view')) this.waitingForMore = false;
  }

  static override styles = css`
    :host {
      display: block;
      color: var(--vscode-foreground);
      font-family: var(--vscode-font-family);
      font-size: var(--vscode-font-size);
      overflow-wrap: anywhere;
    }
    .filters {
      display: flex;
      gap: 4px;
      align-items: center;
      padding: 6px 0;
    }
    .filters button {
      font: inherit;
      color: var(--vscode-foreground);
      background: transparent;
      border: 1px solid var(--vscode-button-border, var(--vscode-panel-border));
      padding: 2px 10px;
      border-radius: 2px;
      cursor: pointer;
    }
    .filters button[aria-pressed='true'] {
      color: var(--vscode-button-foreground);
      background: var(--vscode-button-background);
    }
    .count,
    .muted,
    .meta {
      color: var(--vscode-descriptionForeground);
    }
    .count {
      margin-left: auto;
    }
    ul {
      list-style: none;
      margin: 0;
      padding: 0;
    }
    li.thread {
      border-top: 1px solid var(--vscode-panel-border);
      padding: 6px 0;
    }
    li.thread {
      cursor: pointer;
    }
    li.thread:hover {
      background: var(--vscode-list-hoverBackground);
    }
    button.show {
      font: inherit;
      color: var(--vscode-textLink-foreground);
      background: none;
      border: none;
      padding: 0;
      margin-left: auto;
      cursor: pointer;
    }
    button:focus-visible {
      outline: 1px solid var(--vscode-focusBorder);
    }
    .quote {
      margin: 0 0 4px;
      padding: 2px 8px;
      border-left: 3px solid var(--vscode-textBlockQuote-border);
      background: var(--vscode-textBlockQuote-background);
      white-space: pre-wrap;
      overflow-wrap: anywhere;
      max-height: 6em;
      overflow: hidden;
    }
    .head {
      display: flex;
      flex-wrap: wrap;
      gap: 6px;
      align-items: baseline;
    }
    .author {
      font-weight: 600;
      overflow-wrap: anywhere;
    }
    .body {
      white-space: pre-wrap;
      overflow-wrap: anywhere;
      margin: 2px 0;
    }
    .badge {
      border-radius: 8px;
      padding: 0 6px;
      font-size: 0.85em;
      border: 1px solid var(--vscode-contrastBorder, transparent);
    }
    .badge.open {
      color: var(--vscode-badge-foreground);
      background: var(--vscode-badge-background);
    }
    .badge.resolved {
      color: var(--vscode-descriptionForeground);
      border-color: var(--vscode-descriptionForeground);
    }
    ul.replies {
      margin-left: 20px;
      border-left: 1px solid var(--vscode-panel-border);
      padding-left: 8px;
    }
    .error {
      color: var(--vscode-errorForeground);
    }
    .more {
      margin: 8px 0;
    }
  `;

  private load(filter: CommentFilter, more: boolean): void {
    if (more) this.waitingForMore = true;
    host.post({ type: 'loadComments', filter, more });
  }

  override render() {
    const view = this.view;
    const filter = view?.filter ?? 'OPEN';
    return html`<div class="filters" role="group" aria-label=${l10n.t('Show comments')}>
        ${FILTERS.map(
          (f) =>
            html`<button
              class=${`filter filter-${f.filter.toLowerCase()}`}
              aria-pressed=${f.filter === filter ? 'true' : 'false'}
              @click=${() => this.load(f.filter, false)}
            >
              ${f.label()}
            </button>`,
        )}
        ${
          view?.state === 'ready'
            ? html`<span class="count"
                >${l10n.t(
                  '{0} of {1} threads',
                  formatNumber(view.threads.length),
                  formatNumber(view.total),
                )}</span
              >`
            : nothing
        }
      </div>
      ${this.renderState(view, filter)}`;
  }

  private renderState(view: CommentsViewModel | undefined, filter: CommentFilter) {
    if (!view || view.state === 'loading') {
      return html`<p class="muted" role="status">${l10n.t('Loading comments…')}</p>`;
    }
    if (view.state === 'unsupported') {
      return html`<p class="muted">${view.message ?? l10n.t('This backend has no comments.')}</p>`;
    }
    if (view.state === 'failed') {
      return html`<p class="error" role="alert">
          ${view.message ?? l10n.t('Comments failed to load.')}
        </p>
        <vscode-button secondary @click=${() => this.load(filter, false)}
          >${l10n.t('Retry')}</vscode-button
        >`;
    }
    return html`${
      view.threads.length === 0
        ? html`<p class="muted">${l10n.t('No comments.')}</p>`
        : html`<ul class="threads" aria-label=${l10n.t('Comment threads')}>
            ${view.threads.map((thread) => this.renderThread(thread))}
          </ul>`
    }
    ${
      view.hasMore
        ? html`<vscode-button
            class="more"
            secondary
            ?disabled=${this.waitingForMore}
            @click=${() => this.load(filter, true)}
            >${this.waitingForMore ? l10n.t('Loading…') : l10n.t('Load more')}</vscode-button
          >`
        : nothing
    }`;
  }

  /**
   * A thread. The whole item is clickable with the mouse; the "Show in transcript" button
   * inside it is the keyboard and screen-reader way to the same click (it bubbles to the item).
   */
  private renderThread(thread: CommentView) {
    const resolved = thread.status === 'RESOLVED';
    const quote = thread.anchor?.selectedText || thread.anchor?.sourceText;
    return html`<li
      class="thread"
      data-thread=${thread.threadId}
      @click=${() => host.post({ type: 'revealComment', threadId: thread.threadId })}
    >
      ${quote ? html`<div class="quote">${quote}</div>` : nothing}
      <div class="head">
        <span class="author">${thread.authorName ?? l10n.t('Unknown author')}</span>
        <span class="meta">${formatDate(thread.createdAt)}</span>
        <span class=${resolved ? 'badge resolved' : 'badge open'}>${thread.status}</span>
        ${
          resolved && thread.resolvedByName
            ? html`<span class="meta"
                >${l10n.t('resolved by {0}', thread.resolvedByName)}
                ${thread.resolvedAt ? formatDate(thread.resolvedAt) : ''}</span
              >`
            : nothing
        }
        <button class="show">
          ${
            thread.entryIndex === undefined
              ? l10n.t('Show in transcript')
              : l10n.t('Show in transcript (entry {0})', formatNumber(thread.entryIndex + 1))
          }
        </button>
      </div>
      <div class="body">${thread.body}</div>
      ${
        thread.replies.length
          ? html`<ul class="replies" aria-label=${l10n.t('Replies')}>
              ${thread.replies.map((reply) => this.renderReply(reply))}
            </ul>`
          : nothing
      }
    </li>`;
  }

  private renderReply(reply: CommentReplyView) {
    return html`<li class="reply">
      <div class="head">
        <span class="author">${reply.authorName ?? l10n.t('Unknown author')}</span>
        <span class="meta">${formatDate(reply.createdAt)}</span>
      </div>
      <div class="body">${reply.body}</div>
    </li>`;
  }
}

customElements.define('comments-view', CommentsView);

declare global {
  interface HTMLElementTagNameMap {
    'comments-view': CommentsView;
  }
}
