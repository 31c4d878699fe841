import { chartStyles } from '../shared/chartStyles.ts';
import { LitElement, css, html, nothing, svg } from 'lit';
import type { UsageView as UsageViewModel } from '../../../src/shared/protocol.ts';
import * as l10n from '@vscode/l10n';
import { L10nController, formatNumber } from '../shared/l10n.ts';
import { tokens, turnChart } from './usageChart.ts';

/**
 * `<usage-view>`: token use of the session. The app sets `view` from the host's
 * `usage` message; the element only displays (it posts nothing). The per-turn chart is
 * SVG from Lit templates; a table alternative under it serves screen readers and copying.
 */
export class UsageView extends LitElement {
  static override properties = {
    view: { attribute: false },
  };

  declare view: UsageViewModel | undefined;

  constructor() {
    super();
    new L10nController(this);
  }

  static override styles = [
    chartStyles,
    css`
      :host {
        display: block;
        color: var(--vscode-foreground);
        font-family: var(--vscode-font-family);
        font-size: var(--vscode-font-size);
      }
      dl {
        display: grid;
        grid-template-columns: max-content 1fr;
        gap: 4px 16px;
        margin: 8px 0 16px;
      }
      dt,
      .muted,
      caption {
        color: var(--vscode-descriptionForeground);
      }
      dd {
        margin: 0;
        font-variant-numeric: tabular-nums;
        overflow-wrap: anywhere;
      }
      h2 {
        font-size: 1.05em;
        margin: 16px 0 6px;
      }
      .scroll {
        overflow-x: auto;
        padding-bottom: 4px;
      }
      .in,
      .swatch.in,
      .fill {
        fill: var(--vscode-charts-blue);
        background: var(--vscode-charts-blue);
      }
      .out,
      .swatch.out {
        fill: var(--vscode-charts-orange);
        background: var(--vscode-charts-orange);
      }
      .fill.high {
        fill: var(--vscode-charts-yellow);
      }
      .fill.full {
        fill: var(--vscode-charts-red);
      }
      .track {
        fill: var(--vscode-editorWidget-background, var(--vscode-panel-border));
        stroke: var(--vscode-contrastBorder, none);
      }
      .bar:hover rect {
        opacity: 0.8;
      }
      .gauge svg {
        display: block;
        width: 100%;
        max-width: 400px;
      }
      summary:focus-visible {
        outline: 1px solid var(--vscode-focusBorder);
      }
    `,
  ];

  override render() {
    const view = this.view;
    if (!view) return html`<p class="muted">${l10n.t('No token usage yet.')}</p>`;
    const rows: [string, number | undefined][] = [
      [l10n.t('Input'), view.input],
      [l10n.t('Output'), view.output],
      [l10n.t('Cache read'), view.cacheRead],
      [l10n.t('Cache write'), view.cacheWrite],
      [l10n.t('Reasoning'), view.reasoning],
    ];
    return html`<dl aria-label=${l10n.t('Tokens by kind')}>
        ${rows.map(([name, value]) =>
          value === undefined
            ? nothing
            : html`<dt>${name}</dt>
                <dd>${formatNumber(tokens(value))}</dd>`,
        )}
        <dt>${l10n.t('Estimated cost')}</dt>
        <dd>${view.cost || l10n.t('unknown')}</dd>
      </dl>
      ${this.renderContext(view.context)} ${this.renderTurns(view.turns)}`;
  }

  /** How full the context window was on the most recent call. */
  private renderContext(context: UsageViewModel['context']) {
    if (!context) return nothing;
    const used = tokens(context.used);
    const size = tokens(context.window);
    const ratio = size > 0 ? Math.min(1, used / size) : 0;
    const percent = Math.round(ratio * 100);
    const text = l10n.t(
      '{0} of {1} tokens ({2}%)',
      formatNumber(used),
      formatNumber(size),
      formatNumber(percent),
    );
    const level = ratio >= 0.9 ? 'fill full' : ratio >= 0.7 ? 'fill high' : 'fill';
    return html`<h2>${l10n.t('Context window')}</h2>
      <div
        class="gauge"
        role="meter"
        aria-label=${l10n.t('Context window use')}
        aria-valuemin="0"
        aria-valuemax=${size}
        aria-valuenow=${Math.min(used, size)}
        aria-valuetext=${text}
      >
        <svg height="12" aria-hidden="true">
          ${svg`<rect class="track" x="0" y="0" width="100%" height="12"></rect>
            <rect class=${level} x="0" y="0" width="${percent}%" height="12"></rect>`}
        </svg>
        <div>${text}</div>
      </div>`;
  }

  private renderTurns(turns: UsageViewModel['turns']) {
    if (turns.length === 0)
      return html`<p class="muted">${l10n.t('No per-turn usage in the transcript.')}</p>`;
    return html`<h2>${l10n.t('Tokens per turn')}</h2>
      <div class="legend" aria-hidden="true">
        <span><span class="swatch in"></span>${l10n.t('Input')}</span>
        <span><span class="swatch out"></span>${l10n.t('Output')}</span>
      </div>
      <div class="scroll">${turnChart(turns)}</div>
      <details>
        <summary>${l10n.t('Show as table')}</summary>
        <table>
          <caption>
            ${l10n.t('Tokens per turn')}
          </caption>
          <thead>
            <tr>
              <th scope="col">${l10n.t('Turn')}</th>
              <th scope="col">${l10n.t('Input')}</th>
              <th scope="col">${l10n.t('Output')}</th>
            </tr>
          </thead>
          <tbody>
            ${turns.map(
              (turn) =>
                html`<tr>
                  <th scope="row">${turn.label}</th>
                  <td>${formatNumber(tokens(turn.input))}</td>
                  <td>${formatNumber(tokens(turn.output))}</td>
                </tr>`,
            )}
          </tbody>
        </table>
      </details>`;
  }
}

customElements.define('usage-view', UsageView);

declare global {
  interface HTMLElementTagNameMap {
    'usage-view': UsageView;
  }
}
