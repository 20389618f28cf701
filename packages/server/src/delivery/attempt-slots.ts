/**
 * @internal The attempts one worker has in flight: at most `concurrency` in all and, as the
 * claim counts them, at most `endpointConcurrency` per endpoint, so that one slow subscriber
 * cannot take every slot.
 */
export interface AttemptSlots {
  /** How many more attempts may start now. */
  free(): number;
  /** Whether every slot is taken. */
  full(): boolean;
  /** The endpoints with attempts in flight, and how many each has (in the same order). */
  busy(): { endpoints: string[]; counts: number[] };
  /** The endpoints whose every slot is taken: an attempt that ends wakes the worker for them. */
  saturated(): string[];
  /** Runs an attempt to `endpointId` in a slot; `ended` is told once it has left it. */
  run(endpointId: string, attempt: () => Promise<void>, ended: () => void): void;
  /** Resolves when the attempts in flight now have ended. */
  settled(): Promise<void>;
}

/** @internal Creates the {@link AttemptSlots} of one worker. */
export function createAttemptSlots(limits: {
  concurrency: number;
  endpointConcurrency: number;
}): AttemptSlots {
  const { concurrency, endpointConcurrency } = limits;
  const inFlight = new Set<Promise<void>>();
  // This worker's attempts in flight, per endpoint.
  const inFlightByEndpoint = new Map<string, number>();
  return {
    free: () => concurrency - inFlight.size,
    full: () => inFlight.size >= concurrency,
    busy() {
      const endpoints = [...inFlightByEndpoint.keys()];
      return { endpoints, counts: endpoints.map((id) => inFlightByEndpoint.get(id) ?? 0) };
    },
    saturated: () =>
      [...inFlightByEndpoint].filter(([, count]) => count >= endpointConcurrency).map(([id]) => id),
    run(endpointId, attempt, ended) {
      inFlightByEndpoint.set(endpointId, (inFlightByEndpoint.get(endpointId) ?? 0) + 1);
      const running: Promise<void> = attempt().finally(() => {
        const left = (inFlightByEndpoint.get(endpointId) ?? 1) - 1;
        if (left === 0) inFlightByEndpoint.delete(endpointId);
        else inFlightByEndpoint.set(endpointId, left);
        inFlight.delete(running);
        ended();
      });
      inFlight.add(running);
    },
    async settled() {
      await Promise.all([...inFlight]);
    },
  };
}
