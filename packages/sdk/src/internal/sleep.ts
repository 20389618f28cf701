import type { Clock } from '../client-options.js';

/** The runtime's own clock: `Date.now` and `setTimeout`. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer: (callback, ms) => {
    const timer = setTimeout(callback, ms);
    return () => clearTimeout(timer);
  },
};

/**
 * A sleep on `clock`'s timers: waits `ms` milliseconds, or rejects with the signal's reason as
 * soon as it aborts (the timer is cancelled, so nothing is left running).
 */
export function clockSleep(clock: Clock): (ms: number, signal: AbortSignal) => Promise<void> {
  return (ms, signal) =>
    new Promise((resolve, reject) => {
      if (signal.aborted) {
        reject(signal.reason);
        return;
      }
      const onAbort = () => {
        cancel();
        reject(signal.reason);
      };
      const cancel = clock.setTimer(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal.addEventListener('abort', onAbort, { once: true });
    });
}

/**
 * Settles like `promise`, but rejects with the signal's reason as soon as the signal aborts, even
 * if `promise` ignores the signal (an injected sleep, a custom fetch).
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
