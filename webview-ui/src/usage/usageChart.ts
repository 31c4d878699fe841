import type { TemplateResult } from 'lit';
import * as l10n from '@vscode/l10n';
import { formatNumber } from '../shared/l10n.ts';
import { columnFrame, stackedColumn, tokens, type ColumnGeometry } from '../shared/barChart.ts';

export interface Turn {
  label: string;
  input: number;
  output: number;
}

const GEOMETRY: ColumnGeometry = { column: 10, gap: 4, height: 120 };

export { tokens };

export function turnLabel(turn: Turn): string {
  return l10n.t(
    'Turn {0}: {1} input, {2} output tokens',
    turn.label,
    formatNumber(tokens(turn.input)),
    formatNumber(tokens(turn.output)),
  );
}

/** One stacked bar per turn (input below, output above). */
export function turnChart(turns: Turn[]): TemplateResult {
  const max = turns.reduce((m, t) => Math.max(m, tokens(t.input) + tokens(t.output)), 1);
  return columnFrame(
    GEOMETRY,
    turns.length,
    l10n.t('Tokens per turn'),
    turns.map((turn, i) =>
      stackedColumn(
        GEOMETRY,
        i,
        { input: turn.input, output: turn.output, label: turnLabel(turn) },
        max,
      ),
    ),
  );
}
