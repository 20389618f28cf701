import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { timeAgo } from './time-ago.js';

describe('timeAgo', () => {
  const now = Date.parse('2026-03-01T09:00:00Z');

  it('says minutes, hours and days in whole units', () => {
    expect(timeAgo('2026-03-01T08:59:30Z', now)).toBe('just now');
    expect(timeAgo('2026-03-01T08:59:00Z', now)).toBe('1 minute ago');
    expect(timeAgo('2026-03-01T08:01:00Z', now)).toBe('59 minutes ago');
    expect(timeAgo('2026-03-01T07:00:00Z', now)).toBe('2 hours ago');
    expect(timeAgo('2026-02-28T09:00:00Z', now)).toBe('1 day ago');
    expect(timeAgo('2026-02-20T08:00:00Z', now)).toBe('9 days ago');
  });

  it('reads a future time or an unreadable one as just now', () => {
    expect(timeAgo('2026-03-01T10:00:00Z', now)).toBe('just now');
    expect(timeAgo('not a time', now)).toBe('just now');
  });

  it('says a whole number of the largest unit that fits, never zero', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 * 365 * 86_400_000 }), (elapsed) => {
        const text = timeAgo(new Date(now - elapsed).toISOString(), now);
        if (elapsed < 60_000) {
          expect(text).toBe('just now');
          return;
        }
        const [, count, unit] = /^(\d+) (minute|hour|day)s? ago$/.exec(text) ?? [];
        const size = { minute: 60_000, hour: 3_600_000, day: 86_400_000 }[unit as 'minute'];
        expect(Number(count)).toBeGreaterThanOrEqual(1);
        expect(Number(count)).toBe(Math.floor(elapsed / size));
      }),
    );
  });
});
