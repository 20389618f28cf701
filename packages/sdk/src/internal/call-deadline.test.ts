import { describe, expect, it } from 'vitest';
import { APITimeoutError, APIUserAbortError } from '../request-errors.js';
import type { BuiltRequest } from './build-request.js';
import { startDeadline } from './call-deadline.js';

function requestWith(signals: AbortSignal[]): BuiltRequest {
  return {
    method: 'GET',
    url: 'https://h/x',
    headers: {},
    body: undefined,
    timeout: 1_000,
    maxRetries: 2,
    signals,
  };
}

/** A clock with one timer, fired by hand. */
function handClock() {
  const timers: { ms: number; fire: () => void; cancelled: boolean }[] = [];
  return {
    timers,
    clock: {
      now: () => 10_000,
      setTimer(callback: () => void, ms: number) {
        const timer = { ms, fire: callback, cancelled: false };
        timers.push(timer);
        return () => {
          timer.cancelled = true;
        };
      },
    },
  };
}

describe('startDeadline', () => {
  it('refuses a call whose signal has already aborted, before any timer starts', () => {
    const controller = new AbortController();
    controller.abort(new Error('user left'));
    const { clock, timers } = handClock();
    expect(() => startDeadline(requestWith([controller.signal]), clock)).toThrow(APIUserAbortError);
    expect(timers).toHaveLength(0);
  });

  it("aborts the one signal when the clock's timer fires, and says it timed out", () => {
    const { clock, timers } = handClock();
    const deadline = startDeadline(requestWith([]), clock);
    expect(deadline.deadlineAt).toBe(11_000);
    expect(timers.map((timer) => timer.ms)).toEqual([1_000]);
    expect(deadline.stopped(undefined)).toBeUndefined();
    timers[0]?.fire();
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.stopped(undefined)).toBeInstanceOf(APITimeoutError);
    deadline.cancel();
    expect(timers[0]?.cancelled).toBe(true);
  });

  it("aborts with the caller's signal and says the caller aborted", () => {
    const controller = new AbortController();
    const { clock } = handClock();
    const deadline = startDeadline(requestWith([controller.signal]), clock);
    controller.abort(new Error('user left'));
    expect(deadline.signal.aborted).toBe(true);
    const stopped = deadline.stopped(undefined);
    expect(stopped).toBeInstanceOf(APIUserAbortError);
    expect(stopped?.cause).toEqual(new Error('user left'));
  });
});
