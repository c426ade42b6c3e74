import type { DeliveryDayCount, MessageDayCount } from '#platform/contracts';
import { html, type SafeHtml } from '../html';
import { barChart, legend, type BarSeries } from './bar-chart';

// The tables name their roles: at phone width their rows stack (display: block), which would
// otherwise take table semantics from assistive technology.

const DAY_MS = 24 * 3600 * 1000;

/** The `n` UTC days up to and including the one `now` falls in, oldest first, as `YYYY-MM-DD`. */
export function lastUtcDays(now: Date, n: number): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: n }, (_, i) => new Date(today - (n - 1 - i) * DAY_MS).toISOString().slice(0, 10));
}

// Okabe–Ito colours, each at least 3:1 against white and against the dark scheme's background, and
// each with its own pattern: no series is told apart by colour alone.
const SENT: BarSeries = { label: 'Sent', colour: '#0072b2', pattern: 'solid' };
const DELIVERED: BarSeries = { label: 'Delivered', colour: '#008a63', pattern: 'stripes' };
const READ: BarSeries = { label: 'Read', colour: '#7b4ea3', pattern: 'dots' };
const FAILED: BarSeries = { label: 'Failed', colour: '#c25100', pattern: 'crosshatch' };

/** Whole per cent of a part, or a dash when there is no whole. */
export function share(part: number, whole: number): string {
  return whole > 0 ? `${Math.round((part / whole) * 100)} %` : '–';
}

const num = (n: number) => n.toLocaleString('en-GB');

/** A chart's numbers: a row per day (its header cell), a cell per column, each labelled for the stacked phone layout. */
function dayTable(columns: string[], rows: { day: string; cells: string[] }[]): SafeHtml {
  return html`<table class="stack" role="table">
    <thead role="rowgroup">
      <tr role="row">
        <th scope="col" role="columnheader">Day (UTC)</th>
        ${columns.map((c) => html`<th scope="col" role="columnheader">${c}</th> `)}
      </tr>
    </thead>
    <tbody role="rowgroup">
      ${rows.map(
        (r) =>
          html`<tr role="row">
            <th scope="row" role="rowheader" data-label="Day (UTC)">${r.day}</th>
            ${r.cells.map((cell, i) => html`<td role="cell" data-label="${columns[i]}">${cell}</td> `)}
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** Messages per day by status for `days`: the chart, its legend, and the same numbers in a table. */
export function messagesFigure(days: string[], counts: MessageDayCount[]): SafeHtml {
  const byDay = new Map(counts.map((c) => [c.day, c]));
  const rows = days.map((day) => byDay.get(day) ?? { day, sent: 0, delivered: 0, read: 0, failed: 0 });
  const total = rows.reduce((n, r) => n + r.sent, 0);
  const chart = {
    id: 'messages-chart',
    label: `Messages per day by status, ${days[0]} to ${days[days.length - 1]} (UTC): the table that follows holds the numbers.`,
    categories: days,
    series: [SENT, DELIVERED, READ, FAILED],
    values: rows.map((r) => [r.sent, r.delivered, r.read, r.failed]),
    labelEvery: 7,
  };
  return html`<figure aria-labelledby="messages-caption">
    <figcaption id="messages-caption">Messages per day by status, last ${days.length} UTC days (${num(total)} sent)</figcaption>
    ${barChart(chart)} ${legend(chart)}
    ${dayTable(
      ['Sent', 'Delivered', 'Read', 'Failed'],
      rows.map((r) => ({ day: r.day, cells: [num(r.sent), num(r.delivered), num(r.read), num(r.failed)] })),
    )}
  </figure>`;
}

/** Webhook deliveries per day (delivered, failed, delivered at the first attempt) for `days`: chart, legend and table. */
export function deliveriesFigure(days: string[], counts: DeliveryDayCount[]): SafeHtml {
  const byDay = new Map(counts.map((c) => [c.day, c]));
  const rows = days.map((day) => byDay.get(day) ?? { day, delivered: 0, deliveredFirstAttempt: 0, failed: 0 });
  const delivered = rows.reduce((n, r) => n + r.delivered, 0);
  const first = rows.reduce((n, r) => n + r.deliveredFirstAttempt, 0);
  const chart = {
    id: 'deliveries-chart',
    label: `Webhook deliveries per day, delivered and failed, ${days[0]} to ${days[days.length - 1]} (UTC): the table that follows holds the numbers.`,
    categories: days,
    series: [DELIVERED, FAILED],
    values: rows.map((r) => [r.delivered, r.failed]),
    labelEvery: 7,
  };
  return html`<figure aria-labelledby="deliveries-caption">
    <figcaption id="deliveries-caption">
      Webhook deliveries per day, last ${days.length} UTC days (${num(delivered)} delivered, ${share(first, delivered)} of them at the first attempt)
    </figcaption>
    ${barChart(chart)} ${legend(chart)}
    ${dayTable(
      ['Delivered', 'Failed', 'Delivered at the first attempt'],
      rows.map((r) => ({ day: r.day, cells: [num(r.delivered), num(r.failed), share(r.deliveredFirstAttempt, r.delivered)] })),
    )}
  </figure>`;
}
