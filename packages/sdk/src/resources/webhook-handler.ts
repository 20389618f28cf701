import {
  type HeadersLike,
  type VerifyOptions,
  type WebhookPayload,
  WebhookVerificationError,
} from '@followup/webhooks/web';
import type { Clock, Logger } from '../client-options.js';
import { ConfigurationError } from '../follow-up-error.js';
import { ResponseValidationError } from '../request-errors.js';
import { isThinWebhookEvent, type ThinWebhookEvent } from '../schemas/thin-webhook-event.js';
import type { WebhookEvent } from '../schemas/webhook-event.js';
import type { WebhookEventKind } from '../wire/event-kinds.js';
import { MemoryDeliveryStore } from './delivery-store.js';
import { type EventFetcher, expandThinEvent } from './expand-thin-event.js';
import { type BodyRead, declaredLength, readNodeBody, readWebBody } from './webhook-body.js';
import {
  DEFAULT_WEBHOOK_DEDUPE_WINDOW_MS,
  DEFAULT_WEBHOOK_MAX_BODY_BYTES,
  type NodeRequestLike,
  type NodeResponseLike,
  type WebhookHandler,
  type WebhookHandlerOptions,
} from './webhook-handler-options.js';

interface Answer {
  status: number;
  body: string;
  headers: Record<string, string>;
}

const TEXT = { 'content-type': 'text/plain; charset=utf-8' };
const answers = {
  handled: { status: 204, body: '', headers: {} },
  unauthorized: { status: 401, body: 'The webhook signature did not verify.\n', headers: TEXT },
  invalid: { status: 400, body: 'The webhook body is not a valid event.\n', headers: TEXT },
  notPost: {
    status: 405,
    body: 'Webhooks are sent with POST.\n',
    headers: { ...TEXT, allow: 'POST' },
  },
  tooLarge: {
    status: 413,
    body: 'The webhook body is too large.\n',
    headers: { ...TEXT, connection: 'close' },
  },
  failed: {
    status: 500,
    body: 'The webhook was not handled; send it again.\n',
    headers: TEXT,
  },
  notExpanded: {
    status: 503,
    body: 'The full event could not be fetched; send it again.\n',
    headers: TEXT,
  },
} satisfies Record<string, Answer>;

function positiveInteger(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new ConfigurationError({ message: `${name} must be a positive whole number.` });
  }
  return value;
}

/** @internal What `client.webhooks.handler` builds on: the verifier, the clock, the logger. */
export interface WebhookHandlerContext {
  verify(
    rawBody: WebhookPayload,
    headers: HeadersLike,
    options: VerifyOptions,
  ): Promise<WebhookEvent | ThinWebhookEvent>;
  /** `client.events.get`, for `expand`. */
  fetchEvent?: EventFetcher;
  clock?: Pick<Clock, 'now'>;
  logger?: Logger;
}

/** @internal Builds the handler of {@link WebhookHandlerOptions}; `client.webhooks.handler` calls it. */
export function createWebhookHandler(
  options: WebhookHandlerOptions,
  context: WebhookHandlerContext,
): WebhookHandler {
  if (typeof options !== 'object' || options === null) {
    throw new ConfigurationError({ message: 'webhooks.handler() needs { secret, on }.' });
  }
  const { secret, on } = options;
  if (typeof on !== 'object' || on === null) {
    throw new ConfigurationError({ message: 'webhooks.handler() needs on: { <kind>: handler }.' });
  }
  for (const [kind, handle] of Object.entries(on)) {
    if (typeof handle !== 'function') {
      throw new ConfigurationError({ message: `on[${JSON.stringify(kind)}] must be a function.` });
    }
  }
  const maxBodyBytes = positiveInteger(
    options.maxBodyBytes,
    DEFAULT_WEBHOOK_MAX_BODY_BYTES,
    'maxBodyBytes',
  );
  const dedupeWindowMs = positiveInteger(
    options.dedupeWindowMs,
    DEFAULT_WEBHOOK_DEDUPE_WINDOW_MS,
    'dedupeWindowMs',
  );
  const { tolerance } = options;
  if (
    tolerance !== undefined &&
    (typeof tolerance !== 'number' || !Number.isFinite(tolerance) || tolerance < 0)
  ) {
    throw new ConfigurationError({
      message: 'tolerance must be a finite, non-negative number of seconds.',
    });
  }
  if (options.expand !== undefined && typeof options.expand !== 'boolean') {
    throw new ConfigurationError({ message: 'expand must be true or false.' });
  }
  const expand = options.expand === true;
  const { fetchEvent } = context;
  if (expand && fetchEvent === undefined) {
    throw new ConfigurationError({ message: 'expand needs the client that made this handler.' });
  }
  const clock = context.clock ?? { now: () => Date.now() };
  const store =
    options.store === false
      ? undefined
      : (options.store ?? new MemoryDeliveryStore({ now: () => clock.now() }));
  if (
    store !== undefined &&
    (typeof store.claim !== 'function' || typeof store.release !== 'function')
  ) {
    throw new ConfigurationError({ message: 'store must have claim() and release().' });
  }
  const report =
    options.onError ??
    ((error: unknown, event: WebhookEvent | undefined) => {
      const fields = { error, deliveryId: event?.id, event: event && String(event.event) };
      if (context.logger?.error) context.logger.error('webhook handler failed', fields);
      else console.error('webhook handler failed', fields);
    });
  const tell = (error: unknown, event: WebhookEvent | undefined) => {
    try {
      report(error, event);
    } catch {
      // A failing reporter must not turn the answer into a rejection.
    }
  };
  // Deliveries being handled in this process: a copy that arrives meanwhile gets the first one's
  // answer, so that it is neither handled twice nor acknowledged before the first succeeds.
  const inFlight = new Map<string, Promise<Answer>>();

  async function release(event: WebhookEvent | ThinWebhookEvent): Promise<void> {
    if (store === undefined) return;
    try {
      await store.release(event.id);
    } catch (releaseError) {
      tell(releaseError, event as WebhookEvent);
    }
  }

  async function dispatch(verified: WebhookEvent | ThinWebhookEvent): Promise<Answer> {
    if (store !== undefined) {
      let claimed: boolean;
      try {
        claimed = await store.claim(verified.id, dedupeWindowMs);
      } catch (error) {
        tell(error, verified as WebhookEvent);
        return answers.failed;
      }
      if (!claimed) return answers.handled;
    }
    let event: WebhookEvent;
    if (isThinWebhookEvent(verified)) {
      if (!expand || fetchEvent === undefined) {
        // Typed handlers cannot take a body without values: told, and sent again by the server
        // (nothing is lost) until the handler expands thin events.
        tell(
          new ConfigurationError({
            message: `A thin webhook (${verified.event}) arrived: give the handler expand: true to fetch its event.`,
          }),
          verified as WebhookEvent,
        );
        await release(verified);
        return answers.failed;
      }
      try {
        event = await expandThinEvent(verified, fetchEvent);
      } catch (error) {
        // 503: the server sends the delivery again, and the fetch is tried again with it.
        tell(error, verified as WebhookEvent);
        await release(verified);
        return answers.notExpanded;
      }
    } else {
      event = verified;
    }
    const kind = String(event.event);
    const handle = (Object.hasOwn(on, kind) ? on[kind as WebhookEventKind] : undefined) ?? on['*'];
    try {
      await (handle as ((event: WebhookEvent) => unknown) | undefined)?.(event);
      return answers.handled;
    } catch (error) {
      tell(error, event);
      await release(event);
      return answers.failed;
    }
  }

  async function answer(
    method: string | undefined,
    headers: HeadersLike,
    contentLength: string | null | undefined,
    read: () => Promise<BodyRead>,
  ): Promise<Answer> {
    if (method !== 'POST') return answers.notPost;
    const declared = declaredLength(contentLength);
    if (declared !== undefined && declared > maxBodyBytes) return answers.tooLarge;
    let event: WebhookEvent | ThinWebhookEvent;
    try {
      const body = await read();
      if (body === 'too_large') return answers.tooLarge;
      event = await context.verify(body, headers, {
        secret,
        ...(tolerance === undefined ? {} : { tolerance }),
        now: Math.floor(clock.now() / 1000),
      });
    } catch (error) {
      if (WebhookVerificationError.isInstance(error) && error.code !== 'invalid_secret') {
        return answers.unauthorized;
      }
      if (ResponseValidationError.isInstance(error)) return answers.invalid;
      // A secret or an option that cannot work, a body parsed too early, a broken stream.
      tell(error, undefined);
      return answers.failed;
    }
    const running = inFlight.get(event.id);
    if (running !== undefined) return running;
    const handled = dispatch(event).finally(() => inFlight.delete(event.id));
    inFlight.set(event.id, handled);
    return handled;
  }

  const fetch = async (request: Request): Promise<Response> => {
    const result = await answer(
      request.method,
      request.headers,
      request.headers.get('content-length'),
      () => readWebBody(request, maxBodyBytes),
    );
    return new Response(result.body === '' ? null : result.body, {
      status: result.status,
      headers: result.headers,
    });
  };
  const node = async (request: NodeRequestLike, response: NodeResponseLike): Promise<void> => {
    const length = request.headers['content-length'];
    const result = await answer(
      request.method,
      request.headers,
      typeof length === 'string' ? length : undefined,
      () => readNodeBody(request, maxBodyBytes),
    );
    try {
      response.writeHead(result.status, result.headers);
      response.end(result.body === '' ? undefined : result.body);
    } catch (error) {
      tell(error, undefined);
    }
  };
  return Object.assign((request: Request) => fetch(request), { fetch, node });
}
