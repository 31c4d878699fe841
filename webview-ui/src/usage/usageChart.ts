import { html, svg } from 'lit';
import type { TemplateResult } from 'lit';
import * as l10n from '@vscode/l10n';
import { formatNumber } from '../shared/l10n.ts';

export interface Turn {
  label: string;
  input: number;
  output: number;
}

const BAR_WIDTH = 10;
const GAP = 4;
const HEIGHT = 120;

/** A count from the host, as a number a chart can draw (untrusted: NaN, negative, Infinity → 0). */
export function tokens(value: number | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

export function turnLabel(turn: Turn): string {
  return l10n.t(
    'Turn {0}: {1} input, {2} output tokens',
    turn.label,
    formatNumber(tokens(turn.input)),
    formatNumber(tokens(turn.output)),
  );
}

/**
 * One stacked bar per turn (input below, output above), as SVG elements from Lit
 * templates. Each bar is an image with its own accessible name and a tooltip title;
 * colors come from the theme through the `in` and `out` classes.
 */
export function turnChart(turns: Turn[]): TemplateResult {
  const max = turns.reduce((m, t) => Math.max(m, tokens(t.input) + tokens(t.output)), 1);
  const width = Math.max(1, turns.length * (BAR_WIDTH + GAP));
  return html`<svg
    class="chart"
    width=${width}
    height=${HEIGHT}
    viewBox="0 0 ${width} ${HEIGHT}"
    role="group"
    aria-label=${l10n.t('Tokens per turn')}
  >
    ${turns.map((turn, i) => {
      const input = (tokens(turn.input) / max) * HEIGHT;
      const output = (tokens(turn.output) / max) * HEIGHT;
      const x = i * (BAR_WIDTH + GAP);
      const label = turnLabel(turn);
      return svg`<g class="bar" role="img" aria-label=${label}>
        <title>${label}</title>
        <rect class="in" x=${x} y=${HEIGHT - input} width=${BAR_WIDTH} height=${input}></rect>
        <rect class="out" x=${x} y=${HEIGHT - input - output} width=${BAR_WIDTH} height=${output}></rect>
      </g>`;
    })}
  </svg>`;
}
