/** @internal The seconds in each unit a duration may be written in. */
export const DURATION_UNIT_SECONDS = { s: 1, m: 60, h: 3_600, d: 86_400 } as const;
const units = DURATION_UNIT_SECONDS;

const durationPattern = /^(0|[1-9][0-9]{0,8})(s|m|h|d)$/;

/**
 * Reads a duration such as `90s`, `30m`, `24h` or `7d` as whole seconds: digits without a sign,
 * a leading zero (other than `0` itself), spaces, a fraction or an exponent, then exactly one
 * unit letter (`s`, `m`, `h`, `d`, lower case). Anything else, and anything over `max` seconds,
 * is `undefined`, never a guess.
 *
 * @example
 * ```ts
 * parseDuration('24h'); // 86400
 * parseDuration('90s'); // 90
 * parseDuration('1.5h'); // undefined
 * ```
 */
export function parseDuration(text: string, options: { max?: number } = {}): number | undefined {
  const match = durationPattern.exec(text);
  if (!match) return undefined;
  const seconds = Number(match[1]) * units[match[2] as keyof typeof units];
  const max = options.max ?? Number.MAX_SAFE_INTEGER;
  return seconds <= max ? seconds : undefined;
}

/**
 * Writes whole seconds as the shortest exact duration {@link parseDuration} reads back
 * (`86400` is `1d`, `5400` is `90m`).
 *
 * @example
 * ```ts
 * formatDuration(86_400); // '1d'
 * ```
 */
export function formatDuration(seconds: number): string {
  for (const unit of ['d', 'h', 'm'] as const) {
    if (seconds !== 0 && seconds % units[unit] === 0) return `${seconds / units[unit]}${unit}`;
  }
  return `${seconds}s`;
}
