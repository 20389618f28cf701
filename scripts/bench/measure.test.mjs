import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { machineDescription, median } from './measure.mjs';

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

describe('machineDescription', () => {
  it('names the processors and the Node version', () => {
    expect(machineDescription()).toMatch(/^\d+ × .+, Node v\d+\.\d+\.\d+$/);
  });
});
