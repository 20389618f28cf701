import { describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../test/support/database.js';
import {
  countSignInFailure,
  listOpenFailureWindows,
  markFailureBurstReported,
} from './sign-in-failure-store.js';

describe('sign-in failure store', () => {
  const database = useTestDatabase();
  const start = Date.parse('2026-01-01T00:00:00Z');
  const windowMs = 15 * 60_000;
  const at = (offsetMs: number) => ({
    now: new Date(start + offsetMs),
    windowStart: new Date(start + offsetMs - windowMs),
  });

  it('counts a key up to its limit and no further, until its window ends', async () => {
    const key = 'account:ada@example.com';
    const counted: boolean[] = [];
    for (let attempt = 0; attempt < 4; attempt += 1) {
      counted.push(await countSignInFailure(database(), { key, ...at(attempt * 1000), limit: 3 }));
    }
    expect(counted).toEqual([true, true, true, false]);
    // The window ends 15 minutes after its first failure: the key starts again from one.
    expect(await countSignInFailure(database(), { key, ...at(windowMs), limit: 3 })).toBe(true);
    const windows = await listOpenFailureWindows(database(), {
      keys: [key],
      windowStart: at(windowMs).windowStart,
    });
    expect(windows).toEqual([
      {
        key,
        failures: 1,
        window_started_at: expect.anything(),
      },
    ]);
    expect(new Date(windows[0]?.window_started_at ?? 0).getTime()).toBe(start + windowMs);
  });

  it('reports a burst once per window, and again in the next window', async () => {
    const key = 'address:192.0.2.1';
    for (let attempt = 0; attempt < 2; attempt += 1) {
      await countSignInFailure(database(), { key, ...at(attempt), limit: 2 });
    }
    expect(await markFailureBurstReported(database(), { key, limit: 2 })).toBe(2);
    expect(await markFailureBurstReported(database(), { key, limit: 2 })).toBeUndefined();
    await countSignInFailure(database(), { key, ...at(windowMs), limit: 2 });
    expect(await markFailureBurstReported(database(), { key, limit: 2 })).toBeUndefined();
    await countSignInFailure(database(), { key, ...at(windowMs + 1), limit: 2 });
    expect(await markFailureBurstReported(database(), { key, limit: 2 })).toBe(2);
  });
});
