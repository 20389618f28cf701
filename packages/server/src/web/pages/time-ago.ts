/**
 * @internal How long ago `then` was at `now`, in words: `just now` (under a minute), `1 minute
 * ago`, `5 hours ago`, `3 days ago` (whole units, rounded down); a time in the future (another
 * clock) reads `just now`.
 *
 * @example
 * ```ts
 * timeAgo('2026-03-01T07:00:00Z', Date.parse('2026-03-01T09:30:00Z')); // '2 hours ago'
 * ```
 */
export function timeAgo(then: string, now: number): string {
  const seconds = Math.floor((now - Date.parse(then)) / 1000);
  if (!Number.isFinite(seconds) || seconds < 60) return 'just now';
  const [count, unit] =
    seconds < 3_600
      ? [Math.floor(seconds / 60), 'minute']
      : seconds < 86_400
        ? [Math.floor(seconds / 3_600), 'hour']
        : [Math.floor(seconds / 86_400), 'day'];
  return `${count} ${unit}${count === 1 ? '' : 's'} ago`;
}
