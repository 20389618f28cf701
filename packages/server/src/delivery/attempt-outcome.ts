import { INSECURE_ENDPOINT_REFUSED, PRIVATE_ADDRESS_REFUSED } from './endpoint-address.js';
import type { DeliveryAttemptResult } from './post-delivery.js';

/**
 * How one delivery attempt ended, as `followup_webhook_attempts_total{outcome}` counts it:
 * `success` (a 2xx answer), `http_error` (any other answer), `timeout` (no answer within the
 * attempt timeout), `refused` (not sent: the address is private or the endpoint would carry the
 * event in clear where that is not allowed, or its URL is not valid) and `network_error` (no
 * answer for any other reason: refused or dropped connection, name not resolved, TLS failure).
 */
export type WebhookAttemptOutcome =
  | 'success'
  | 'http_error'
  | 'timeout'
  | 'network_error'
  | 'refused';

/** Every {@link WebhookAttemptOutcome}, in the order the metrics list them. */
export const WEBHOOK_ATTEMPT_OUTCOMES: readonly WebhookAttemptOutcome[] = [
  'success',
  'http_error',
  'timeout',
  'network_error',
  'refused',
];

// The error codes of attempts the server itself would not send.
const refusals = new Set([
  PRIVATE_ADDRESS_REFUSED,
  INSECURE_ENDPOINT_REFUSED,
  'invalid_endpoint_url',
]);

/** @internal The {@link WebhookAttemptOutcome} of an attempt's result. */
export function attemptOutcome(result: DeliveryAttemptResult): WebhookAttemptOutcome {
  if (result.outcome === 'delivered') return 'success';
  if (result.status !== undefined) return 'http_error';
  if (result.error === 'timeout') return 'timeout';
  if (result.error !== undefined && refusals.has(result.error)) return 'refused';
  return 'network_error';
}

/** What the delivery worker tells its `onAttempt` observer after each attempt. */
export interface DeliveryAttemptObservation {
  /** How the attempt ended. */
  readonly outcome: WebhookAttemptOutcome;
  /**
   * For a success, the milliseconds from the event's commit (its `createdAt`, on the worker's
   * clock) to the end of this attempt: the delivery's first success, since a delivered delivery
   * is never attempted again.
   */
  readonly deliveredAfterMs?: number;
}
