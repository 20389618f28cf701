import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createDeliveryPump,
  FAILED_LOOK_MAX_WAIT_MS,
  type FreedSlotPolicy,
} from './delivery-pump.js';

// The pump alone, with a stand-in for the worker's look. Timers and the monotonic clock are fake
// and never advanced unless a test says so: a look that happens without it needed no timer.

/** Lets every promise and I/O callback that is ready run, without moving the fake timers. */
async function settle(): Promise<void> {
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
}

describe('the delivery pump', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A pump whose looks answer `workLeft` in turn (the last repeats), counted. */
  function pumpWith(freedSlots: FreedSlotPolicy, workLeft: boolean[]) {
    let looks = 0;
    const pump = createDeliveryPump({
      async fill() {
        looks++;
        return workLeft[Math.min(looks, workLeft.length) - 1] ?? false;
      },
      // Neither the poll nor the wake interval comes within the hour.
      nextWaitMs: async () => 3_600_000,
      pollIntervalMs: 3_600_000,
      wakeIntervalMs: 3_600_000,
      freedSlots,
      onError: (error) => {
        throw error;
      },
    });
    return { pump, looks: () => looks };
  }

  it.each<FreedSlotPolicy>(['always', 'while-work-is-left'])(
    'fills a freed slot at once while due work is left (%s), with no timer',
    async (policy) => {
      const { pump, looks } = pumpWith(policy, [true, true, false]);
      pump.start(() => {});
      await settle();
      expect(looks()).toBe(1);
      pump.attemptEnded();
      await settle();
      expect(looks()).toBe(2);
      pump.attemptEnded();
      await settle();
      expect(looks()).toBe(3);
      pump.stop();
    },
  );

  it('fills a slot freed during a look right after it while work is left, with no timer', async () => {
    let finishLook: (workLeft: boolean) => void = () => {};
    let looks = 0;
    const pump = createDeliveryPump({
      fill: () => {
        looks++;
        return new Promise<boolean>((resolve) => {
          finishLook = resolve;
        });
      },
      nextWaitMs: async () => 3_600_000,
      pollIntervalMs: 3_600_000,
      wakeIntervalMs: 3_600_000,
      freedSlots: 'while-work-is-left',
      onError: (error) => {
        throw error;
      },
    });
    pump.start(() => {});
    pump.attemptEnded();
    finishLook(true);
    await settle();
    expect(looks).toBe(2);
    // The same, after a look that left nothing: a wake-up, answered after the wake interval.
    pump.attemptEnded();
    finishLook(false);
    await settle();
    expect(looks).toBe(2);
    pump.stop();
  });

  it('on PGlite, takes a freed slot for a wake-up when the last look left nothing due', async () => {
    const { pump, looks } = pumpWith('while-work-is-left', [false]);
    pump.start(() => {});
    await settle();
    expect(looks()).toBe(1);
    pump.attemptEnded();
    await settle();
    // A look per ended attempt would take the request thread's time for nothing: the next look
    // comes with the wake interval (an hour here).
    expect(looks()).toBe(1);
    await vi.advanceTimersByTimeAsync(3_600_000);
    expect(looks()).toBe(2);
    pump.stop();
  });

  it('on PostgreSQL, fills a freed slot at once even when the last look left nothing due', async () => {
    const { pump, looks } = pumpWith('always', [false]);
    pump.start(() => {});
    await settle();
    pump.attemptEnded();
    await settle();
    expect(looks()).toBe(2);
    pump.stop();
  });
});

describe('the delivery pump while its looks fail', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('waits longer after each failed look, up to a cap, ignores ended attempts meanwhile, and recovers at a wake-up', async () => {
    const pollIntervalMs = 1_000;
    const state = { down: true };
    const looksAt: number[] = [];
    const errors: unknown[] = [];
    const pump = createDeliveryPump({
      async fill() {
        looksAt.push(performance.now());
        if (state.down) throw Object.assign(new Error('refused'), { code: 'ECONNREFUSED' });
        return false;
      },
      nextWaitMs: async () => pollIntervalMs,
      pollIntervalMs,
      wakeIntervalMs: 10,
      freedSlots: 'always',
      onError: (error) => errors.push(error),
    });
    pump.start(() => {});
    await settle();
    // Ten minutes of a database that is down, not a look a second.
    await vi.advanceTimersByTimeAsync(600_000);
    const waits = looksAt.slice(1).map((at, index) => at - (looksAt[index] ?? 0));
    expect(waits.slice(0, 7)).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]);
    expect(Math.max(...waits)).toBe(FAILED_LOOK_MAX_WAIT_MS);
    expect(errors).toHaveLength(looksAt.length);
    // An attempt that ends meanwhile (its record failed too) starts no look of its own.
    const looksSoFar = looksAt.length;
    pump.attemptEnded();
    await settle();
    expect(looksAt).toHaveLength(looksSoFar);
    // The database is back and a notification wakes the worker: it looks at once, and from then
    // on at the poll interval again.
    state.down = false;
    pump.wake();
    await settle();
    expect(looksAt).toHaveLength(looksSoFar + 1);
    await vi.advanceTimersByTimeAsync(pollIntervalMs);
    expect(looksAt).toHaveLength(looksSoFar + 2);
    pump.stop();
  });
});
