// What every benchmark of the repository reports with: the median of a run's rounds and the
// machine it ran on. The benchmarks of the three packages import these (one copy each).
import { readFileSync } from 'node:fs';
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
 * The `q` quantile of some numbers (`q` from 0 to 1), interpolated linearly between the two
 * values around it, so that `quantile(values, 0.5)` is {@link median}'s value and the quartiles
 * (0.25 and 0.75) bound the middle half of a run's rounds. `NaN` for none.
 *
 * @param {readonly number[]} values
 * @param {number} q
 * @returns {number}
 */
export function quantile(values, q) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const below = Math.floor(position);
  const above = Math.ceil(position);
  return sorted[below] + (sorted[above] - sorted[below]) * (position - below);
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

/**
 * The CPU time a process has used so far (user and system), in microseconds, read from Linux's
 * `/proc/<pid>/stat`; `undefined` where that cannot be read (another system, a process gone).
 * The clock tick is taken as 100 a second, Linux's `USER_HZ` on every architecture it runs on.
 *
 * @param {number} pid
 * @returns {number | undefined}
 */
export function processCpuMicros(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime, fields 14 and 15 of stat (12 and 13 after the command's name).
    return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / 100;
  } catch {
    return undefined;
  }
}
