import type { WebhookEvent } from '@followup/sdk';
import {
  type DeliveryOutcome,
  delivered,
  postDelivery,
  signDelivery,
} from '@followup/sdk/receiver-checks';
import type { CliClock } from './cli-io.js';
import { forwardedDeliveryId } from './forwarded-delivery.js';

/** @internal One attempt to forward an event, as `listen` prints it. */
export interface ForwardedAttempt extends DeliveryOutcome {
  /** When the attempt started, ISO 8601 UTC. */
  time: string;
  kind: string;
  eventId: string;
  deliveryId: string;
  /** 1 for the first attempt. */
  attempt: number;
  /** The wait before the next attempt, in milliseconds; `undefined` when there is none. */
  nextRetryMs: number | undefined;
}

/** @internal Options of {@link createEventForwarder}. */
export interface EventForwarderOptions {
  url: URL;
  secret: string;
  /** Seconds before each retry of a failed attempt (the server's schedule by default). */
  retryDelaysSeconds: readonly number[];
  timeoutMs: number;
  fetch: typeof fetch;
  clock: CliClock;
  /** Stops attempts in flight and every pending retry. */
  signal: AbortSignal;
  /** Told of every attempt. */
  onAttempt(attempt: ForwardedAttempt): void;
}

/** @internal See {@link createEventForwarder}. */
export interface EventForwarder {
  /** The first attempt of `event`; a failure schedules its retries, which run on their own. */
  forward(event: WebhookEvent): Promise<void>;
  /** The events whose retries are still pending, or were when the signal stopped them. */
  pending(): string[];
}

/**
 * @internal Forwards events to the receiver as the server delivers them: each attempt signed
 * anew for its time, the same delivery id on every attempt, a 2xx delivered, anything else
 * retried on the schedule (without the server's jitter: one listener has no crowd of retries to
 * spread) until it is spent. The first attempts keep the feed's order; retries run beside them,
 * as the server's do.
 */
export function createEventForwarder(options: EventForwarderOptions): EventForwarder {
  const retries = new Set<string>();

  async function attempt(event: WebhookEvent, number: number): Promise<boolean> {
    const timestamp = Math.floor(options.clock.now() / 1000);
    const time = new Date(options.clock.now()).toISOString();
    const delivery = await signDelivery(event, {
      secrets: [options.secret],
      timestamp,
      deliveryId: forwardedDeliveryId(event.id),
    });
    const outcome = await postDelivery(options.url, delivery, {
      fetch: options.fetch,
      now: () => options.clock.now(),
      timeoutMs: options.timeoutMs,
      signal: options.signal,
    });
    const ok = delivered(outcome);
    const delay = ok ? undefined : options.retryDelaysSeconds[number - 1];
    if (options.signal.aborted && outcome.error === 'aborted') return true;
    options.onAttempt({
      ...outcome,
      time,
      kind: String(event.event),
      eventId: event.id,
      deliveryId: forwardedDeliveryId(event.id),
      attempt: number,
      nextRetryMs: delay === undefined ? undefined : delay * 1000,
    });
    return ok || delay === undefined;
  }

  async function retry(event: WebhookEvent): Promise<void> {
    for (let number = 2; !options.signal.aborted; number++) {
      const delay = options.retryDelaysSeconds[number - 2] as number;
      await options.clock.sleep(delay * 1000, options.signal);
      if (options.signal.aborted || (await attempt(event, number))) return;
    }
  }

  return {
    async forward(event) {
      if (await attempt(event, 1)) return;
      // A retry the signal stopped stays listed: `listen` names it as dropped.
      retries.add(event.id);
      void retry(event).then(() => {
        if (!options.signal.aborted) retries.delete(event.id);
      });
    },
    pending: () => [...retries],
  };
}
