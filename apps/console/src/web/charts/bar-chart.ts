import { html, type SafeHtml } from '../html';

/**
 * A grouped bar chart as server-rendered SVG: no script, no library. Each series has a colour and a
 * fill pattern, so the series differ by more than colour; the chart is one image to assistive
 * technology (role="img" with its label), and the page puts the numbers in a table beside it.
 */

export type FillPattern = 'solid' | 'stripes' | 'dots' | 'crosshatch';

export interface BarSeries {
  label: string;
  /** A colour with at least 3:1 contrast on light and dark backgrounds. */
  colour: string;
  pattern: FillPattern;
}

export interface BarChart {
  /** Unique on the page: the patterns' ids derive from it. */
  id: string;
  /** What the image shows, for its accessible name. */
  label: string;
  /** One group of bars per category (left to right), each its own label under the axis at most every `labelEvery`. */
  categories: string[];
  series: BarSeries[];
  /** values[category][series]. */
  values: number[][];
  labelEvery?: number;
}

const WIDTH = 720;
const HEIGHT = 240;
const LEFT = 48;
const RIGHT = 8;
const TOP = 8;
const BOTTOM = 28;

/** The smallest 1, 2 or 5 × 10ⁿ at or above `max` (1 for nothing): the top of the value axis. */
export function niceCeiling(max: number): number {
  if (!(max > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * power >= max) return step * power;
  return 10 * power;
}

/** The value axis' ticks: 0 to the ceiling in 4 steps, whole numbers only. */
export function ticks(ceiling: number): number[] {
  const step = ceiling / 4;
  return Number.isInteger(step) ? [0, step, 2 * step, 3 * step, ceiling] : [0, ceiling];
}

const round = (n: number) => Math.round(n * 100) / 100;

/** The pattern a series fills with: its colour, and a mark over it that is not colour. */
export function patternDef(id: string, series: BarSeries): SafeHtml {
  const mark =
    series.pattern === 'stripes'
      ? html`<path d="M-1,1 l2,-2 M0,6 l6,-6 M5,7 l2,-2" stroke="#fff" stroke-width="1.5" />`
      : series.pattern === 'dots'
        ? html`<circle cx="3" cy="3" r="1.3" fill="#fff" />`
        : series.pattern === 'crosshatch'
          ? html`<path d="M0,0 l6,6 M6,0 l-6,6" stroke="#fff" stroke-width="1.2" />`
          : null;
  return html`<pattern id="${id}" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="${series.colour}" />${mark}</pattern>`;
}

/** The chart's SVG. */
export function barChart(chart: BarChart): SafeHtml {
  const plotWidth = WIDTH - LEFT - RIGHT;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const max = Math.max(0, ...chart.values.flat());
  const ceiling = niceCeiling(max);
  const y = (v: number) => TOP + plotHeight - (v / ceiling) * plotHeight;
  const groupWidth = plotWidth / Math.max(1, chart.categories.length);
  const barWidth = (groupWidth * 0.8) / Math.max(1, chart.series.length);
  const every = chart.labelEvery ?? 1;
  const last = chart.categories.length - 1;
  return html`<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" width="100%" role="img" aria-label="${chart.label}" class="chart" preserveAspectRatio="xMidYMid meet">
    <defs>${chart.series.map((s, i) => patternDef(`${chart.id}-s${i}`, s))}</defs>
    <g class="axis" font-size="11" fill="currentColor">
      ${ticks(ceiling).map(
        (t) =>
          html`<line
              x1="${LEFT}"
              x2="${WIDTH - RIGHT}"
              y1="${round(y(t))}"
              y2="${round(y(t))}"
              stroke="currentColor"
              stroke-opacity="${t === 0 ? 0.6 : 0.15}"
            /><text x="${LEFT - 6}" y="${round(y(t) + 4)}" text-anchor="end">${t}</text>`,
      )}
      ${chart.categories.map((c, i) =>
        // The newest label ends at the plot's right edge instead of running past it.
        (last - i) % every === 0
          ? html`<text x="${i === last ? WIDTH - RIGHT : round(LEFT + groupWidth * (i + 0.5))}" y="${HEIGHT - 8}" text-anchor="${i === last ? 'end' : 'middle'}"
              >${c}</text
            >`
          : null,
      )}
    </g>
    <g class="bars">
      ${chart.values.map((row, i) =>
        row.map((v, s) =>
          v > 0
            ? html`<rect
                x="${round(LEFT + groupWidth * i + groupWidth * 0.1 + barWidth * s)}"
                y="${round(y(v))}"
                width="${round(barWidth)}"
                height="${round(TOP + plotHeight - y(v))}"
                fill="url(#${chart.id}-s${s})"
                ><title>${chart.categories[i]}: ${v} ${chart.series[s].label}</title></rect
              >`
            : null,
        ),
      )}
    </g>
  </svg>`;
}

/** The legend under a chart: a swatch of each series' fill (its pattern drawn again, with an id of its own) and its name. */
export function legend(chart: Pick<BarChart, 'id' | 'series'>): SafeHtml {
  return html`<ul class="legend">
    ${chart.series.map(
      (s, i) =>
        html`<li>
          <svg width="14" height="14" aria-hidden="true">
            <defs>${patternDef(`${chart.id}-l${i}`, s)}</defs>
            <rect width="14" height="14" fill="url(#${chart.id}-l${i})" />
          </svg>
          ${s.label}
        </li>`,
    )}
  </ul>`;
}
