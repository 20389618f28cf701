import type { WebhookSecret } from '@followup/webhooks/web';
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
   * For an endpoint whose `payload` is `thin` (bodies with ids and no values): fetch each
   * verified thin event in full with the client's `client.events.get(eventId)` before the
   * handlers run, so that they receive the same typed event a full endpoint would (the
   * delivery's `id`, the event's `eventId`). The client's token needs a role that may read the
   * event kinds the endpoint takes. A fetch that fails is answered 503 (the claim released), so
   * the server sends the delivery again and nothing is lost. Without it (default `false`), a
   * thin event is answered 500 and told to `onError`: the handlers are typed for full events.
   * Full bodies are handled as always either way.
   *
   * @example
   * ```ts
   * const webhooks = client.webhooks.handler({
   *   secret: process.env.FOLLOWUP_WEBHOOK_SECRET!,
   *   expand: true,
   *   on: { 'contact.created': (event) => welcome(event.data.firstName) },
   * });
   * ```
   */
  expand?: boolean;
  /**
   * Told when a handler throws, the store fails or the handler is misconfigured (the answer is
   * then 500), or a thin event could not be expanded (503; `event` is then the thin body, whose
   * `data` holds only `id` and `object`). Defaults to the client's `logger.error`, or
   * `console.error` without one.
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
