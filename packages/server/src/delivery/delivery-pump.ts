/**
 * @internal What one look for work is told while it runs: whether the worker is stopping, and
 * whether an attempt ended since it last asked (its slot is free for the next due delivery).
 */
export interface Look {
  /** Whether the worker is stopping: claim nothing more. */
  stopping(): boolean;
  /**
   * Whether to claim again for attempts that ended since the last call (or since the look
   * began), given whether the last claim may have left due deliveries unclaimed; forgets them
   * when it answers yes.
   */
  takeFreedSlot(workLeft: boolean): boolean;
}

/**
 * @internal When an ended attempt's slot is filled at once: `always` (PostgreSQL), or only
 * `while-work-is-left`, when the last look left due deliveries unclaimed (PGlite); otherwise the
 * ended attempt wakes the worker like a write.
 */
export type FreedSlotPolicy = 'always' | 'while-work-is-left';

/** @internal Options of {@link createDeliveryPump}. */
export interface DeliveryPumpOptions {
  /**
   * One look: turns events into deliveries and fills the free slots. Resolves whether it may
   * have left due deliveries unclaimed (every free slot filled, or an endpoint at its limit).
   */
  fill(look: Look): Promise<boolean>;
  /**
   * After a look, how long until the next delivery is due, capped by the poll interval, given
   * whether the look may have left due deliveries unclaimed.
   */
  nextWaitMs(workLeft: boolean): Promise<number>;
  pollIntervalMs: number;
  wakeIntervalMs: number;
  /** When an ended attempt's slot is filled at once; see {@link FreedSlotPolicy}. */
  freedSlots: FreedSlotPolicy;
  onError(error: unknown): void;
}

/**
 * @internal When the worker looks for work: at start, at each wake-up (at most one look per wake
 * interval, a burst of wake-ups answered by one look), when an attempt ends, when the next
 * delivery is due, and at least every poll interval. After a look that failed, the next comes
 * with a wake-up or after a wait that grows with each failure in a row
 * ({@link FAILED_LOOK_MAX_WAIT_MS}). One look runs at a time; a wake-up during a look is
 * answered by another after it.
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

/**
 * @internal The longest wait after a look that failed (the database unreachable), when the poll
 * interval is shorter: 30 seconds. Each look that fails in a row doubles the wait from the poll
 * interval up to it, so a worker whose database is down tries a few times a minute rather than
 * every second. It comes back sooner than that: on PostgreSQL the listening connection that
 * reconnects when the database is back wakes the worker, and so does any write of this process.
 */
export const FAILED_LOOK_MAX_WAIT_MS = 30_000;

/** @internal Creates the {@link DeliveryPump} of one worker. */
export function createDeliveryPump(options: DeliveryPumpOptions): DeliveryPump {
  const { fill, nextWaitMs, pollIntervalMs, wakeIntervalMs, freedSlots, onError } = options;
  // `idle` until started: looks run only when asked (`look`, for a clock that only moves when
  // told); `stopped` once closed, started or not.
  let phase: 'idle' | 'running' | 'stopped' = 'idle';
  let timer: NodeJS.Timeout | undefined;
  let looking: Promise<void> | undefined;
  // Whether the worker was woken while it looked: once more, after the wake interval.
  let wokenDuringLook = false;
  // Whether an attempt ended while the worker looked: its slot is free for the next due one.
  let slotFreedDuringLook = false;
  // Whether the last look may have left due deliveries unclaimed: a freed slot has work.
  let workLeft = false;
  // When the last look started (the monotonic clock: the spacing of looks is about this
  // process's own work, not about the injected clock of due dates).
  let lastLookAt = Number.NEGATIVE_INFINITY;
  // How many looks in a row failed: the wait after the last one grows with it.
  let failures = 0;

  const look: Look = {
    stopping: () => phase === 'stopped',
    takeFreedSlot(workLeftNow) {
      if (!slotFreedDuringLook || !fillsAtOnce(workLeftNow)) return false;
      slotFreedDuringLook = false;
      return true;
    },
  };

  // Whether a freed slot is filled at once, given whether work may be left.
  function fillsAtOnce(workMayBeLeft: boolean): boolean {
    return freedSlots === 'always' || workMayBeLeft;
  }

  function pump(): Promise<void> {
    if (looking) {
      wokenDuringLook = true;
      return looking;
    }
    wokenDuringLook = false;
    slotFreedDuringLook = false;
    lastLookAt = performance.now();
    looking = fill(look)
      .then(async (left) => {
        workLeft = left;
        const waitMs =
          phase === 'running' && !wokenDuringLook ? await nextWaitMs(left) : pollIntervalMs;
        failures = 0;
        return waitMs;
      })
      .catch((error: unknown) => {
        workLeft = false;
        failures++;
        onError(error);
        return failedLookWaitMs();
      })
      .then((waitMs) => {
        looking = undefined;
        if (phase === 'stopped') return;
        // After a failed look, an attempt that ended (its record failed too, most likely) waits
        // for the next look like the rest; a wake-up (a write, a notification) still comes first.
        if (failures > 0) slotFreedDuringLook = false;
        const started = phase === 'running';
        const slotToFill = slotFreedDuringLook && fillsAtOnce(workLeft);
        // A freed slot with nothing known to be due is a wake-up.
        if (slotFreedDuringLook && !slotToFill) wokenDuringLook = true;
        if ((wokenDuringLook && !started) || (slotToFill && started)) {
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

  // The poll interval, doubled by each look that failed in a row after the first, up to
  // FAILED_LOOK_MAX_WAIT_MS (or the poll interval when that is longer).
  function failedLookWaitMs(): number {
    const cap = Math.max(pollIntervalMs, FAILED_LOOK_MAX_WAIT_MS);
    return Math.min(cap, pollIntervalMs * 2 ** Math.min(failures - 1, 30));
  }

  function untilNextLook(): number {
    return Math.max(0, lastLookAt + wakeIntervalMs - performance.now());
  }

  // An attempt ended. Its slot is filled at once, not after the wake interval, which is there to
  // gather a burst of writes: with a few slots per endpoint, waiting would hold each slot idle
  // for most of the interval after every attempt (measured on PostgreSQL: one endpoint's 10,000
  // webhooks took 27.3 s instead of 13.2), and a backlog would drain at the pace of the timer.
  // On PGlite a look runs in the thread that serves requests, and a look after every attempt
  // took the CPU from them while it found nothing to claim (10,000 creates with webhooks flowing
  // took 14.6 s instead of 9.3): there a slot is filled at once only while the last look left
  // due deliveries behind; otherwise the ended attempt wakes the worker like a write.
  function slotFreed(): void {
    if (phase === 'stopped') return;
    if (looking) {
      // Whether it is filled at once is decided when the look knows what it left.
      slotFreedDuringLook = true;
      return;
    }
    // While looks fail (the database is down), not a look per ended attempt: the backoff's.
    if (failures > 0) return;
    if (!fillsAtOnce(workLeft)) {
      wake();
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
