import type { HourCounts } from '../../stores/overview-store.js';
import { defineTemplate } from '../templates.js';
import { scrollingTable } from './list-page.js';

// A stacked bar chart of counts per hour, drawn on the server as inline SVG: no script, and no
// `style` attribute (the CSP allows styles from the stylesheet only), so each series is filled
// through a class of the stylesheet (`chart-tone-*`: a colour of at least 3:1 against the page)
// and, beyond the first, a pattern of its own (stripes, dots), so that colour is never the only
// difference. The figures themselves are in the caption (totals) and in a table under
// **Figures by hour**, which is what a screen reader reads: the drawing is one image to it.

/** @internal One series of a chart: the key of its counts, its name, and how it is drawn. */
export interface ChartSeries<Outcome extends string> {
  key: Outcome;
  label: string;
  /** The fill: a colour (`chart-tone-<tone>`) and, for all but `solid`, a white pattern on it. */
  tone: 'green' | 'amber' | 'red' | 'blue';
  pattern: 'solid' | 'stripes' | 'dots';
}

/** @internal What {@link renderHourlyChart} draws. */
export interface HourlyChart<Outcome extends string> {
  /** A prefix of the ids in the chart (unique in the page). */
  id: string;
  /** What is counted, for the caption: `Delivery attempts per hour`. */
  title: string;
  series: readonly ChartSeries<Outcome>[];
  hours: readonly HourCounts<Outcome>[];
}

const WIDTH = 480;
const HEIGHT = 200;
const LEFT = 34;
const RIGHT = 6;
const TOP = 8;
const BOTTOM = 24;

interface Bar {
  x: number;
  width: number;
  segments: { y: number; height: number; fill: string; className: string }[];
}

interface ChartView {
  id: string;
  title: string;
  summary: string;
  ariaLabel: string;
  width: number;
  height: number;
  patterns: { id: string; className: string; pattern: 'stripes' | 'dots' }[];
  series: { label: string; total: number; fill: string; className: string }[];
  gridLines: { y: number; label: string }[];
  xLabels: { x: number; label: string }[];
  bars: Bar[];
  plot: { left: number; right: number; bottom: number };
  rows: { hour: string; counts: number[]; total: number }[];
  table: string;
}

/** A maximum of the vertical axis: 1, 2 or 5 times a power of ten, at least the largest bar. */
function axisMaximum(largest: number): number {
  if (largest <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(largest));
  for (const step of [1, 2, 5, 10]) {
    if (step * power >= largest) return step * power;
  }
  return 10 * power;
}

function hourLabel(iso: string): string {
  return iso.slice(11, 16);
}

const chartTemplate = defineTemplate<ChartView>(`
<figure class="chart" aria-labelledby="<%= it.id %>-caption">
<figcaption id="<%= it.id %>-caption"><strong><%= it.title %></strong>, the last 24 hours (UTC):
<%= it.summary %></figcaption>
<ul class="chart-legend">
<% for (const series of it.series) { %><li><svg aria-hidden="true" focusable="false" width="14" height="14" viewBox="0 0 14 14"><rect width="14" height="14" class="<%= series.className %>" fill="<%= series.fill %>"/></svg><%= series.label %>: <%= series.total %></li>
<% } %>
</ul>
<svg role="img" aria-label="<%= it.ariaLabel %>" viewBox="0 0 <%= it.width %> <%= it.height %>" class="chart-drawing" preserveAspectRatio="xMidYMid meet">
<defs>
<% for (const pattern of it.patterns) { %><pattern id="<%= pattern.id %>" width="6" height="6" patternUnits="userSpaceOnUse"<%~ pattern.pattern === 'stripes' ? ' patternTransform="rotate(45)"' : '' %>>
<rect width="6" height="6" class="<%= pattern.className %>" fill="currentColor"/>
<% if (pattern.pattern === 'stripes') { %><rect width="2" height="6" class="chart-mark"/><% } else { %><circle cx="3" cy="3" r="1.3" class="chart-mark"/><% } %>
</pattern>
<% } %>
</defs>
<% for (const line of it.gridLines) { %><line x1="<%= it.plot.left %>" x2="<%= it.plot.right %>" y1="<%= line.y %>" y2="<%= line.y %>" class="chart-grid"/>
<text x="<%= it.plot.left - 4 %>" y="<%= line.y + 4 %>" text-anchor="end" class="chart-text"><%= line.label %></text>
<% } %>
<% for (const bar of it.bars) { %><% for (const segment of bar.segments) { %><rect x="<%= bar.x %>" y="<%= segment.y %>" width="<%= bar.width %>" height="<%= segment.height %>" class="<%= segment.className %>" fill="<%= segment.fill %>"/>
<% } %><% } %>
<% for (const label of it.xLabels) { %><text x="<%= label.x %>" y="<%= it.plot.bottom + 16 %>" class="chart-text"><%= label.label %></text>
<% } %>
</svg>
<details class="chart-figures">
<summary>Figures by hour</summary>
<%~ it.table %>
</details>
</figure>
`);

const figuresTemplate = defineTemplate<{
  seriesLabels: string[];
  rows: ChartView['rows'];
}>(`<table>
<thead><tr><th scope="col">Hour (UTC)</th><% for (const label of it.seriesLabels) { %><th scope="col"><%= label %></th><% } %><th scope="col">Total</th></tr></thead>
<tbody>
<% for (const row of it.rows) { %><tr><th scope="row"><%= row.hour %></th><% for (const count of row.counts) { %><td><%= count %></td><% } %><td><%= row.total %></td></tr>
<% } %>
</tbody>
</table>`);

/**
 * @internal A chart of counts per hour as HTML: a `<figure>` with the totals in its caption, the
 * bars as inline SVG (an image labelled with the same totals) and every figure in a table under
 * **Figures by hour**.
 */
export function renderHourlyChart<Outcome extends string>(chart: HourlyChart<Outcome>): string {
  const plot = { left: LEFT, right: WIDTH - RIGHT, top: TOP, bottom: HEIGHT - BOTTOM };
  const plotHeight = plot.bottom - plot.top;
  const slot = (plot.right - plot.left) / Math.max(chart.hours.length, 1);
  const totals = chart.hours.map((hour) =>
    chart.series.reduce((sum, series) => sum + hour.counts[series.key], 0),
  );
  const maximum = axisMaximum(Math.max(0, ...totals));
  const fills = chart.series.map((series) => ({
    className: `chart-tone-${series.tone}`,
    fill: series.pattern === 'solid' ? 'currentColor' : `url(#${chart.id}-${series.key})`,
  }));
  const round = (value: number) => Math.round(value * 10) / 10;
  const bars: Bar[] = chart.hours.map((hour, index) => {
    let top = plot.bottom;
    const segments: Bar['segments'] = [];
    chart.series.forEach((series, seriesIndex) => {
      const count = hour.counts[series.key];
      if (count <= 0) return;
      const bottom = top;
      top -= (count / maximum) * plotHeight;
      const fill = fills[seriesIndex] as (typeof fills)[number];
      // The edges are rounded, not the sizes: segments abut, and the bar ends at the axis
      // (rounding each height on its own could add up past it).
      segments.push({
        y: round(top),
        height: round(round(bottom) - round(top)),
        ...fill,
        className: `${fill.className} chart-bar`,
      });
    });
    return { x: round(plot.left + index * slot + slot * 0.15), width: round(slot * 0.7), segments };
  });
  const seriesTotals = chart.series.map((series) =>
    chart.hours.reduce((sum, hour) => sum + hour.counts[series.key], 0),
  );
  const summary = chart.series
    .map((series, index) => `${seriesTotals[index]} ${series.label.toLowerCase()}`)
    .join(', ');
  const rows = chart.hours.map((hour, index) => ({
    hour: `${hour.hourStart.slice(0, 10)} ${hourLabel(hour.hourStart)}`,
    counts: chart.series.map((series) => hour.counts[series.key]),
    total: totals[index] ?? 0,
  }));
  return chartTemplate.render({
    id: chart.id,
    title: chart.title,
    summary: `${summary}.`,
    ariaLabel: `${chart.title}, the last 24 hours: ${summary}. Every hour's figures are in the table under Figures by hour.`,
    width: WIDTH,
    height: HEIGHT,
    patterns: chart.series.flatMap((series) =>
      series.pattern === 'solid'
        ? []
        : [
            {
              id: `${chart.id}-${series.key}`,
              className: `chart-tone-${series.tone}`,
              pattern: series.pattern,
            },
          ],
    ),
    series: chart.series.map((series, index) => ({
      label: series.label,
      total: seriesTotals[index] ?? 0,
      ...(fills[index] as (typeof fills)[number]),
    })),
    gridLines: [0, maximum / 2, maximum]
      .filter((value, index) => index !== 1 || Number.isInteger(value))
      .map((value) => ({
        y: round(plot.bottom - (value / maximum) * plotHeight),
        label: String(value),
      })),
    xLabels: chart.hours.flatMap((hour, index) =>
      index % 6 === 0
        ? [{ x: round(plot.left + index * slot), label: hourLabel(hour.hourStart) }]
        : [],
    ),
    bars,
    plot,
    rows,
    table: scrollingTable(
      `${chart.title} by hour`,
      figuresTemplate.render({ seriesLabels: chart.series.map((series) => series.label), rows }),
    ),
  });
}
