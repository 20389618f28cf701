/**
 * `@followup/sdk/receiver-checks`: the checks `followup verify-receiver` runs against a webhook
 * receiver (every event kind, a duplicate, bad and stale signatures, a secret rotation, each
 * scheme alone, the largest event, the answer times), for a test suite or a CI job, and the
 * pieces they are made of: a delivery signed as the server signs it, posted as the server posts
 * it. `@followup/cli` and `@followup/server/testing` run these same checks.
 *
 * A separate entry, so that the client's bundle (`@followup/sdk`) carries none of it. No `node:`
 * import: it runs wherever the SDK does.
 *
 * @example
 * ```ts
 * import { verifyReceiver } from '@followup/sdk/receiver-checks';
 *
 * const report = await verifyReceiver({ url: 'http://localhost:3000/webhooks', secret: process.env.WEBHOOK_SECRET! });
 * if (!report.ok) console.log(report.checks.filter((check) => check.status === 'fail'));
 * ```
 *
 * @packageDocumentation
 */

export {
  type DeliveryOutcome,
  delivered,
  type PostDeliveryOptions,
  postDelivery,
} from './post-delivery.js';
export type {
  ReceiverCheck,
  ReceiverCheckStatus,
  ReceiverReport,
} from './receiver-report.js';
export { type SignDeliveryOptions, type SignedDelivery, signDelivery } from './signed-delivery.js';
export { isSigningSecret, newSigningSecret } from './signing-secret.js';
export {
  SERVER_ATTEMPT_TIMEOUT_MS,
  type VerifyReceiverOptions,
  verifyReceiver,
} from './verify-receiver.js';

// Deliberately not exported: the checks one by one, their verdicts and the sample events
// (receiver-checks.ts, check-verdicts.ts, sample-events.ts). They are reached through
// verifyReceiver(), whose report names each check by a stable id; their shape may change in any
// release.
