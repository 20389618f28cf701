/**
 * `limit` and `offset` of the list endpoints: `limit` is 1 to `maxLimit` (200), `defaultLimit`
 * (50) when not given; `offset` is 0 to `maxOffset` (100,000: the database reads and skips every
 * row before it, so a walk further on uses a cursor). Out of range is 400 `validation_failed`,
 * never silently clamped; the SDK refuses it before any request.
 *
 * @example
 * ```ts
 * import { LIST_LIMITS } from '@followup/sdk';
 *
 * const page = await client.contacts.list({ limit: LIST_LIMITS.maxLimit });
 * ```
 */
export const LIST_LIMITS = {
  /** Rows in a page when `limit` is not given. */
  defaultLimit: 50,
  /** The most rows one page may hold. */
  maxLimit: 200,
  /** The largest `offset` of a limit/offset list. */
  maxOffset: 100_000,
} as const;

/**
 * The largest request body the service accepts, in bytes: 1 MiB. Larger bodies get 413
 * `payload_too_large`.
 *
 * @example
 * ```ts
 * if (new TextEncoder().encode(body).length > BODY_LIMIT_BYTES) throw new Error('too large');
 * ```
 */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * The most contacts one `POST /api/contacts/batch` takes (`client.contacts.upsertMany` sends
 * batches of at most this many).
 *
 * @example
 * ```ts
 * await client.contacts.upsertMany(contacts, { batchSize: CONTACT_BATCH_MAX });
 * ```
 */
export const CONTACT_BATCH_MAX = 200;

/**
 * The largest values the service accepts in a request, in one place: the schemas of every
 * create and update body use them, so `/openapi.json` shows them (`maxLength`, `maxItems`) and
 * the server refuses anything larger with 400 `validation_failed` naming the field. Lengths
 * count Unicode code points, as JSON Schema's `maxLength` does.
 *
 * @example
 * ```ts
 * import { INPUT_LIMITS } from '@followup/sdk';
 *
 * const subject = subjectLine.slice(0, INPUT_LIMITS.inboxSubject);
 * ```
 */
export const INPUT_LIMITS = {
  /** Given and family names, deal titles, sequence, campaign and user names. */
  name: 200,
  /** E-mail addresses (RFC 5321's limit on a forward path). */
  email: 254,
  /** Phone numbers, as entered. */
  phone: 50,
  /** A value of an open enumeration: lifecycle, deal stage, statuses, a step's action. */
  enumValue: 64,
  /** An id, in a body (a deal's `contactId`) or a path. */
  id: 255,
  /** An EHR vendor key in `POST /api/ehr/webhooks/{ehr}`. */
  vendorKey: 64,
  /** The inbox webhook's `from` (an address, possibly with a display name). */
  inboxFrom: 320,
  /** The inbox webhook's `subject`. */
  inboxSubject: 1000,
  /** The inbox webhook's `text` (256 Ki characters). */
  inboxText: 262_144,
  /** Steps in one sequence. */
  sequenceSteps: 100,
  /** A step's `template`. */
  stepTemplate: 10_000,
  /** A step's `delayHours`: ten years. */
  stepDelayHours: 87_600,
  /** Fields of one step, its own and the extra ones together. */
  stepFields: 32,
  /** Nesting of a step's extra fields: a value inside an object inside an array… counts each level. */
  jsonDepth: 8,
  /** Items of an array, or fields of an object, inside a step's extra fields. */
  jsonItems: 100,
  /** A string (or a field name) inside a step's extra fields. */
  jsonString: 10_000,
} as const;

/**
 * The bounds of a webhook endpoint's fields (`POST` and `PATCH /api/webhook-endpoints`): the
 * server refuses anything outside them with 400 `validation_failed` naming the field.
 *
 * @example
 * ```ts
 * import { WEBHOOK_ENDPOINT_LIMITS } from '@followup/sdk';
 *
 * const rateLimit = Math.min(wanted, WEBHOOK_ENDPOINT_LIMITS.maxRateLimit);
 * ```
 */
export const WEBHOOK_ENDPOINT_LIMITS = {
  /** The longest endpoint URL, as given and as stored (normalised). */
  url: 2_048,
  /** The longest description. */
  description: 500,
  /** The longest subscriber key (1 to 64 of `a-z`, `0-9`, `_`, `-`). */
  subscriber: 64,
  /** The most static headers an endpoint sends with each delivery. */
  headers: 10,
  /** The longest static header name. */
  headerName: 100,
  /** The longest static header value. */
  headerValue: 1_000,
  /** The fewest deliveries per second a `rateLimit` may allow. */
  minRateLimit: 1,
  /** The most deliveries per second a `rateLimit` may allow. */
  maxRateLimit: 1_000,
  /** The shortest `timeoutSeconds`. */
  minTimeoutSeconds: 1,
  /** The longest `timeoutSeconds`. */
  maxTimeoutSeconds: 30,
  /** `timeoutSeconds` when not given. */
  defaultTimeoutSeconds: 15,
  /** The longest overlap of a secret rotation, in seconds (7 days). */
  maxOverlapSeconds: 604_800,
  /** The overlap of a secret rotation when not given, in seconds (24 hours). */
  defaultOverlapSeconds: 86_400,
} as const;

/**
 * What a replay may send again, by the event's delivery to the endpoint: `delivered`; `failed`
 * (still pending, its attempts failing); `dead`; `missing` (none: the event was written before
 * the endpoint existed or while it was disabled).
 *
 * @example
 * ```ts
 * import { REPLAY_STATES } from '@followup/sdk';
 *
 * const states = REPLAY_STATES.filter((state) => state !== 'delivered');
 * ```
 */
export const REPLAY_STATES = ['delivered', 'failed', 'dead', 'missing'] as const;

/**
 * The bounds of a replay (`POST /api/webhook-endpoints/{id}/replay`): the server refuses a
 * window beyond them with 400 `validation_failed` naming the field.
 *
 * @example
 * ```ts
 * import { REPLAY_LIMITS } from '@followup/sdk';
 *
 * const since = new Date(Date.now() - REPLAY_LIMITS.maxAgeDays * 86_400_000).toISOString();
 * ```
 */
export const REPLAY_LIMITS = {
  /** The most events one replay sends; a window holding more is refused (400 on `until`). */
  maxEvents: 10_000,
  /** How far back `since` may reach, in days: the default retention of dispatched events. */
  maxAgeDays: 30,
  /** The states replayed when `states` is not given. */
  defaultStates: ['failed', 'dead', 'missing'],
} as const;

/**
 * The bounds of a subscriber portal link (`POST /api/webhook-portal/links`) and of the portal
 * session it starts: the server refuses an expiry outside them with 400 `validation_failed` on
 * `expiresInMinutes`.
 *
 * @example
 * ```ts
 * import { PORTAL_LINK_LIMITS } from '@followup/sdk';
 *
 * const expiresInMinutes = Math.min(wanted, PORTAL_LINK_LIMITS.maxExpiresInMinutes);
 * ```
 */
export const PORTAL_LINK_LIMITS = {
  /** The shortest a link may stay unused, in minutes. */
  minExpiresInMinutes: 1,
  /** The longest a link may stay unused, in minutes: one day. */
  maxExpiresInMinutes: 1_440,
  /** How long a link stays unused when `expiresInMinutes` is not given. */
  defaultExpiresInMinutes: 60,
  /** How long the portal session a link starts lasts, in hours, however much it is used. */
  sessionHours: 8,
} as const;
