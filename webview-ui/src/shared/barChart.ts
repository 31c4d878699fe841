/**
 * What the session's Usage tab and the usage dashboard draw alike: an SVG frame of
 * columns and a stacked input/output column, from Lit templates. Every column is an
 * image with its own accessible name and a tooltip title; colors come from the theme
 * through the `in` and `out` classes.
 */
import { html, svg } from 'lit';
import type { SVGTemplateResult, TemplateResult } from 'lit';

/** The size of a column chart, in SVG user units. */
export interface ColumnGeometry {
  column: number;
  gap: number;
  height: number;
}

/** A count from the host, as a number a chart can draw (untrusted: NaN, negative, Infinity → 0). */
export function tokens(value: number | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

/** The chart's SVG, as wide as `count` columns, named `name` for assistive technology. */
export function columnFrame(
  geometry: ColumnGeometry,
  count: number,
  name: string,
  body: unknown,
): TemplateResult {
  const { height } = geometry;
  const width = Math.max(1, count * (geometry.column + geometry.gap));
  return html`<svg
    class="chart"
    width=${width}
    height=${height}
    viewBox="0 0 ${width} ${height}"
    role="group"
    aria-label=${name}
  >
    ${body}
  </svg>`;
}

/** Column `index`: input below, output above, scaled so that `max` fills the height. */
export function stackedColumn(
  geometry: ColumnGeometry,
  index: number,
  bar: { input: number | undefined; output: number | undefined; label: string },
  max: number,
): SVGTemplateResult {
  const { column, height } = geometry;
  const input = (tokens(bar.input) / max) * height;
  const output = (tokens(bar.output) / max) * height;
  const x = index * (column + geometry.gap);
  return svg`<g class="bar" role="img" aria-label=${bar.label}>
        <title>${bar.label}</title>
        <rect class="in" x=${x} y=${height - input} width=${column} height=${input}></rect>
        <rect class="out" x=${x} y=${height - input - output} width=${column} height=${output}></rect>
      </g>`;
}
