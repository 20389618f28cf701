import {
  type HeadersLike,
  type VerifyOptions,
  verifySignature,
  type WebhookPayload,
} from '@followup/webhooks/web';
import { ResponseValidationError } from '../errors.js';
import { type WebhookEvent, webhookEventSchema } from '../schemas/webhook-event.js';

/**
 * How `unwrap` verifies: the endpoint's signing secret (or several, during a rotation), and the
 * timestamp tolerance options of `@followup/webhooks`.
 *
 * @example
 * ```ts
 * const options: UnwrapOptions = { secret: [newSecret, oldSecret], tolerance: 300 };
 * ```
 */
export type UnwrapOptions = VerifyOptions;

function readHeader(headers: HeadersLike, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const values: string[] = [];
  for (const [key, value] of Object.entries(headers as Record<string, unknown>)) {
    if (key.toLowerCase() !== name) continue;
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
 * `client.webhooks`: verifies and parses the webhooks FollowUp sends to your endpoint.
 *
 * @example
 * ```ts
 * const event = await client.webhooks.unwrap(rawBody, request.headers, { secret });
 * ```
 */
export class Webhooks {
  /**
   * Verifies a webhook and returns its typed event. In order: the `X-Service-Signature` over the
   * raw body (HMAC-SHA256, constant time, timestamp within the tolerance, by
   * `@followup/webhooks/web`); then the body against the event schema; then the unsigned
   * `X-Service-Event` and `X-Service-Delivery` headers, which must agree with the signed body's
   * `event` and `id` when present.
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
    const verifyOptions: VerifyOptions =
      typeof options === 'string' ? { secret: options } : options;
    await verifySignature(rawBody, headers, verifyOptions);

    let json: unknown;
    try {
      json = JSON.parse(bodyText(rawBody));
    } catch {
      throw refuse('The webhook body is not JSON.', [], 'The body is not valid UTF-8 JSON.');
    }
    const kind = (json as { event?: unknown } | null)?.event;
    const parsed = webhookEventSchema.safeParse(json);
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
    const eventHeader = readHeader(headers, 'x-service-event');
    if (eventHeader !== undefined && eventHeader !== String(event.event)) {
      throw refuse(
        'The X-Service-Event header disagrees with the signed body; the request is refused.',
        ['headers', 'X-Service-Event'],
        'differs from the body event',
      );
    }
    const deliveryHeader = readHeader(headers, 'x-service-delivery');
    if (deliveryHeader !== undefined && deliveryHeader !== event.id) {
      throw refuse(
        'The X-Service-Delivery header disagrees with the signed body; the request is refused.',
        ['headers', 'X-Service-Delivery'],
        'differs from the body id',
      );
    }
    return event;
  }
}
