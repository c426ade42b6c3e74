import { barChart, legend, niceCeiling, ticks, type BarSeries } from './bar-chart';
import { deliveriesFigure, lastUtcDays, messagesFigure, share } from './overview-charts';

const A: BarSeries = { label: 'Sent', colour: '#0072b2', pattern: 'solid' };
const B: BarSeries = { label: 'Failed <b>', colour: '#c25100', pattern: 'crosshatch' };

/** WCAG relative luminance contrast of two #rrggbb colours. */
function contrast(a: string, b: string): number {
  const lum = (hex: string) => {
    const [r, g, bl] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

describe('bar chart (server-rendered SVG)', () => {
  it('draws one bar per non-zero value, its height in proportion to a 1-2-5 axis top (40 of 50), each with its pattern and a title', () => {
    const svg = barChart({
      id: 'c',
      label: 'Messages',
      categories: ['2026-12-04', '2026-12-05'],
      series: [A, B],
      values: [
        [40, 0],
        [20, 5],
      ],
    }).value;
    const bars = [
      ...svg.matchAll(/<rect\s+x="[\d.]+"\s+y="([\d.]+)"\s+width="[\d.]+"\s+height="([\d.]+)"\s+fill="url\(#c-s(\d)\)"\s*><title>([^<]*)<\/title>/g),
    ];
    expect(bars.map((b) => [Number(b[2]), b[3], b[4]])).toEqual([
      [163.2, '0', '2026-12-04: 40 Sent'],
      [81.6, '0', '2026-12-05: 20 Sent'],
      [20.4, '1', '2026-12-05: 5 Failed &lt;b&gt;'],
    ]);
    expect(svg).toContain('role="img" aria-label="Messages"');
    expect(svg).toContain('<pattern id="c-s1"');
    expect(svg).not.toContain('<b>');
  });

  it('picks the axis top and ticks', () => {
    expect([0, 1, 3, 7, 10, 11, 40, 101, 9_999].map(niceCeiling)).toEqual([1, 1, 5, 10, 10, 20, 50, 200, 10_000]);
    expect(ticks(20)).toEqual([0, 5, 10, 15, 20]);
    expect(ticks(1)).toEqual([0, 1]);
  });

  it('labels every n-th category counted from the newest', () => {
    const days = lastUtcDays(new Date('2026-12-05T13:00:00Z'), 30);
    expect([days[0], days[29], days.length]).toEqual(['2026-11-06', '2026-12-05', 30]);
    const svg = barChart({ id: 'c', label: 'x', categories: days, series: [A], values: days.map(() => [1]), labelEvery: 7 }).value;
    expect([...svg.matchAll(/y="232"\s+text-anchor="(?:middle|end)"\s*>([^<]+)</g)].map((m) => m[1])).toEqual([
      '2026-11-07',
      '2026-11-14',
      '2026-11-21',
      '2026-11-28',
      '2026-12-05',
    ]);
  });

  it('names each series in the legend beside a swatch of its own fill', () => {
    const out = legend({ id: 'c', series: [A, B] }).value;
    expect(out).toContain('fill="url(#c-l0)"');
    expect(out).toContain('Failed &lt;b&gt;');
  });

  it('puts the same numbers in a table with ISO days, and the share delivered at the first attempt', () => {
    const days = ['2026-12-04', '2026-12-05'];
    const messages = messagesFigure(days, [{ day: '2026-12-05', sent: 12, delivered: 10, read: 7, failed: 1 }]).value;
    expect(messages).toMatch(/<figure[^>]*>\s*<figcaption/);
    expect(messages.replace(/\s+/g, ' ')).toContain(
      '<th scope="row" role="rowheader" data-label="Day (UTC)">2026-12-05</th> <td role="cell" data-label="Sent">12</td> <td role="cell" data-label="Delivered">10</td>',
    );
    expect(messages.replace(/\s+/g, ' ')).toContain('>2026-12-04</th> <td role="cell" data-label="Sent">0</td>');
    const deliveries = deliveriesFigure(days, [{ day: '2026-12-04', delivered: 4, deliveredFirstAttempt: 3, failed: 1 }]).value;
    expect(deliveries).toContain('4 delivered, 75 % of them at the first attempt');
    expect(deliveries).toContain('<td role="cell" data-label="Delivered at the first attempt">75 %</td>');
    expect(share(0, 0)).toBe('–');
  });

  it('uses colours of at least 3:1 contrast on light and dark backgrounds', () => {
    const colours = [...messagesFigure(['2026-12-05'], []).value.matchAll(/fill="(#[0-9a-f]{6})"/g)].map((m) => m[1]);
    expect(new Set(colours).size).toBe(4);
    for (const colour of colours) {
      expect(contrast(colour, '#ffffff')).toBeGreaterThanOrEqual(3);
      expect(contrast(colour, '#121212')).toBeGreaterThanOrEqual(3);
    }
  });
});
