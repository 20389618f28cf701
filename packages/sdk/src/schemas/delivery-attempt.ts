import { z } from 'zod';

/**
 * Schema of one attempt at delivering a webhook, as `GET /api/deliveries/:id/attempts` lists it
 * (the server checks its answers against it).
 *
 * @example
 * ```ts
 * const attempt = deliveryAttemptSchema.parse(json.attempts[0]);
 * ```
 */
export const deliveryAttemptSchema = z.object({
  /** When the attempt started (ISO 8601 UTC). */
  startedAt: z.string(),
  /** How long it took, in milliseconds, until the answer or the error. */
  durationMs: z.number().int(),
  /** The subscriber's HTTP status, or `null` when it did not answer. */
  status: z.number().int().nullable().describe("The subscriber's HTTP status, when it answered"),
  /** Why there was no answer (`timeout`, `ECONNREFUSED`, …), or `null` when there was one. */
  error: z.string().nullable().describe('Why it got no answer: timeout, ECONNREFUSED, …'),
  /** The first 4 KiB of the subscriber's answer as UTF-8, or `null` without an answer. */
  responseBody: z
    .string()
    .nullable()
    .describe("The first 4 KiB of the subscriber's answer, as UTF-8"),
});

/**
 * One attempt at delivering a webhook: `startedAt, durationMs, status, error, responseBody`.
 *
 * @example
 * ```ts
 * for (const attempt of await client.deliveries.attempts(deliveryId)) {
 *   console.log(attempt.startedAt, attempt.status ?? attempt.error, `${attempt.durationMs} ms`);
 * }
 * ```
 */
export type DeliveryAttempt = z.infer<typeof deliveryAttemptSchema>;

/**
 * Schema of the body of `GET /api/deliveries/:id/attempts`: `{ "attempts": [...] }`, oldest
 * first.
 *
 * @example
 * ```ts
 * const { attempts } = deliveryAttemptListSchema.parse(json);
 * ```
 */
export const deliveryAttemptListSchema = z.object({
  /** Every attempt of the delivery, oldest first. */
  attempts: z.array(deliveryAttemptSchema),
});

/**
 * The body of `GET /api/deliveries/:id/attempts`.
 *
 * @example
 * ```ts
 * const body: DeliveryAttemptList = { attempts: [] };
 * ```
 */
export type DeliveryAttemptList = z.infer<typeof deliveryAttemptListSchema>;
