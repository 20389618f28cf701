import { SIGNATURE_HEADER, STANDARD_WEBHOOK_HEADERS } from '@followup/webhooks/web';
import { type DeliveryOutcome, delivered } from './post-delivery.js';
import type { SignedDelivery } from './signed-delivery.js';

// The verdicts of the checks of receiver-checks.ts, and the ways they spoil a delivery.

/** @internal The answer of an attempt, for a sentence. */
export function answered(outcome: DeliveryOutcome): string {
  return outcome.status === undefined ? `no answer (${outcome.error})` : `${outcome.status}`;
}

/** @internal The verdict of a delivery the receiver must take. */
export function expectTaken(outcome: DeliveryOutcome, what: string) {
  const base = { httpStatus: outcome.status ?? null, durationMs: outcome.durationMs };
  return delivered(outcome)
    ? { ...base, status: 'pass' as const, detail: `${what}: answered ${outcome.status}.` }
    : {
        ...base,
        status: 'fail' as const,
        detail: `${what}: answered ${answered(outcome)}; the server would retry it until it gives up.`,
      };
}

/** @internal The verdict of a delivery the receiver must refuse. */
export function expectRefused(outcome: DeliveryOutcome, what: string) {
  const base = { httpStatus: outcome.status ?? null, durationMs: outcome.durationMs };
  const status = outcome.status;
  if (status === undefined) {
    return { ...base, status: 'fail' as const, detail: `${what}: no answer (${outcome.error}).` };
  }
  if (status >= 400 && status < 500) {
    return { ...base, status: 'pass' as const, detail: `${what}: refused with ${status}.` };
  }
  if (status >= 200 && status < 300) {
    return {
      ...base,
      status: 'fail' as const,
      detail: `${what}: taken with ${status}; anyone could make the receiver act on it.`,
    };
  }
  return {
    ...base,
    status: 'warn' as const,
    detail: `${what}: answered ${status}; 4xx says it is refused for good, anything else is retried.`,
  };
}

/** @internal Corrupts the signatures of both schemes, keeping their form. */
export function corrupted(delivery: SignedDelivery): SignedDelivery {
  const flip = (text: string, at: number) =>
    text.slice(0, at) + (text[at] === 'a' ? 'b' : 'a') + text.slice(at + 1);
  const service = delivery.headers[SIGNATURE_HEADER] as string;
  const standard = delivery.headers[STANDARD_WEBHOOK_HEADERS.signature] as string;
  return {
    body: delivery.body,
    headers: {
      ...delivery.headers,
      [SIGNATURE_HEADER]: flip(service, service.length - 1),
      [STANDARD_WEBHOOK_HEADERS.signature]: flip(standard, 5),
    },
  };
}

/** @internal The delivery without the headers named. */
export function without(delivery: SignedDelivery, ...names: string[]): SignedDelivery {
  const headers = { ...delivery.headers };
  for (const name of names) delete headers[name];
  return { body: delivery.body, headers };
}
