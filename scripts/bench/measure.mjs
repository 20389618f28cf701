// What every benchmark of the repository reports with: the median of a run's rounds and the
// machine it ran on. The benchmarks of the three packages import these (one copy each).
import { cpus } from 'node:os';

/**
 * The median of some numbers: the middle one, or the mean of the two middle ones for an even
 * count. `NaN` for none.
 *
 * @param {readonly number[]} values
 * @returns {number}
 */
export function median(values) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * The machine a benchmark ran on, for its results: `2 × AMD EPYC 7B13, Node v24.11.0`.
 *
 * @returns {string}
 */
export function machineDescription() {
  const processors = cpus();
  const model = processors[0]?.model.trim() || 'unknown CPU';
  return `${processors.length} × ${model}, Node ${process.version}`;
}
