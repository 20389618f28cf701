import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HourCounts } from '../../stores/overview-store.js';
import { renderHourlyChart } from './hourly-chart.js';

type Outcome = 'ok' | 'bad';

function hoursOf(counts: readonly [number, number][]): HourCounts<Outcome>[] {
  return counts.map(([ok, bad], index) => ({
    hourStart: new Date(Date.UTC(2026, 2, 1, index)).toISOString(),
    counts: { ok, bad },
  }));
}

function render(counts: readonly [number, number][]): string {
  return renderHourlyChart<Outcome>({
    id: 'test-chart',
    title: 'Things per hour',
    series: [
      { key: 'ok', label: 'OK', tone: 'green', pattern: 'solid' },
      { key: 'bad', label: 'Bad', tone: 'red', pattern: 'dots' },
    ],
    hours: hoursOf(counts),
  });
}

describe('renderHourlyChart', () => {
  it('captions the totals, labels the image, and tables every hour', () => {
    const html = render([
      [3, 1],
      [0, 0],
      [2, 5],
    ]);
    expect(html).toContain(
      '<strong>Things per hour</strong>, the last 24 hours (UTC):\n5 ok, 6 bad.',
    );
    expect(html).toMatch(
      /<svg role="img" aria-label="Things per hour, the last 24 hours: 5 ok, 6 bad\./,
    );
    expect(html).toContain('<th scope="row">2026-03-01 02:00</th><td>2</td><td>5</td><td>7</td>');
    // The second series is a pattern, defined once, so colour is not its only mark.
    expect(html.match(/<pattern id="test-chart-bad"/g)).toHaveLength(1);
    expect(html).toContain('fill="url(#test-chart-bad)"');
    // The CSP allows no inline style.
    expect(html).not.toMatch(/\sstyle=/);
  });

  it('draws every bar inside the plot, in proportion to its total', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat({ max: 100_000 }), fc.nat({ max: 100_000 })), {
          minLength: 1,
          maxLength: 24,
        }),
        (counts) => {
          const html = render(counts);
          const bars = [
            ...html.matchAll(/<rect x="[\d.]+" y="([\d.]+)" width="[\d.]+" height="([\d.]+)"/g),
          ];
          const drawn = counts.flat().filter((count) => count > 0).length;
          expect(bars).toHaveLength(drawn);
          for (const [, y, height] of bars) {
            expect(Number(y)).toBeGreaterThanOrEqual(7.9);
            expect(Number(y) + Number(height)).toBeLessThanOrEqual(176.1);
          }
        },
      ),
      // Found by a run: rounding each height on its own ended this bar past the axis.
      {
        examples: [
          [
            [
              [4868, 95133],
              [53750, 0],
            ],
          ],
        ],
      },
    );
  });
});
