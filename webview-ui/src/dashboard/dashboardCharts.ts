/**
 * The dashboard's charts as SVG from Lit templates: columns over time and horizontal
 * bars by category. Every bar is an image with its own accessible name (and a tooltip
 * title); the colors come from the theme (--vscode-charts-*) through CSS classes.
 * Untrusted text is only ever bound as text or attribute values.
 */
import { html, svg } from 'lit';
import type { TemplateResult } from 'lit';
import type { BreakdownView, DashboardPointView } from '../../../src/shared/dashboardProtocol.ts';
import * as l10n from '@vscode/l10n';
import { formatDay, formatNumber } from '../shared/l10n.ts';
import { columnFrame, stackedColumn, tokens, type ColumnGeometry } from '../shared/barChart.ts';

const GEOMETRY: ColumnGeometry = { column: 12, gap: 3, height: 120 };
const { column: COLUMN, gap: GAP, height: HEIGHT } = GEOMETRY;

export function costLabel(p: DashboardPointView): string {
  const unknown = tokens(p.unknownCostSessions);
  const sessions = tokens(p.sessions);
  const count =
    sessions === 1 ? l10n.t('1 session') : l10n.t('{0} sessions', formatNumber(sessions));
  return unknown > 0
    ? l10n.t(
        '{0}: {1}, {2}, {3} without a cost',
        formatDay(p.day),
        p.costText,
        count,
        formatNumber(unknown),
      )
    : l10n.t('{0}: {1}, {2}', formatDay(p.day), p.costText, count);
}

export function tokensLabel(p: DashboardPointView): string {
  return l10n.t(
    '{0}: {1} input, {2} output tokens',
    formatDay(p.day),
    formatNumber(tokens(p.inputTokens)),
    formatNumber(tokens(p.outputTokens)),
  );
}

function frame(count: number, name: string, body: unknown): TemplateResult {
  return columnFrame(GEOMETRY, count, name, body);
}

/** One column per day: the known cost. */
export function costChart(points: DashboardPointView[]): TemplateResult {
  const max = points.reduce((m, p) => Math.max(m, tokens(p.cost)), 0) || 1;
  return frame(
    points.length,
    l10n.t('Estimated cost per day'),
    points.map((p, i) => {
      const h = (tokens(p.cost) / max) * HEIGHT;
      const label = costLabel(p);
      return svg`<g class="bar" role="img" aria-label=${label}>
        <title>${label}</title>
        <rect class="cost" x=${i * (COLUMN + GAP)} y=${HEIGHT - h} width=${COLUMN} height=${h}></rect>
      </g>`;
    }),
  );
}

/** One stacked column per day: input below, output above. */
export function tokensChart(points: DashboardPointView[]): TemplateResult {
  const max =
    points.reduce((m, p) => Math.max(m, tokens(p.inputTokens) + tokens(p.outputTokens)), 0) || 1;
  return frame(
    points.length,
    l10n.t('Tokens per day'),
    points.map((p, i) =>
      stackedColumn(
        GEOMETRY,
        i,
        { input: p.inputTokens, output: p.outputTokens, label: tokensLabel(p) },
        max,
      ),
    ),
  );
}

/**
 * Horizontal bars, one row per category: the label, the bar (an SVG rect whose width
 * is a percentage attribute, since the CSP allows no inline styles) and the value.
 */
export function barList(breakdown: BreakdownView): TemplateResult {
  const max = breakdown.rows.reduce((m, r) => Math.max(m, tokens(r.value)), 0) || 1;
  return html`<div
    class="bars"
    role="group"
    aria-label="${breakdown.measure} ${breakdown.title.toLowerCase()}"
  >
    ${breakdown.rows.map((row) => {
      const percent = Math.round((tokens(row.value) / max) * 1000) / 10;
      const label = `${row.label}: ${row.valueText}`;
      return html`<div class="hbar" role="img" aria-label=${label} title=${label}>
        <span class="hlabel">${row.label}</span>
        <svg class="htrack" height="14" aria-hidden="true">
          ${svg`<rect class="fill" x="0" y="1" width="${percent}%" height="12"></rect>`}
        </svg>
        <span class="hvalue">${row.valueText}</span>
      </div>`;
    })}
  </div>`;
}
