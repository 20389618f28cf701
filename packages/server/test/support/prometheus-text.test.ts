import fc from 'fast-check';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { parsePrometheusText, sampleValue } from './prometheus-text.js';

describe('parsePrometheusText', () => {
  it('reads back every label value and number prom-client writes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(
          fc.record({
            label: fc.string({ unit: 'binary', maxLength: 20 }),
            value: fc.oneof(fc.double(), fc.integer({ min: -1_000_000, max: 1_000_000 })),
          }),
          { selector: (entry) => entry.label, maxLength: 8 },
        ),
        fc.string({ maxLength: 40 }),
        async (entries, help) => {
          const registry = new Registry();
          const gauge = new Gauge({
            name: 'test_gauge',
            help: help === '' ? 'h' : help,
            labelNames: ['tag'],
            registers: [registry],
          });
          for (const { label, value } of entries) gauge.set({ tag: label }, value);
          const families = parsePrometheusText(await registry.metrics());
          expect(families.get('test_gauge')?.help).toBe(help === '' ? 'h' : help);
          for (const { label, value } of entries) {
            // The text format has no negative zero.
            const written = Object.is(value, -0) ? 0 : value;
            expect(sampleValue(families, 'test_gauge', { tag: label })).toBe(written);
          }
        },
      ),
    );
  });

  it('reads counters and histograms with their series', async () => {
    const registry = new Registry();
    new Counter({ name: 'test_total', help: 'c', registers: [registry] }).inc(3);
    new Histogram({ name: 'test_seconds', help: 'h', buckets: [1], registers: [registry] }).observe(
      0.5,
    );
    const families = parsePrometheusText(await registry.metrics());
    expect(families.get('test_total')?.type).toBe('counter');
    expect(sampleValue(families, 'test_total')).toBe(3);
    expect(sampleValue(families, 'test_seconds_bucket', { le: '1' })).toBe(1);
    expect(sampleValue(families, 'test_seconds_bucket', { le: '+Inf' })).toBe(1);
    expect(sampleValue(families, 'test_seconds_sum')).toBe(0.5);
  });

  it('refuses what is not the text format', () => {
    const bad = [
      'x 1',
      '# TYPE x counter\nx{a="1} 1\n',
      '# TYPE x counter\nx{1a="1"} 1\n',
      '# TYPE x counter\nx one\n',
      '# TYPE x counter\nx{a="1",a="2"} 1\n',
      '# TYPE x gauge\nx_bucket{le="1"} 1\n',
      '# TYPE x nonsense\n',
      '# TYPE x gauge\nx 1\n# TYPE x gauge\n',
    ];
    for (const text of bad) expect(() => parsePrometheusText(text), text).toThrow(SyntaxError);
  });
});
