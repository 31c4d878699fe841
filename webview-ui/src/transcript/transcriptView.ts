import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-icon/index.js';
import { flow } from '@lit-labs/virtualizer/layouts/flow.js';
import { virtualize, virtualizerRef } from '@lit-labs/virtualizer/virtualize.js';
import type { VirtualizerHostElement } from '@lit-labs/virtualizer/virtualize.js';
import { LitElement, html, nothing } from 'lit';
import type { TextPart } from '../../../src/shared/transcriptEntries.ts';
import type {
  HostMessage,
  TranscriptEntry,
  TranscriptFileView,
  TranscriptStatus,
} from '../../../src/shared/protocol.ts';
import * as l10n from '@vscode/l10n';
import { L10nController, formatNumber } from '../shared/l10n.ts';
import { host } from '../vscodeApi.ts';
import { onLanguageLoaded } from './codeHighlight.ts';
import { entryLabel, primaryBlock, renderEntry, rowClasses } from './entryRow.ts';
import type { BlockKey, RowContext } from './entryRow.ts';
import { markdownStyles } from './markdownStyles.ts';
import { transcriptStyles } from './transcriptStyles.ts';
import { WINDOW_SIZE, WindowCache } from './windowCache.ts';

/** Windows kept in memory: a few screens' worth around what is visible. */
const MAX_WINDOWS = 16;
/** Entries loaded beyond the virtualizer's range, so a short scroll shows text, not placeholders. */
const OVERSCAN = 10;
/** Full texts kept (each can be megabytes). */
const MAX_FULL_TEXTS = 6;
/** A window asked for this long ago without an answer is asked for again. */
const REQUEST_TIMEOUT_MS = 10_000;
const LAYOUT = flow();

let nextRequestId = 1;

/** What a requestId was for; `generation` drops answers meant for a previous file. */
type Pending =
  | { kind: 'window'; key: number; count: number; generation: number }
  | { kind: 'search'; generation: number }
  | { kind: 'nextError'; generation: number }
  | { kind: 'fullText'; key: string; generation: number };

/**
 * `<transcript-view>`: the session transcript, virtualized. The app sets `status`,
 * `files` and `fileKey` from the host's `transcriptStatus`; the element then talks to
 * the host itself: getEntries for the windows on screen, search, nextError,
 * getFullText, openFile, selectFile, openRaw, retryTranscript; it follows `entries`,
 * `searchResult`, `fullText` and `reveal`. Every transcript value is bound as text.
 */
export class TranscriptView extends LitElement {
  static override properties = {
    status: { attribute: false },
    files: { attribute: false },
    fileKey: { attribute: false },
    searchLabel: { state: true },
    notice: { state: true },
  };

  declare status: TranscriptStatus | undefined;
  declare files: TranscriptFileView[];
  declare fileKey: string;
  /** "k of N" for the current search. */
  declare searchLabel: string;
  /** One-line feedback for Next error. */
  declare notice: string;

  static override styles = [transcriptStyles, markdownStyles];

  private readonly cache = new WindowCache(MAX_WINDOWS);
  private readonly inFlight = new Map<number, number>();
  /** Cached windows answered while the file was shorter: asked for again, whole. */
  private readonly shortWindows = new Set<number>();
  private readonly pending = new Map<number, Pending>();
  private readonly expanded = new Set<string>();
  /** Entries shown as their source text (the Raw toggle). */
  private readonly raw = new Set<number>();
  /** `${index}:${part}` → full text, null while it is on its way; insertion order = LRU. */
  private readonly fullTexts = new Map<string, string | null>();
  private generation = 0;
  private loadedKey: string | undefined;
  /** The status state the last update saw. */
  private shownState: TranscriptStatus['state'] | undefined;
  private count = 0;
  private items: number[] = [];
  private range = { first: 0, last: -1 };
  private firstVisible = 0;
  /** The roving tab stop among rows. */
  private focusIndex = 0;
  /** Where Next error and a repeated search continue from. */
  private current: number | undefined;
  /**
   * The revealed or found entry and the text to highlight in it; `rendered` once the reader
   * switched it back from the source it showed to mark a quote that spans Markdown markup.
   */
  private mark: { index: number; text: string | undefined; rendered?: boolean } | undefined;
  private pendingScroll: number | undefined;
  private search = { query: '', requestId: 0, at: undefined as number | undefined };
  private listening = false;
  private stopLanguages: (() => void) | undefined;

  private readonly rowContext: RowContext = {
    isExpanded: (index, key) => this.expanded.has(`${index}:${key}`),
    toggle: (entry, key) => this.toggle(entry, key),
    isRaw: (index) => this.raw.has(index),
    autoRaw: (index) => this.mark?.index === index && !!this.mark.text && !this.mark.rendered,
    toggleRaw: (entry, shownRaw) => {
      if (shownRaw) {
        this.raw.delete(entry.index);
        if (this.mark?.index === entry.index) this.mark.rendered = true;
      } else {
        this.raw.add(entry.index);
      }
      this.requestUpdate();
    },
    fullText: (index, part) => this.fullTexts.get(`${index}:${part}`),
    highlight: (index) => (this.mark?.index === index ? this.mark.text : undefined),
    openFile: (path, line) =>
      host.post({
        type: 'openFile',
        path,
        ...(Number.isInteger(line) && (line ?? 0) > 0 ? { line } : {}),
      }),
    openExternal: (url) => host.post({ type: 'openExternal', url }),
    openSubagent: (fileKey) => host.post({ type: 'selectFile', fileKey }),
  };

  constructor() {
    super();
    new L10nController(this);
    this.files = [];
    this.fileKey = 'main';
    this.searchLabel = '';
    this.notice = '';
  }

  override connectedCallback(): void {
    super.connectedCallback();
    // A code block's language arrived: draw the rows again (their guards see a new version).
    this.stopLanguages ??= onLanguageLoaded(() => this.requestUpdate());
    // host.onMessage has no unsubscribe: listen once per element, for its lifetime.
    if (!this.listening) {
      this.listening = true;
      host.onMessage((message) => this.onHostMessage(message));
    }
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.stopLanguages?.();
    this.stopLanguages = undefined;
  }

  override willUpdate(): void {
    // Loading: the host opens the file again (Retry, another file under the same key), so
    // nothing loaded of the one before applies, even with the same key.
    const reopened = this.status?.state === 'loading' && this.shownState !== 'loading';
    this.shownState = this.status?.state;
    if (this.fileKey !== this.loadedKey || reopened) this.reset();
    const ready = this.status?.state === 'ready';
    const count = this.status?.state === 'ready' ? this.status.entryCount : 0;
    if (ready && count !== this.count) {
      const grew = this.count > 0 && count > this.count;
      // Someone reading the end of a live transcript keeps reading its end.
      const following = grew && this.range.last >= this.count - 1;
      // The window with the old last entry changes too (a tool call gets its result).
      if (grew) this.cache.dropFrom(WindowCache.windowOf(this.count - 1));
      this.setCount(count);
      if (following) void this.followEnd();
    }
  }

  override updated(): void {
    // A <select>'s value can only be set once its options exist, i.e. after rendering.
    const files = this.renderRoot.querySelector<HTMLSelectElement>('select.files');
    if (files && files.value !== this.fileKey) files.value = this.fileKey;
    if (this.status?.state !== 'ready') return;
    if (this.range.last < this.range.first) this.range = { first: 0, last: 0 };
    this.ensureWindows();
    if (this.pendingScroll !== undefined && this.pendingScroll < this.count) {
      const index = this.pendingScroll;
      this.pendingScroll = undefined;
      void this.scrollToEntry(index);
    }
  }

  /** A different file: nothing of the previous one applies. */
  private reset(): void {
    this.loadedKey = this.fileKey;
    this.generation++;
    this.cache.clear();
    this.inFlight.clear();
    this.shortWindows.clear();
    this.pending.clear();
    this.expanded.clear();
    this.raw.clear();
    this.fullTexts.clear();
    this.setCount(0);
    this.range = { first: 0, last: -1 };
    this.focusIndex = 0;
    this.current = undefined;
    this.mark = undefined;
    this.search = { query: '', requestId: 0, at: undefined };
    this.searchLabel = '';
    this.notice = '';
  }

  private setCount(count: number): void {
    this.count = count;
    this.items = Array.from({ length: count }, (_, i) => i);
  }

  private onHostMessage(message: HostMessage): void {
    if (message.type === 'reveal') {
      this.goTo(message.index, message.highlight);
      return;
    }
    if (!('requestId' in message)) return;
    const request = this.pending.get(message.requestId);
    if (!request) return;
    this.pending.delete(message.requestId);
    if (request.generation !== this.generation) return;
    if (message.type === 'entries' && request.kind === 'window') {
      this.onEntries(request, message.start, message.entries, message.total);
    } else if (message.type === 'searchResult' && request.kind === 'search') {
      if (message.requestId !== this.search.requestId) return; // a newer search is on its way
      const { index, ordinal, total, complete } = message.result;
      this.search.at = index ?? undefined;
      this.searchLabel =
        index === null
          ? l10n.t('No results')
          : l10n.t(
              '{0} of {1}',
              formatNumber(ordinal),
              `${formatNumber(total)}${complete ? '' : '+'}`,
            );
      if (index !== null) this.goTo(index, this.search.query);
    } else if (message.type === 'searchResult' && request.kind === 'nextError') {
      // The host may answer nextError with a searchResult as well as with a reveal.
      if (message.result.index === null) this.notice = l10n.t('No further errors');
      else this.goTo(message.result.index, undefined);
    } else if (message.type === 'fullText' && request.kind === 'fullText') {
      this.fullTexts.delete(request.key);
      this.fullTexts.set(request.key, message.text);
      for (const key of this.fullTexts.keys()) {
        if (this.fullTexts.size <= MAX_FULL_TEXTS) break;
        if (key !== request.key) this.fullTexts.delete(key);
      }
      this.requestUpdate();
    }
  }

  private onEntries(
    request: { key: number; count: number },
    start: number,
    entries: TranscriptEntry[],
    total: number,
  ): void {
    const { key } = request;
    this.inFlight.delete(key);
    const { from, to } = this.wanted();
    this.cache.put(key, start, entries, (k) => k + WINDOW_SIZE > from && k <= to);
    // The file grew (indexing, a live file) since the window was asked for: it holds all
    // that was asked but not the entries since. (A host that answers less than it was
    // asked is not asked again, or the two would loop.)
    const short = start + entries.length < Math.min(key + WINDOW_SIZE, total);
    if (short && entries.length >= request.count) this.shortWindows.add(key);
    else this.shortWindows.delete(key);
    if (total !== this.count) this.setCount(total);
    this.requestUpdate();
  }

  /** The entries on screen plus overscan. */
  private wanted(): { from: number; to: number } {
    return {
      from: Math.max(0, this.range.first - OVERSCAN),
      to: Math.min(this.count - 1, this.range.last + OVERSCAN),
    };
  }

  /** Asks the host for the windows on screen that are neither cached nor on their way. */
  private ensureWindows(): void {
    if (this.count === 0) return;
    const { from, to } = this.wanted();
    const now = Date.now();
    for (let key = WindowCache.windowOf(from); key <= to; key += WINDOW_SIZE) {
      if (this.cache.has(key) && !this.shortWindows.has(key)) {
        this.cache.touch(key);
        continue;
      }
      const askedAt = this.inFlight.get(key);
      if (askedAt !== undefined && now - askedAt < REQUEST_TIMEOUT_MS) continue;
      const requestId = nextRequestId++;
      const count = Math.min(WINDOW_SIZE, this.count - key);
      this.inFlight.set(key, now);
      this.pending.set(requestId, { kind: 'window', key, count, generation: this.generation });
      host.post({ type: 'getEntries', requestId, start: key, count });
    }
  }

  private toggle(entry: TranscriptEntry, key: BlockKey): void {
    const id = `${entry.index}:${key}`;
    if (this.expanded.delete(id)) {
      this.requestUpdate();
      return;
    }
    this.expanded.add(id);
    // Only "show more" on a part the host cut asks for the rest; the preview needs nothing.
    if (key !== 'body' && key !== 'diff' && entry.truncatedParts?.includes(key)) {
      this.fetchFullText(entry.index, key);
    }
    this.requestUpdate();
  }

  private fetchFullText(index: number, part: TextPart): void {
    const key = `${index}:${part}`;
    if (this.fullTexts.has(key)) return;
    this.fullTexts.set(key, null);
    const requestId = nextRequestId++;
    this.pending.set(requestId, { kind: 'fullText', key, generation: this.generation });
    host.post({ type: 'getFullText', requestId, index, part });
  }

  private runSearch(direction: 'next' | 'previous'): void {
    const input = this.renderRoot.querySelector<HTMLInputElement>('input.query');
    const query = input?.value ?? '';
    if (!query) {
      this.searchLabel = '';
      return;
    }
    const from = query === this.search.query ? this.search.at : undefined;
    const requestId = nextRequestId++;
    this.search = { query, requestId, at: from };
    this.pending.set(requestId, { kind: 'search', generation: this.generation });
    host.post({
      type: 'search',
      requestId,
      query,
      direction,
      ...(from === undefined ? {} : { from }),
    });
    this.searchLabel = l10n.t('Searching…');
  }

  private nextError(): void {
    const requestId = nextRequestId++;
    this.pending.set(requestId, { kind: 'nextError', generation: this.generation });
    this.notice = '';
    host.post({ type: 'nextError', requestId, from: this.current ?? this.firstVisible });
  }

  /** Scrolls to an entry and marks it (reveal, search hit, next error). Focus stays where it is. */
  private goTo(index: number, highlight: string | undefined): void {
    this.mark = { index, text: highlight || undefined };
    this.current = index;
    this.focusIndex = index;
    this.requestUpdate();
    void this.scrollToEntry(index);
  }

  private virtualizer() {
    const feed = this.renderRoot.querySelector<VirtualizerHostElement>('.feed');
    return feed?.[virtualizerRef];
  }

  /**
   * Keeps a reader who was at the end at the new end. The new rows' heights are measured
   * as they render, which moves the end: go there again for a few frames.
   */
  private async followEnd(): Promise<void> {
    await this.updateComplete;
    const feed = this.renderRoot.querySelector<HTMLElement>('.feed');
    for (let frame = 0; feed && frame < 4; frame++) {
      feed.scrollTop = feed.scrollHeight;
      await new Promise((resolve) => requestAnimationFrame(resolve));
    }
  }

  private async scrollToEntry(index: number): Promise<void> {
    await this.updateComplete;
    const virtualizer = this.virtualizer();
    if (!virtualizer || index >= this.count) {
      this.pendingScroll = index;
      return;
    }
    virtualizer.element(index)?.scrollIntoView({ block: 'center' });
  }

  private rowElement(index: number): HTMLElement | null {
    return this.renderRoot.querySelector<HTMLElement>(`.entry[data-index="${index}"]`);
  }

  /** Moves keyboard focus to an entry, scrolling it into the DOM first when it is not rendered. */
  private async focusEntry(index: number): Promise<void> {
    const target = Math.max(0, Math.min(this.count - 1, index));
    this.focusIndex = target;
    this.current = target;
    this.requestUpdate();
    const row = this.rowElement(target);
    if (row) {
      row.focus();
      return;
    }
    this.virtualizer()?.element(target)?.scrollIntoView({ block: 'nearest' });
    await this.updateComplete;
    await this.virtualizer()?.layoutComplete.catch(() => undefined);
    await this.updateComplete;
    this.rowElement(target)?.focus({ preventScroll: true });
  }

  private onFeedKey(event: KeyboardEvent): void {
    const row = event.target as HTMLElement;
    // Keys on the buttons inside a row keep their own meaning.
    if (!row.classList?.contains('entry')) return;
    const index = Number(row.dataset.index);
    const page = Math.max(1, this.range.last - this.range.first - 2 * OVERSCAN);
    const moves: Record<string, number> = {
      ArrowDown: index + 1,
      ArrowUp: index - 1,
      PageDown: index + page,
      PageUp: index - page,
      Home: 0,
      End: this.count - 1,
    };
    const move = moves[event.key];
    if (move !== undefined) {
      event.preventDefault();
      void this.focusEntry(move);
    } else if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      const entry = this.cache.entry(index);
      if (entry) this.toggle(entry, primaryBlock(entry));
    }
  }

  private onFeedFocus(event: FocusEvent): void {
    const row = (event.target as HTMLElement).closest?.('.entry') as HTMLElement | null;
    if (!row) return;
    const index = Number(row.dataset.index);
    if (index !== this.focusIndex) {
      this.focusIndex = index;
      this.current = index;
      this.requestUpdate();
    }
  }

  private readonly renderRow = (index: number) => {
    const entry = this.cache.entry(index);
    const inRange = this.focusIndex >= this.range.first && this.focusIndex <= this.range.last;
    const tabindex = index === (inRange ? this.focusIndex : this.firstVisible) ? '0' : '-1';
    if (!entry) {
      return html`<div
        class="entry placeholder"
        role="article"
        aria-busy="true"
        aria-posinset=${index + 1}
        aria-setsize=${this.count}
        aria-label=${l10n.t('Entry {0}, loading', formatNumber(index + 1))}
        data-index=${index}
        tabindex=${tabindex}
      >
        ${l10n.t('Loading entry {0}…', formatNumber(index + 1))}
      </div>`;
    }
    const revealed = this.mark?.index === index ? ' revealed' : '';
    return html`<div
      class=${rowClasses(entry) + revealed}
      role="article"
      aria-posinset=${index + 1}
      aria-setsize=${this.count}
      aria-label=${entryLabel(entry)}
      data-index=${index}
      tabindex=${tabindex}
    >
      ${renderEntry(entry, this.rowContext)}
    </div>`;
  };

  override render() {
    return html`${this.renderToolbar()} ${this.renderBody()}`;
  }

  private renderToolbar() {
    const ready = this.status?.state === 'ready' ? this.status : undefined;
    const errors = ready?.errorCount ?? 0;
    return html`<div class="toolbar">
      <div class="search" role="search">
        <input
          class="query"
          type="search"
          placeholder=${l10n.t('Search transcript')}
          aria-label=${l10n.t('Search transcript (Enter: next, Shift+Enter: previous)')}
          ?disabled=${!ready}
          @keydown=${(e: KeyboardEvent) => {
            if (e.key !== 'Enter') return;
            e.preventDefault();
            this.runSearch(e.shiftKey ? 'previous' : 'next');
          }}
          @input=${() => (this.searchLabel = '')}
        />
        <vscode-button
          secondary
          icon="arrow-up"
          aria-label=${l10n.t('Previous match')}
          title=${l10n.t('Previous match (Shift+Enter)')}
          ?disabled=${!ready}
          @click=${() => this.runSearch('previous')}
        ></vscode-button>
        <vscode-button
          secondary
          icon="arrow-down"
          aria-label=${l10n.t('Next match')}
          title=${l10n.t('Next match (Enter)')}
          ?disabled=${!ready}
          @click=${() => this.runSearch('next')}
        ></vscode-button>
        <span class="search-status" role="status" aria-live="polite">${this.searchLabel}</span>
      </div>
      <vscode-button
        secondary
        class="next-error"
        ?disabled=${!ready || errors === 0}
        @click=${() => this.nextError()}
        >${errors ? l10n.t('Next error ({0})', formatNumber(errors)) : l10n.t('Next error')}</vscode-button
      >
      <span class="notice muted" role="status">${this.notice}</span>
      <span class="spacer"></span>
      ${ready && !ready.complete ? html`<span class="muted">${l10n.t('Indexing…')}</span>` : nothing}
      ${this.renderFiles()}
      <vscode-button secondary class="open-raw" @click=${() => host.post({ type: 'openRaw' })}
        >${l10n.t('Open raw')}</vscode-button
      >
    </div>`;
  }

  /** The file switcher: main and subagent transcripts, with what is known of their availability. */
  private renderFiles() {
    const currentFile = this.files.find((f) => f.fileKey === this.fileKey);
    const unusual =
      currentFile && !['available', 'local'].includes(currentFile.availability)
        ? html`<span class="availability">${currentFile.description}</span>`
        : nothing;
    if (this.files.length < 2) return unusual;
    return html`<select
        class="files"
        aria-label=${l10n.t('Transcript file')}
        @change=${(e: Event) =>
          host.post({ type: 'selectFile', fileKey: (e.target as HTMLSelectElement).value })}
      >
        ${this.files.map(
          (file) =>
            html`<option value=${file.fileKey} .selected=${file.fileKey === this.fileKey}>
              ${file.label}${file.description ? ` — ${file.description}` : ''}
            </option>`,
        )}
      </select>
      ${unusual}`;
  }

  private renderBody() {
    const status = this.status;
    if (!status) return html`<p class="message muted">${l10n.t('No transcript.')}</p>`;
    switch (status.state) {
      case 'none':
        return html`<p class="message muted">${status.message}</p>`;
      case 'loading': {
        const percent =
          status.bytesTotal && status.bytesDone !== undefined
            ? ` ${Math.floor((100 * status.bytesDone) / status.bytesTotal)}%`
            : '';
        return html`<p class="message" role="status">${status.message}${percent}</p>`;
      }
      case 'unavailable':
      case 'failed':
        return html`<div class="message">
          <p class=${status.state === 'failed' ? 'error' : 'muted'} role="alert">
            ${status.message}
          </p>
          ${
            status.canRetry
              ? html`<vscode-button @click=${() => host.post({ type: 'retryTranscript' })}
                  >${l10n.t('Retry')}</vscode-button
                >`
              : nothing
          }
        </div>`;
      case 'ready':
        if (this.count === 0)
          return html`<p class="message muted">${l10n.t('The transcript is empty.')}</p>`;
        return html`<div
          class="feed"
          role="feed"
          aria-label=${l10n.t('Transcript entries')}
          @rangeChanged=${(e: Event & { first: number; last: number }) => {
            this.range = { first: e.first, last: e.last };
            this.ensureWindows();
          }}
          @visibilityChanged=${(e: Event & { first: number }) => (this.firstVisible = e.first)}
          @keydown=${(e: KeyboardEvent) => this.onFeedKey(e)}
          @focusin=${(e: FocusEvent) => this.onFeedFocus(e)}
        >
          ${virtualize({
            items: this.items,
            renderItem: this.renderRow,
            keyFunction: (index: number) => index,
            scroller: true,
            layout: LAYOUT,
          })}
        </div>`;
    }
  }
}

customElements.define('transcript-view', TranscriptView);

declare global {
  interface HTMLElementTagNameMap {
    'transcript-view': TranscriptView;
  }
}
