import {
  type HeadersLike,
  type VerifyOptions,
  type WebhookPayload,
  type WebhookSecret,
  WebhookVerificationError,
} from '@followup/webhooks/web';
import type { Clock, Logger } from '../client-options.js';
import { ConfigurationError, ResponseValidationError } from '../errors.js';
import type { KnownWebhookEvent, WebhookEvent } from '../schemas/webhook-event.js';
import type { WebhookEventKind } from '../wire/event-kinds.js';
import { BODY_LIMIT_BYTES } from '../wire/limits.js';
import { type DeliveryStore, MemoryDeliveryStore } from './delivery-store.js';

/** The largest body a webhook handler reads by default: 1 MiB, the server's own request limit. */
export const DEFAULT_WEBHOOK_MAX_BODY_BYTES = BODY_LIMIT_BYTES;

/**
 * How long a webhook handler remembers a handled delivery by default: 4 days, longer than the
 * server's default retry schedule (11 retries over about 3.3 days).
 */
export const DEFAULT_WEBHOOK_DEDUPE_WINDOW_MS = 4 * 24 * 60 * 60 * 1000;

/**
 * The event of one known kind, narrowed from {@link KnownWebhookEvent}.
 *
 * @example
 * ```ts
 * const onDeal = (event: WebhookEventOfKind<'deal.updated'>) => event.previousAttributes;
 * ```
 */
export type WebhookEventOfKind<Kind extends WebhookEventKind> = Extract<
  KnownWebhookEvent,
  {
    /** The event kind. */
    event: Kind;
  }
>;

/**
 * The handlers of a webhook endpoint, by event kind, each receiving its kind's typed event;
 * `'*'` receives every event with no handler of its own (kinds this SDK version does not know
 * included). A handler may return a promise; the delivery is acknowledged once it resolves, and
 * answered 500 (so the server sends it again) if it throws or rejects.
 *
 * @example
 * ```ts
 * const on: WebhookEventHandlers = {
 *   'contact.created': (event) => welcome(event.data.firstName),
 *   '*': (event) => console.log('ignored', String(event.event)),
 * };
 * ```
 */
export type WebhookEventHandlers = {
  [Kind in WebhookEventKind]?: (event: WebhookEventOfKind<Kind>) => unknown;
} & {
  /** Every event with no handler of its own. */
  '*'?: (event: WebhookEvent) => unknown;
};

/**
 * Options of `client.webhooks.handler(…)`.
 *
 * @example
 * ```ts
 * const options: WebhookHandlerOptions = {
 *   secret: [process.env.NEW_SECRET!, process.env.OLD_SECRET!],
 *   on: { 'contact.deleted': (event) => forget(event.data.id) },
 *   store: redisStore,
 * };
 * ```
 */
export interface WebhookHandlerOptions {
  /**
   * The endpoint's signing secret (`whsec_…`, printed once by `followup-server endpoints add`),
   * or several during a rotation.
   */
  secret: WebhookSecret | readonly WebhookSecret[];
  /** The handlers, by event kind. */
  on: WebhookEventHandlers;
  /** How far the signed timestamp may be from now, in seconds (default 300). */
  tolerance?: number;
  /**
   * Where handled delivery ids are remembered; default a {@link MemoryDeliveryStore} on the
   * client's clock (one process). Pass shared storage when several processes receive the
   * endpoint, or `false` to handle every verified request (your handlers then dedupe by
   * `event.id` themselves).
   */
  store?: DeliveryStore | false;
  /** How long a handled delivery is remembered, in ms (default 4 days). */
  dedupeWindowMs?: number;
  /** The largest body read, in bytes (default 1 MiB); past it the answer is 413. */
  maxBodyBytes?: number;
  /**
   * Told when a handler throws, the store fails or the handler is misconfigured (the answer is
   * then 500). Defaults to the client's `logger.error`, or `console.error` without one.
   */
  onError?: (error: unknown, event: WebhookEvent | undefined) => void;
}

/**
 * The smallest shape of a Node request the handler reads: `node:http`'s `IncomingMessage`, and
 * Express's request (whose `body`, when a raw body parser such as `express.raw()` set it to a
 * `Buffer` or a string, is used as the body).
 *
 * @example
 * ```ts
 * http.createServer((req, res) => handler.node(req, res));
 * ```
 */
export interface NodeRequestLike {
  /** The request method. */
  readonly method?: string | undefined;
  /** The request headers, as Node gives them (lower-case names). */
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** A body a framework already read: bytes or a string are used, a parsed object refused. */
  readonly body?: unknown;
  /** Whether the body stream was already read to its end. */
  readonly readableEnded?: boolean;
  /** Subscribes to the body stream's events (`data`, `end`, `error`). */
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  /** Unsubscribes. */
  off(event: string, listener: (...args: unknown[]) => void): unknown;
  /** Lets the rest of the body flow away unread. */
  resume(): unknown;
}

/**
 * The smallest shape of a Node response the handler writes: `node:http`'s `ServerResponse`.
 *
 * @example
 * ```ts
 * const response: NodeResponseLike = res;
 * ```
 */
export interface NodeResponseLike {
  /** Sends the status line and headers. */
  writeHead(status: number, headers: Record<string, string>): unknown;
  /** Sends the body and ends the response. */
  end(body?: string): unknown;
}

/**
 * A webhook endpoint: call it with a Web `Request` (or use `.fetch`) for a `Response`, or give
 * Node's `(req, res)` to `.node`.
 *
 * @example
 * ```ts
 * export const POST = handler;                 // Next.js
 * export default { fetch: handler.fetch };     // Cloudflare Workers, Bun.serve, Deno.serve
 * http.createServer(handler.node);             // node:http
 * ```
 */
export interface WebhookHandler {
  /** Handles a Web `Request`; never rejects. */
  (request: Request): Promise<Response>;
  /** The same Web handler, for `{ fetch }` shaped servers. */
  readonly fetch: (request: Request) => Promise<Response>;
  /** Handles Node's `(req, res)`: reads the body, writes the answer; never rejects. */
  readonly node: (request: NodeRequestLike, response: NodeResponseLike) => Promise<void>;
}

interface Answer {
  status: number;
  body: string;
  headers: Record<string, string>;
}

type BodyRead = Uint8Array | 'too_large';

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
} satisfies Record<string, Answer>;

function positiveInteger(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new ConfigurationError({ message: `${name} must be a positive whole number.` });
  }
  return value;
}

function declaredLength(value: string | null | undefined): number | undefined {
  if (value === null || value === undefined || !/^\d{1,16}$/.test(value.trim())) return undefined;
  return Number(value.trim());
}

/** Reads a Web body, at most `limit` bytes; past it, stops reading. */
async function readWebBody(request: Request, limit: number): Promise<BodyRead> {
  if (request.bodyUsed) {
    throw new ConfigurationError({
      message:
        'The request body was read before the webhook handler, so its raw bytes are gone: give the handler the request as it arrived (with Hono, c.req.raw before any c.req.json()).',
    });
  }
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.byteLength;
    if (length > limit) {
      await reader.cancel().catch(() => {});
      return 'too_large';
    }
    chunks.push(value);
  }
  return concat(chunks, length);
}

function concat(chunks: readonly Uint8Array[], length: number): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

const encoder = new TextEncoder();

/** Reads a Node body, at most `limit` bytes; past it, lets the rest flow away unread. */
function readNodeBody(request: NodeRequestLike, limit: number): Promise<BodyRead> {
  const { body } = request;
  if (body instanceof Uint8Array)
    return Promise.resolve(body.byteLength > limit ? 'too_large' : body);
  if (typeof body === 'string') {
    const bytes = encoder.encode(body);
    return Promise.resolve(bytes.byteLength > limit ? 'too_large' : bytes);
  }
  if ((body !== undefined && body !== null) || request.readableEnded === true) {
    return Promise.reject(
      new ConfigurationError({
        message:
          'The request body was read and parsed before the webhook handler, so its raw bytes are gone: mount the handler before any JSON body parser, or give it the raw body (express.raw()).',
      }),
    );
  }
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let length = 0;
    const finish = () => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
    };
    const onData = (chunk: unknown) => {
      const bytes = typeof chunk === 'string' ? encoder.encode(chunk) : (chunk as Uint8Array);
      length += bytes.byteLength;
      if (length > limit) {
        finish();
        request.resume();
        resolve('too_large');
        return;
      }
      chunks.push(bytes);
    };
    const onEnd = () => {
      finish();
      resolve(concat(chunks, length));
    };
    const onError = (error: unknown) => {
      finish();
      reject(error);
    };
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
  });
}

/** @internal What `client.webhooks.handler` builds on: the verifier, the clock, the logger. */
export interface WebhookHandlerContext {
  verify(
    rawBody: WebhookPayload,
    headers: HeadersLike,
    options: VerifyOptions,
  ): Promise<WebhookEvent>;
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

  async function dispatch(event: WebhookEvent): Promise<Answer> {
    if (store !== undefined) {
      let claimed: boolean;
      try {
        claimed = await store.claim(event.id, dedupeWindowMs);
      } catch (error) {
        tell(error, event);
        return answers.failed;
      }
      if (!claimed) return answers.handled;
    }
    const kind = String(event.event);
    const handle = (Object.hasOwn(on, kind) ? on[kind as WebhookEventKind] : undefined) ?? on['*'];
    try {
      await (handle as ((event: WebhookEvent) => unknown) | undefined)?.(event);
      return answers.handled;
    } catch (error) {
      tell(error, event);
      if (store !== undefined) {
        try {
          await store.release(event.id);
        } catch (releaseError) {
          tell(releaseError, event);
        }
      }
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
    let event: WebhookEvent;
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
