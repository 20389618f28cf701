// The overview's figures as people read them: ages and success rates.

/**
 * @internal A duration as people read it, rounded down: `45 s`, `12 min`, `3 h 5 min`,
 * `2 d 4 h`.
 */
export function ageText(milliseconds: number): string {
  const seconds = Math.max(0, Math.floor(milliseconds / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
  const days = Math.floor(hours / 24);
  return hours % 24 === 0 ? `${days} d` : `${days} d ${hours % 24} h`;
}

/** @internal A success rate as people read it: `97.5 %`, or a dash without attempts. */
export function successRate(succeeded: number, attempts: number): string {
  if (attempts === 0) return '—';
  const percent = Math.floor((succeeded / attempts) * 1000) / 10;
  return `${percent} %`;
}
