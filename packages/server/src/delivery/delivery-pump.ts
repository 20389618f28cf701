/**
 * @internal What one look for work is told while it runs: whether the worker is stopping, and
 * whether an attempt ended since it last asked (its slot is free for the next due delivery).
 */
export interface Look {
  /** Whether the worker is stopping: claim nothing more. */
  stopping(): boolean;
  /** Whether an attempt ended since the last call (or since the look began); forgets it. */
  takeFreedSlot(): boolean;
}

/** @internal Options of {@link createDeliveryPump}. */
export interface DeliveryPumpOptions {
  /** One look: turns events into deliveries and fills the free slots. */
  fill(look: Look): Promise<void>;
  /** After a look, how long until the next delivery is due, capped by the poll interval. */
  nextWaitMs(): Promise<number>;
  pollIntervalMs: number;
  wakeIntervalMs: number;
  /** Whether an ended attempt's slot is filled at once, rather than as a wake-up (PostgreSQL). */
  fillsFreedSlotsAtOnce: boolean;
  onError(error: unknown): void;
}

/**
 * @internal When the worker looks for work: at start, at each wake-up (at most one look per wake
 * interval, a burst of wake-ups answered by one look), when an attempt ends, when the next
 * delivery is due, and at least every poll interval. One look runs at a time; a wake-up during a
 * look is answered by another after it.
 */
export interface DeliveryPump {
  /**
   * Starts looking, now and on the schedule above; `starting` runs first (once: a started or
   * stopped pump starts no more).
   */
  start(starting: () => void): void;
  /** Asks for a look (after a write, or a notification from another instance). */
  wake(): void;
  /** Looks once now, or joins the look under way; resolves when it is done. */
  look(): Promise<void>;
  /** An attempt ended: its slot is free. */
  attemptEnded(): void;
  /** Stops looking; the look under way, if any, is left to end. */
  stop(): void;
  /** Resolves when the look under way, if any, is done. */
  current(): Promise<void>;
  /** Whether the worker was stopped. */
  stopped(): boolean;
}

/** @internal Creates the {@link DeliveryPump} of one worker. */
export function createDeliveryPump(options: DeliveryPumpOptions): DeliveryPump {
  const { fill, nextWaitMs, pollIntervalMs, wakeIntervalMs, fillsFreedSlotsAtOnce, onError } =
    options;
  // `idle` until started: looks run only when asked (`look`, for a clock that only moves when
  // told); `stopped` once closed, started or not.
  let phase: 'idle' | 'running' | 'stopped' = 'idle';
  let timer: NodeJS.Timeout | undefined;
  let looking: Promise<void> | undefined;
  // Whether the worker was woken while it looked: once more, after the wake interval.
  let wokenDuringLook = false;
  // Whether an attempt ended while the worker looked: its slot is free for the next due one.
  let slotFreedDuringLook = false;
  // When the last look started (the monotonic clock: the spacing of looks is about this
  // process's own work, not about the injected clock of due dates).
  let lastLookAt = Number.NEGATIVE_INFINITY;

  const look: Look = {
    stopping: () => phase === 'stopped',
    takeFreedSlot() {
      const freed = slotFreedDuringLook;
      slotFreedDuringLook = false;
      return freed;
    },
  };

  function pump(): Promise<void> {
    if (looking) {
      wokenDuringLook = true;
      return looking;
    }
    wokenDuringLook = false;
    slotFreedDuringLook = false;
    lastLookAt = performance.now();
    looking = fill(look)
      .then(async () => (phase === 'running' && !wokenDuringLook ? nextWaitMs() : pollIntervalMs))
      .catch((error: unknown) => {
        onError(error);
        return pollIntervalMs;
      })
      .then((waitMs) => {
        looking = undefined;
        if (phase === 'stopped') return;
        const started = phase === 'running';
        if ((wokenDuringLook && !started) || (slotFreedDuringLook && started)) {
          // An attempt ended after this look's last claim: fill its slot now.
          void pump();
        } else if (started) {
          clearTimeout(timer);
          // Woken while it looked: once more, after the wake interval.
          timer = setTimeout(wake, wokenDuringLook ? untilNextLook() : waitMs);
          timer.unref?.();
        }
      });
    return looking;
  }

  function untilNextLook(): number {
    return Math.max(0, lastLookAt + wakeIntervalMs - performance.now());
  }

  // An attempt ended. On PostgreSQL its slot is filled at once, not after the wake interval,
  // which is there to gather a burst of writes: with a few slots per endpoint, waiting would
  // hold each slot idle for most of the interval after every attempt (measured: one endpoint's
  // 10,000 webhooks took 27.3 s instead of 13.2). On PGlite a look runs in the thread that
  // serves requests, and a look per attempt took the CPU from them (10,000 creates with
  // webhooks flowing took 14.6 s instead of 9.3, with no webhook sooner): there the ended attempt
  // wakes the worker like a write.
  function slotFreed(): void {
    if (!fillsFreedSlotsAtOnce) {
      wake();
      return;
    }
    if (phase === 'stopped') return;
    if (looking) {
      slotFreedDuringLook = true;
      return;
    }
    clearTimeout(timer);
    void pump();
  }

  function wake(): void {
    if (phase !== 'running') return;
    if (looking) {
      wokenDuringLook = true;
      return;
    }
    clearTimeout(timer);
    const waitMs = untilNextLook();
    if (waitMs === 0) {
      void pump();
      return;
    }
    // Right after a look: the next one takes this wake-up's events with those that follow.
    timer = setTimeout(wake, waitMs);
    timer.unref?.();
  }

  return {
    start(starting) {
      if (phase !== 'idle') return;
      phase = 'running';
      starting();
      void pump();
    },
    wake,
    look: pump,
    attemptEnded() {
      if (phase === 'running') slotFreed();
    },
    stop() {
      phase = 'stopped';
      clearTimeout(timer);
    },
    async current() {
      await looking;
    },
    stopped: () => phase === 'stopped',
  };
}
