import { z } from 'zod';
import { WEBHOOK_EVENT_KINDS, type WebhookEventKind } from '../wire/event-kinds.js';
import { WEBHOOK_ENDPOINT_LIMITS as LIMITS } from '../wire/limits.js';
import { isReservedWebhookHeader } from '../wire/webhook-headers.js';
import { boundedText } from './input-limits.js';

// What a request may write on a webhook endpoint (POST and PATCH /api/webhook-endpoints): each
// field with the bounds of WEBHOOK_ENDPOINT_LIMITS, refused with 400 validation_failed naming it.

// An HTTP field name (RFC 9110's `token`) and a value of visible ASCII, spaces and tabs: no CR or
// LF, which would end the header, and nothing a receiving server might decode another way.
const headerNamePattern = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const headerValuePattern = /^[\t\x20-\x7e]*$/;

/**
 * Why a static header's name may not be used, as a predicate, or `undefined` when it may: an
 * HTTP field name of 1 to 100 characters that FollowUp does not set itself (see
 * {@link isReservedWebhookHeader}).
 *
 * @example
 * ```ts
 * webhookHeaderNameRefusal('X-Tenant'); // undefined
 * webhookHeaderNameRefusal('webhook-id'); // 'is set by FollowUp on every delivery…'
 * ```
 */
export function webhookHeaderNameRefusal(name: string): string | undefined {
  if (name.length === 0 || name.length > LIMITS.headerName || !headerNamePattern.test(name)) {
    return `must be a header name of 1 to ${LIMITS.headerName} letters, digits and !#$%&'*+-.^_\`|~`;
  }
  if (isReservedWebhookHeader(name)) {
    return 'is set by FollowUp on every delivery (signature, ids, event, content type, webhook-*) and cannot be replaced';
  }
  return undefined;
}

/**
 * Why a static header's value may not be used, as a predicate, or `undefined` when it may: at
 * most 1,000 characters of visible ASCII, spaces and tabs (no line break).
 *
 * @example
 * ```ts
 * webhookHeaderValueRefusal('Bearer abc'); // undefined
 * webhookHeaderValueRefusal('a\r\nb'); // 'must be at most 1000 characters…'
 * ```
 */
export function webhookHeaderValueRefusal(value: string): string | undefined {
  return value.length <= LIMITS.headerValue && headerValuePattern.test(value)
    ? undefined
    : `must be at most ${LIMITS.headerValue} characters of visible ASCII, spaces and tabs, with no line break`;
}

/**
 * Schema of an endpoint's static headers: at most 10, each name and value accepted by
 * {@link webhookHeaderNameRefusal} and {@link webhookHeaderValueRefusal}, no name twice in any
 * case.
 *
 * @example
 * ```ts
 * webhookHeadersInputSchema.parse({ 'X-Tenant': 'north' });
 * ```
 */
export const webhookHeadersInputSchema = z
  .record(z.string(), z.string())
  .superRefine((headers, context) => {
    const names = Object.keys(headers);
    if (names.length > LIMITS.headers) {
      context.addIssue({
        code: 'custom',
        message: `must have at most ${LIMITS.headers} headers`,
        input: headers,
      });
      return;
    }
    const seen = new Set<string>();
    for (const name of names) {
      const refusal =
        webhookHeaderNameRefusal(name) ??
        (seen.has(name.toLowerCase()) ? 'is given twice (header names ignore case)' : undefined) ??
        webhookHeaderValueRefusal(String(headers[name]));
      seen.add(name.toLowerCase());
      if (refusal !== undefined) {
        context.addIssue({ code: 'custom', message: refusal, path: [name], input: headers[name] });
      }
    }
  })
  .meta({
    description: `Up to ${LIMITS.headers} static headers sent with each delivery; not the signature, id, event, content-type or webhook-* headers`,
  });

const subscriberPattern = /^[a-z0-9_-]+$/;

/** Schema of a subscriber key: 1 to 64 of `a-z`, `0-9`, `_`, `-`. */
export const subscriberKeySchema = z
  .string()
  .min(1)
  .max(LIMITS.subscriber)
  .regex(subscriberPattern, 'must be 1 to 64 of a-z, 0-9, _ and -')
  .describe('The subscriber (a customer, a partner, a team) the endpoint belongs to');

// Typed as plain unions (not zod's enum objects) so that the generated reference shows them so.
const eventKindOrAll: z.ZodType<'*' | WebhookEventKind, '*' | WebhookEventKind> = z.enum([
  '*',
  ...WEBHOOK_EVENT_KINDS,
]);
const payloadKind: z.ZodType<'full' | 'thin', 'full' | 'thin'> = z.enum(['full', 'thin']);
const settableState: z.ZodType<'active' | 'disabled', 'active' | 'disabled'> = z.enum([
  'active',
  'disabled',
]);

/** `*` (every kind, later ones included) or the kinds an endpoint takes. */
const eventsSchema = z
  .array(eventKindOrAll)
  .min(1)
  .max(WEBHOOK_EVENT_KINDS.length + 1)
  .describe('The event kinds it takes, or ["*"] (the default): every kind, later ones included');

/** The fields a create and an update share. */
const endpointFields = {
  /** The event kinds it takes, or `['*']` (the default): every kind, later ones included. */
  events: eventsSchema.optional(),
  /** What it is for (at most 500 characters), or `null`. */
  description: boundedText({ max: LIMITS.description }).nullable().optional(),
  /** The subscriber it belongs to (1 to 64 of `a-z0-9_-`), or `null`. */
  subscriber: subscriberKeySchema.nullable().optional(),
  /**
   * Up to 10 static headers sent with each delivery, beside the signed ones, which they cannot
   * replace.
   */
  headers: webhookHeadersInputSchema.optional(),
  /**
   * At most this many deliveries per second, 1 to 1,000, from every server instance together,
   * with a burst of twice that; those over it wait. `null`: no limit.
   */
  rateLimit: z
    .number()
    .int()
    .min(LIMITS.minRateLimit)
    .max(LIMITS.maxRateLimit)
    .nullable()
    .optional()
    .describe('At most this many deliveries per second (1 to 1,000), or null for no limit'),
  /** How long one attempt may take, 1 to 30 seconds, default 15; then it fails as a timeout. */
  timeoutSeconds: z
    .number()
    .int()
    .min(LIMITS.minTimeoutSeconds)
    .max(LIMITS.maxTimeoutSeconds)
    .optional()
    .describe('How long one attempt may take, 1 to 30 seconds (default 15)'),
  /**
   * `full` (the default): the event in each body; `thin`: `{id, event, createdAt, eventId,
   * data: {id, object}}`, no field value (see `thinWebhookEventSchema`). Deliveries queued from
   * then on carry it.
   */
  payload: payloadKind.optional().describe('full (default): the event in the body; thin: ids only'),
};

/**
 * Schema of the body of `POST /api/webhook-endpoints`: `url` and, optionally, `events`,
 * `description`, `subscriber`, `headers`, `rateLimit`, `timeoutSeconds`, `payload`.
 *
 * @example
 * ```ts
 * createWebhookEndpointInputSchema.parse({ url: 'https://hooks.example.com/followup' });
 * ```
 */
export const createWebhookEndpointInputSchema = z.strictObject({
  /** Where deliveries go: `http` or `https`, a host, no user name or password, 2,048 at most. */
  url: boundedText({ min: 1, max: LIMITS.url }).describe(
    'http or https, with a host and no user name or password',
  ),
  ...endpointFields,
});

/**
 * What `client.webhookEndpoints.create()` sends.
 *
 * @example
 * ```ts
 * const input: CreateWebhookEndpointInput = {
 *   url: 'https://hooks.example.com/followup',
 *   events: ['contact.created'],
 * };
 * ```
 */
export type CreateWebhookEndpointInput = z.input<typeof createWebhookEndpointInputSchema>;

/**
 * Schema of the body of `PATCH /api/webhook-endpoints/{id}`: any of the create's fields, and
 * `state` (`active` enables, `disabled` disables).
 *
 * @example
 * ```ts
 * updateWebhookEndpointInputSchema.parse({ state: 'disabled' });
 * ```
 */
export const updateWebhookEndpointInputSchema = z.strictObject({
  /** A new URL, checked as at creation. */
  url: boundedText({ min: 1, max: LIMITS.url }).optional(),
  ...endpointFields,
  /** `disabled` stops deliveries (they wait); `active` delivers again. */
  state: settableState
    .optional()
    .describe('disabled stops deliveries (they wait); active delivers again'),
});

/**
 * What `client.webhookEndpoints.update()` sends.
 *
 * @example
 * ```ts
 * const change: UpdateWebhookEndpointInput = { state: 'active', rateLimit: 50 };
 * ```
 */
export type UpdateWebhookEndpointInput = z.input<typeof updateWebhookEndpointInputSchema>;

/**
 * Schema of the body of `POST /api/webhook-endpoints/{id}/rotate-secret`: `overlapSeconds`, how
 * long the previous secret keeps signing beside the new one (0 to 604,800; default 86,400).
 *
 * @example
 * ```ts
 * rotateWebhookSecretInputSchema.parse({ overlapSeconds: 3600 });
 * ```
 */
export const rotateWebhookSecretInputSchema = z.strictObject({
  /** Seconds the previous secret keeps signing beside the new one: 0 to 604,800, default 86,400. */
  overlapSeconds: z
    .number()
    .int()
    .min(0)
    .max(LIMITS.maxOverlapSeconds)
    .optional()
    .describe('Seconds the previous secret keeps signing beside the new one (default 86,400)'),
});

/**
 * What `client.webhookEndpoints.rotateSecret()` sends.
 *
 * @example
 * ```ts
 * const input: RotateWebhookSecretInput = { overlapSeconds: 0 };
 * ```
 */
export type RotateWebhookSecretInput = z.input<typeof rotateWebhookSecretInputSchema>;
