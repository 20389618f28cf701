import {
  type HeadersLike,
  SIGNATURE_HEADER,
  STANDARD_WEBHOOK_HEADERS,
  type VerifyOptions,
  verifySignature,
  verifyStandardWebhook,
  type WebhookPayload,
} from '@followup/webhooks/web';
import type { Clock, Logger } from '../client-options.js';
import { ConfigurationError } from '../follow-up-error.js';
import { ResponseValidationError } from '../request-errors.js';
import { isThinWebhookEvent, type ThinWebhookEvent } from '../schemas/thin-webhook-event.js';
import { type WebhookEvent, webhookEventSchema } from '../schemas/webhook-event.js';
import { DELIVERY_HEADER, EVENT_HEADER } from '../wire/webhook-headers.js';
import { type EventFetcher, expandThinEvent } from './expand-thin-event.js';
import { createWebhookHandler } from './webhook-handler.js';
import type { WebhookHandler, WebhookHandlerOptions } from './webhook-handler-options.js';

/**
 * How `unwrap` verifies: the endpoint's signing secret (or several, during a rotation), and the
 * timestamp tolerance options of `@followup/webhooks`.
 *
 * @example
 * ```ts
 * const options: UnwrapOptions = { secret: [newSecret, oldSecret], tolerance: 300 };
 * ```
 */
export type UnwrapOptions = VerifyOptions & {
  /**
   * For a thin body (an endpoint whose `payload` is `thin`): fetch the full event with this
   * client's `client.events.get(eventId)` and return it, with the delivery's `id` and the
   * event's `eventId`, as a full endpoint would have received it. Without it, a thin body is
   * refused with a {@link ResponseValidationError} that says so. The client's token needs a role
   * that may read the event's kind.
   *
   * @example
   * ```ts
   * const event = await client.webhooks.unwrap(rawBody, headers, { secret, expand: true });
   * ```
   */
  expand?: boolean;
};

function readHeader(headers: HeadersLike, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const wanted = name.toLowerCase();
  const values: string[] = [];
  for (const [key, value] of Object.entries(headers as Record<string, unknown>)) {
    if (key.toLowerCase() !== wanted) continue;
    if (typeof value === 'string') values.push(value);
    else if (Array.isArray(value)) values.push(...value.map(String));
  }
  // A header given twice cannot be trusted to agree: keep both so the comparison fails.
  return values.length === 0 ? undefined : values.join(', ');
}

function bodyText(payload: WebhookPayload): string {
  if (typeof payload === 'string') return payload;
  return new TextDecoder('utf-8', { fatal: true }).decode(payload);
}

function refuse(message: string, path: PropertyKey[], issue: string): ResponseValidationError {
  return new ResponseValidationError({ message, issues: [{ path, message: issue }] });
}

/**
 * @internal Verifies a delivery and parses its event: what `unwrap` and the handler share.
 * `X-Service-Signature` when the request has it, else the Standard Webhooks headers.
 */
export async function verifyWebhook(
  rawBody: WebhookPayload,
  headers: HeadersLike,
  options: VerifyOptions,
): Promise<WebhookEvent | ThinWebhookEvent> {
  let standardId: string | undefined;
  if (readHeader(headers, SIGNATURE_HEADER) === undefined && hasStandardSignature(headers)) {
    standardId = (await verifyStandardWebhook(rawBody, headers, options)).id;
  } else {
    await verifySignature(rawBody, headers, options);
  }

  let json: unknown;
  try {
    json = JSON.parse(bodyText(rawBody));
  } catch {
    throw refuse('The webhook body is not JSON.', [], 'The body is not valid UTF-8 JSON.');
  }
  const kind = (json as { event?: unknown } | null)?.event;
  // A thin body (`{id, event, createdAt, eventId, data: {id, object}}`) is checked as such: its
  // kind's schema would refuse the values it lacks.
  const parsed = isThinWebhookEvent(json)
    ? { success: true as const, data: json }
    : webhookEventSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => ({
      path: issue.path,
      message: issue.message,
    }));
    throw new ResponseValidationError({
      message: `The webhook body does not match the ${typeof kind === 'string' ? JSON.stringify(kind.slice(0, 100)) : 'webhook'} event schema.`,
      issues,
    });
  }
  const event = parsed.data;
  if (standardId !== undefined && standardId !== event.id) {
    throw refuse(
      `The ${STANDARD_WEBHOOK_HEADERS.id} header disagrees with the signed body; the request is refused.`,
      ['headers', STANDARD_WEBHOOK_HEADERS.id],
      'differs from the body id',
    );
  }
  const eventHeader = readHeader(headers, EVENT_HEADER);
  if (eventHeader !== undefined && eventHeader !== String(event.event)) {
    throw refuse(
      `The ${EVENT_HEADER} header disagrees with the signed body; the request is refused.`,
      ['headers', EVENT_HEADER],
      'differs from the body event',
    );
  }
  const deliveryHeader = readHeader(headers, DELIVERY_HEADER);
  if (deliveryHeader !== undefined && deliveryHeader !== event.id) {
    throw refuse(
      `The ${DELIVERY_HEADER} header disagrees with the signed body; the request is refused.`,
      ['headers', DELIVERY_HEADER],
      'differs from the body id',
    );
  }
  return event;
}

function hasStandardSignature(headers: HeadersLike): boolean {
  try {
    return readHeader(headers, STANDARD_WEBHOOK_HEADERS.signature) !== undefined;
  } catch {
    return false;
  }
}

/**
 * `client.webhooks`: verifies and parses the webhooks FollowUp sends to your endpoint, one at a
 * time (`unwrap`) or as a ready request handler that dedupes and dispatches by kind (`handler`).
 *
 * @example
 * ```ts
 * const event = await client.webhooks.unwrap(rawBody, request.headers, { secret });
 * ```
 */
export class Webhooks {
  readonly #clock: Clock | undefined;
  readonly #logger: Logger | undefined;
  readonly #fetchEvent: EventFetcher | undefined;

  /** @internal The client builds it, with its clock, logger and `events.get`. */
  constructor(
    options: {
      clock?: Clock | undefined;
      logger?: Logger | undefined;
      fetchEvent?: EventFetcher | undefined;
    } = {},
  ) {
    this.#clock = options.clock;
    this.#logger = options.logger;
    this.#fetchEvent = options.fetchEvent;
  }

  /**
   * Verifies a webhook and returns its typed event. In order: the signature over the raw body
   * (HMAC-SHA256, constant time, timestamp within the tolerance, by `@followup/webhooks/web`):
   * `X-Service-Signature` when the request carries it, else the Standard Webhooks headers
   * (`webhook-id`, `webhook-timestamp`, `webhook-signature`, keyed with the bytes after `whsec_`);
   * then the body against the event schema; then the unsigned `X-Service-Event` and
   * `X-Service-Delivery` headers (and the signed `webhook-id`), which must agree with the signed
   * body's `event` and `id` when present.
   *
   * It is asynchronous because it runs on Web Crypto, so that the SDK imports no `node:` module
   * and works unchanged on Node, Bun, Deno, Cloudflare Workers and browsers.
   *
   * @param rawBody - The body exactly as received (`await request.text()` or the bytes), never a
   *   parsed and re-serialised object.
   * @param headers - The request headers: a fetch `Headers`, Node's `IncomingHttpHeaders` or a record.
   * @param options - The signing secret (or `{ secret, tolerance?, now? }`).
   * @throws `WebhookVerificationError` (from `@followup/webhooks`) when the signature does not
   *   verify; {@link ResponseValidationError} when the verified body does not match its kind's
   *   schema (or, for a kind this version does not know, the envelope every event has), or a
   *   header disagrees with it. An unknown kind is no error: it comes back as an
   *   `UnknownWebhookEvent`.
   *
   * @example
   * ```ts
   * // A Web `Request` (Hono, Next.js route handlers, Workers): read the body as text, unparsed.
   * export async function POST(request: Request) {
   *   const event = await client.webhooks.unwrap(await request.text(), request.headers, {
   *     secret: process.env.FOLLOWUP_WEBHOOK_SECRET!,
   *   });
   *   if (event.event === 'contact.created') await welcome(event.data.firstName);
   *   return new Response(null, { status: 204 });
   * }
   * ```
   */
  async unwrap(
    rawBody: WebhookPayload,
    headers: HeadersLike,
    options: string | UnwrapOptions,
  ): Promise<WebhookEvent> {
    const { expand, ...verify } = typeof options === 'string' ? { secret: options } : options;
    const event = await verifyWebhook(rawBody, headers, verify);
    if (!isThinWebhookEvent(event)) return event;
    if (expand !== true) {
      throw new ResponseValidationError({
        message:
          'The webhook body is thin (its endpoint sends payload "thin"): pass { expand: true } to fetch the full event, or read it with thinWebhookEventSchema and client.events.get(eventId).',
        issues: [{ path: ['data'], message: 'a thin body carries no values' }],
      });
    }
    return expandThinEvent(event, this.#eventFetcher());
  }

  #eventFetcher(): EventFetcher {
    if (this.#fetchEvent === undefined) {
      throw new ConfigurationError({ message: 'expand needs the client that made this Webhooks.' });
    }
    return this.#fetchEvent;
  }

  /**
   * A ready webhook endpoint: one call gives a Web handler (`(request: Request) =>
   * Promise<Response>`, also at `.fetch`) and a Node handler at `.node` (`(req, res)`, for
   * `node:http` and Express). For each POST it reads the raw body (at most `maxBodyBytes`),
   * verifies it as {@link Webhooks.unwrap} does, claims the delivery id in the `store` (a
   * delivery seen before is acknowledged and not handled again), and awaits the handler of the
   * event's kind in `on` (or `on['*']`, which receives every event with no handler of its own,
   * kinds this SDK version does not know included).
   *
   * Answers: 204 once handled (or when no handler wants the event, or for a duplicate); 401 when
   * the signature does not verify and 400 when the verified body is not an event (both with a
   * fixed body that tells nothing more); 405 to anything but POST; 413 past `maxBodyBytes`; 500
   * when a handler throws (the claim is released, so the server's retry is handled again, and
   * `onError` is told). A thin body (an endpoint whose `payload` is `thin`) is fetched in full
   * first with `expand: true`, 503 when that fails; without `expand` it is answered 500. Never 410, which would disable the endpoint. Keep handlers short (the
   * server gives an attempt 15 s by default) and queue long work.
   *
   * @example
   * ```ts
   * const webhooks = client.webhooks.handler({
   *   secret: process.env.FOLLOWUP_WEBHOOK_SECRET!,
   *   on: {
   *     'contact.created': async (event) => welcome(event.data.firstName),
   *     'deal.updated': async (event) => {
   *       if (event.previousAttributes.stage !== undefined) await notifyStage(event.data);
   *     },
   *     '*': (event) => console.log('not handled:', String(event.event)),
   *   },
   * });
   * export const POST = webhooks;                     // Next.js route handler, Hono: webhooks(c.req.raw)
   * http.createServer(webhooks.node).listen(8080);    // node:http
   * app.post('/webhooks/followup', webhooks.node);     // Express (before any body parser)
   * ```
   */
  handler(options: WebhookHandlerOptions): WebhookHandler {
    return createWebhookHandler(options, {
      verify: verifyWebhook,
      ...(this.#fetchEvent ? { fetchEvent: this.#fetchEvent } : {}),
      ...(this.#clock ? { clock: this.#clock } : {}),
      ...(this.#logger ? { logger: this.#logger } : {}),
    });
  }
}
