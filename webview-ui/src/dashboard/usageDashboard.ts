import { chartStyles } from '../shared/chartStyles.ts';
import { LitElement, css, html, nothing, svg } from 'lit';
import type {
  BreakdownView,
  DashboardRange,
  DashboardSeriesView,
  DashboardView,
  HostToDashboard,
} from '../../../src/shared/dashboardProtocol.ts';
import { DASHBOARD_RANGES, isDashboardPanelState } from '../../../src/shared/dashboardProtocol.ts';
import * as l10n from '@vscode/l10n';
import { L10nController, formatDay, formatNumber } from '../shared/l10n.ts';
import { tokens } from '../usage/usageChart.ts';
import { barList, costChart, tokensChart } from './dashboardCharts.ts';
import { dashboardHost } from '../vscodeApi.ts';

type Phase = { state: 'loading' } | { state: 'failed'; message: string } | { state: 'ready' };

/**
 * `<usage-dashboard>`: a connection's usage and analytics as charts. Listens to the
 * host's messages itself and says `ready` once connected; range buttons and Refresh
 * post to the host. Each chart has a table alternative ("Show as table").
 */
export class UsageDashboard extends LitElement {
  static override properties = {
    view: { attribute: false },
    phase: { state: true },
    pendingRange: { state: true },
  };

  declare view: DashboardView | undefined;
  declare phase: Phase;
  /** The range asked for, until the host's data for it arrives. */
  declare pendingRange: DashboardRange | undefined;

  private unlisten: (() => void) | undefined;

  constructor() {
    super();
    new L10nController(this);
    this.view = undefined;
    this.phase = { state: 'loading' };
    this.pendingRange = undefined;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.unlisten = dashboardHost.onMessage((message) => this.receive(message));
    dashboardHost.post({ type: 'ready' });
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.unlisten?.();
  }

  /** A host message (also callable directly, as the tests do). */
  receive(message: HostToDashboard | undefined): void {
    if (!message || typeof message !== 'object') return;
    if (message.type === 'data') {
      this.view = message.view;
      this.pendingRange = undefined;
      this.phase = { state: 'ready' };
      if (isDashboardPanelState(message.state)) dashboardHost.saveState(message.state);
    } else if (message.type === 'loading') {
      this.phase = { state: 'loading' };
    } else if (message.type === 'failed') {
      this.phase = { state: 'failed', message: String(message.message) };
    }
  }

  static override styles = [
    chartStyles,
    css`
      :host {
        display: block;
        padding: 8px 20px 24px;
        color: var(--vscode-foreground);
        font-family: var(--vscode-font-family);
        font-size: var(--vscode-font-size);
      }
      h1 {
        font-size: 1.3em;
        margin: 8px 0 2px;
        overflow-wrap: anywhere;
      }
      h2 {
        font-size: 1.05em;
        margin: 20px 0 6px;
      }
      .muted,
      caption,
      dt {
        color: var(--vscode-descriptionForeground);
      }
      .toolbar {
        display: flex;
        flex-wrap: wrap;
        gap: 6px;
        align-items: center;
        margin: 8px 0;
      }
      button {
        font: inherit;
        color: var(--vscode-button-secondaryForeground, var(--vscode-foreground));
        background: var(--vscode-button-secondaryBackground, transparent);
        border: 1px solid var(--vscode-button-border, var(--vscode-contrastBorder, transparent));
        border-radius: 2px;
        padding: 3px 10px;
        cursor: pointer;
      }
      button[aria-pressed='true'] {
        color: var(--vscode-button-foreground);
        background: var(--vscode-button-background);
      }
      button:focus-visible,
      summary:focus-visible {
        outline: 1px solid var(--vscode-focusBorder);
        outline-offset: 1px;
      }
      .notice {
        border-left: 3px solid var(--vscode-editorWarning-foreground, var(--vscode-charts-yellow));
        background: var(--vscode-textBlockQuote-background);
        padding: 6px 10px;
        margin: 8px 0;
      }
      .notice ul {
        margin: 0;
        padding-left: 18px;
      }
      .error {
        border-left-color: var(--vscode-errorForeground, var(--vscode-charts-red));
      }
      dl.totals {
        display: grid;
        grid-template-columns: repeat(auto-fill, minmax(150px, 1fr));
        gap: 8px;
        margin: 8px 0;
      }
      dl.totals div {
        border: 1px solid var(--vscode-panel-border);
        padding: 6px 10px;
      }
      dd {
        margin: 2px 0 0;
        font-size: 1.25em;
        font-variant-numeric: tabular-nums;
        overflow-wrap: anywhere;
      }
      .split svg {
        display: block;
        width: 100%;
        max-width: 480px;
      }
      .scroll {
        overflow-x: auto;
        padding-bottom: 4px;
      }
      .cost,
      .fill,
      .swatch.cost {
        fill: var(--vscode-charts-blue);
        background: var(--vscode-charts-blue);
      }
      .in,
      .swatch.in,
      .sub {
        fill: var(--vscode-charts-green);
        background: var(--vscode-charts-green);
      }
      .out,
      .swatch.out,
      .api {
        fill: var(--vscode-charts-orange);
        background: var(--vscode-charts-orange);
      }
      .swatch.sub {
        background: var(--vscode-charts-green);
      }
      .swatch.api {
        background: var(--vscode-charts-orange);
      }
      .track {
        fill: var(--vscode-editorWidget-background, var(--vscode-panel-border));
      }
      .bar:hover rect,
      .hbar:hover rect {
        opacity: 0.8;
      }
      .plot {
        display: inline-block;
      }
      .axis {
        display: flex;
        justify-content: space-between;
        gap: 12px;
      }
      .grid {
        display: grid;
        grid-template-columns: repeat(auto-fit, minmax(360px, 1fr));
        gap: 0 32px;
      }
      .hbar {
        display: grid;
        grid-template-columns: minmax(80px, 14em) 1fr max-content;
        gap: 8px;
        align-items: center;
        padding: 1px 0;
      }
      .hlabel {
        overflow: hidden;
        text-overflow: ellipsis;
        white-space: nowrap;
      }
      .htrack {
        width: 100%;
      }
      .hvalue {
        font-variant-numeric: tabular-nums;
      }
      summary {
        margin-top: 4px;
      }
      @media (forced-colors: active) {
        rect {
          forced-color-adjust: none;
          fill: CanvasText;
        }
      }
    `,
  ];

  private setRange(days: DashboardRange): void {
    this.pendingRange = days;
    dashboardHost.post({ type: 'setRange', days });
  }

  override render() {
    const view = this.view;
    const current = this.pendingRange !== undefined ? this.pendingRange : (view?.range ?? null);
    return html`<header>
        <h1>${view ? l10n.t('Usage — {0}', view.connectionLabel) : l10n.t('Usage')}</h1>
        ${
          view
            ? html`<div class="muted">
                ${view.rangeText}${view.filtersText ? html`; ${view.filtersText}` : nothing}${
                  view.viewerScope
                    ? html`; ${l10n.t('viewer scope {0}', view.viewerScope)}`
                    : nothing
                }
              </div>`
            : nothing
        }
        <div class="toolbar" role="toolbar" aria-label=${l10n.t('Date range')}>
          ${DASHBOARD_RANGES.map(
            (days) =>
              html`<button
                type="button"
                class="range"
                aria-pressed=${current === days ? 'true' : 'false'}
                @click=${() => this.setRange(days)}
              >
                ${days === null ? l10n.t('All') : l10n.t('{0} days', formatNumber(days))}
              </button>`,
          )}
          <button
            type="button"
            class="refresh"
            @click=${() => dashboardHost.post({ type: 'refresh' })}
          >
            ${l10n.t('Refresh')}
          </button>
        </div>
      </header>
      <div role="status" aria-live="polite" class="muted">
        ${
          this.phase.state === 'loading'
            ? current === null
              ? l10n.t('Loading usage for all time…')
              : l10n.t('Loading usage for the last {0} days…', formatNumber(current))
            : nothing
        }
      </div>
      ${
        this.phase.state === 'failed'
          ? html`<div class="notice error" role="alert">
              <p>${this.phase.message}</p>
              <button type="button" @click=${() => dashboardHost.post({ type: 'refresh' })}>
                ${l10n.t('Retry')}
              </button>
            </div>`
          : nothing
      }
      ${view && this.phase.state !== 'failed' ? this.renderView(view) : nothing}`;
  }

  private renderView(view: DashboardView) {
    return html`${
        view.problems.length > 0
          ? html`<div class="notice problems" role="note" aria-label=${l10n.t('Parts not shown')}>
              <ul>
                ${view.problems.map((p) => html`<li>${p}</li>`)}
              </ul>
            </div>`
          : nothing
      }
      ${this.renderTotals(view)} ${view.series ? this.renderSeries(view.series) : nothing}
      <div class="grid">${view.breakdowns.map((b) => this.renderBreakdown(b))}</div>`;
  }

  private renderTotals(view: DashboardView) {
    const t = view.totals;
    const count = (n: number | undefined) => (n === undefined ? '—' : formatNumber(tokens(n)));
    const cells: [string, string][] = [
      [l10n.t('Sessions'), count(t.sessions)],
      [l10n.t('Estimated cost'), t.cost],
      [l10n.t('Input tokens'), count(t.inputTokens)],
      [l10n.t('Output tokens'), count(t.outputTokens)],
      [l10n.t('Cache read tokens'), count(t.cacheReadTokens)],
      [l10n.t('Cache write tokens'), count(t.cacheWriteTokens)],
    ];
    // Only sources that count reasoning apart (local Codex sessions) send it.
    if (t.reasoningTokens !== undefined)
      cells.push([l10n.t('Reasoning tokens (in output)'), count(t.reasoningTokens)]);
    return html`<h2 id="totals">${l10n.t('Totals')}</h2>
      <dl class="totals" aria-labelledby="totals">
        ${cells.map(
          ([name, value]) =>
            html`<div>
              <dt>${name}</dt>
              <dd>${value}</dd>
            </div>`,
        )}
      </dl>
      ${
        t.subscriptionCost !== undefined && t.apiCost !== undefined
          ? this.renderSplit(t.subscriptionCost, t.apiCost, t.subscriptionShare)
          : nothing
      }`;
  }

  private renderSplit(subscription: string, api: string, share: number | undefined) {
    const s = Math.round(Math.min(1, tokens(share)) * 1000) / 10;
    const text = l10n.t('Cost split: Subscriptions {0}, API {1}', subscription, api);
    return html`<div class="split">
      <div class="legend">
        <span
          ><span class="swatch sub" aria-hidden="true"></span>${l10n.t(
            'Subscriptions: {0}',
            subscription,
          )}</span
        >
        <span><span class="swatch api" aria-hidden="true"></span>${l10n.t('API: {0}', api)}</span>
      </div>
      <svg height="12" role="img" aria-label=${text}>
        <rect class="track" x="0" y="0" width="100%" height="12"></rect>
        ${
          share === undefined
            ? nothing
            : svg`<rect class="api" x="0" y="0" width="100%" height="12"></rect>
              <rect class="sub" x="0" y="0" width="${s}%" height="12"></rect>`
        }
      </svg>
    </div>`;
  }

  private renderSeries(series: DashboardSeriesView) {
    const points = series.points;
    const first = points[0]?.day ?? '';
    const last = points[points.length - 1]?.day ?? '';
    const axis = html`<div class="axis muted" aria-hidden="true">
      <span>${formatDay(first)}</span><span>${formatDay(last)}</span>
    </div>`;
    return html`<h2>${l10n.t('Cost over time')}</h2>
      <p class="muted">${series.note} ${l10n.t('Total {0}.', series.totalCost)}</p>
      <div class="scroll"><div class="plot">${costChart(points)} ${axis}</div></div>
      ${this.table(
        l10n.t('Estimated cost per day'),
        [l10n.t('Day'), l10n.t('Estimated cost'), l10n.t('Sessions'), l10n.t('Without a cost')],
        points.map((p) => [
          formatDay(p.day),
          p.costText,
          formatNumber(tokens(p.sessions)),
          formatNumber(tokens(p.unknownCostSessions)),
        ]),
      )}
      <h2>${l10n.t('Tokens over time')}</h2>
      <div class="legend" aria-hidden="true">
        <span><span class="swatch in"></span>${l10n.t('Input')}</span>
        <span><span class="swatch out"></span>${l10n.t('Output')}</span>
      </div>
      <div class="scroll"><div class="plot">${tokensChart(points)} ${axis}</div></div>
      ${this.table(
        l10n.t('Tokens per day'),
        [l10n.t('Day'), l10n.t('Input tokens'), l10n.t('Output tokens')],
        points.map((p) => [
          formatDay(p.day),
          formatNumber(tokens(p.inputTokens)),
          formatNumber(tokens(p.outputTokens)),
        ]),
      )}`;
  }

  private renderBreakdown(b: BreakdownView) {
    return html`<section class="breakdown" data-breakdown=${b.id}>
      <h2>${b.title}</h2>
      <div class="muted">${b.measure}</div>
      ${barList(b)}
      ${this.table(
        `${b.measure} ${b.title.toLowerCase()}`,
        [b.labelColumn, ...b.columns],
        b.rows.map((r) => [r.label, ...r.cells]),
      )}
    </section>`;
  }

  /** The table alternative of a chart: the first cell of each row is its header. */
  private table(caption: string, columns: string[], rows: string[][]) {
    return html`<details>
      <summary>${l10n.t('Show as table')}</summary>
      <div class="scroll">
        <table>
          <caption>
            ${caption}
          </caption>
          <thead>
            <tr>
              ${columns.map((c) => html`<th scope="col">${c}</th>`)}
            </tr>
          </thead>
          <tbody>
            ${rows.map(
              ([head, ...cells]) =>
                html`<tr>
                  <th scope="row">${head}</th>
                  ${cells.map((c) => html`<td>${c}</td>`)}
                </tr>`,
            )}
          </tbody>
        </table>
      </div>
    </details>`;
  }
}

customElements.define('usage-dashboard', UsageDashboard);

declare global {
  interface HTMLElementTagNameMap {
    'usage-dashboard': UsageDashboard;
  }
}
