import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { machineDescription, median, quantile } from './measure.mjs';

describe('median', () => {
  it('takes the middle value, or the mean of the two middle ones', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
    expect(median([])).toBeNaN();
  });

  it('lies between the smallest and the largest value and ignores their order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ noNaN: true, min: -1e9, max: 1e9 }), { minLength: 1 }),
        (values) => {
          const middle = median(values);
          expect(middle).toBeGreaterThanOrEqual(Math.min(...values));
          expect(middle).toBeLessThanOrEqual(Math.max(...values));
          expect(median([...values].reverse())).toBe(middle);
        },
      ),
    );
  });
});

describe('quantile', () => {
  it('interpolates between the values around the position', () => {
    expect(quantile([1, 2, 3, 4, 5], 0.25)).toBe(2);
    expect(quantile([4, 1, 3, 2], 0.25)).toBe(1.75);
    expect(quantile([4, 1, 3, 2], 0.75)).toBe(3.25);
    expect(quantile([4, 1, 3, 2], 0)).toBe(1);
    expect(quantile([4, 1, 3, 2], 1)).toBe(4);
    expect(quantile([], 0.5)).toBeNaN();
  });

  it('is the median at one half and rises with q between the smallest and largest value', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -1e6, max: 1e6 }), { minLength: 1 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (values, a, b) => {
          const [low, high] = a <= b ? [a, b] : [b, a];
          expect(quantile(values, 0.5)).toBe(median(values));
          expect(quantile(values, low)).toBeLessThanOrEqual(quantile(values, high));
          expect(quantile(values, low)).toBeGreaterThanOrEqual(Math.min(...values));
          expect(quantile(values, high)).toBeLessThanOrEqual(Math.max(...values));
        },
      ),
    );
  });
});

describe('machineDescription', () => {
  it('names the processors and the Node version', () => {
    expect(machineDescription()).toMatch(/^\d+ × .+, Node v\d+\.\d+\.\d+$/);
  });
});
