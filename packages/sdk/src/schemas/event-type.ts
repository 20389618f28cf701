import { z } from 'zod';

/**
 * Schema of one entry of the event catalogue (`GET /api/event-types`): a kind, what it means, and
 * the JSON Schema of its body. The server checks its answers against it.
 *
 * @example
 * ```ts
 * const type = eventTypeSchema.parse({ kind: 'deal.updated', description: '…', schema: {} });
 * ```
 */
export const eventTypeSchema = z.object({
  /** The event kind, e.g. `contact.created` (the value of a body's `event`). */
  kind: z.string(),
  /** What the event means and what its `data` holds. */
  description: z.string(),
  /** The JSON Schema (draft 2020-12) of the whole body of an event of this kind. */
  schema: z.record(z.string(), z.unknown()),
  /**
   * The JSON Schema of the thin body an endpoint whose `payload` is `thin` receives for this
   * kind: `{id, event, createdAt, eventId, data: {id, object}}`. Absent from servers before it.
   */
  thinSchema: z.record(z.string(), z.unknown()).optional(),
});

/**
 * An event kind of the catalogue: `{ kind, description, schema, thinSchema }`.
 *
 * @example
 * ```ts
 * for (const type of await client.events.types()) console.log(type.kind, type.description);
 * ```
 */
export type EventType = z.infer<typeof eventTypeSchema>;

/**
 * Schema of the body of `GET /api/event-types`: `{ "eventTypes": [...] }`.
 *
 * @example
 * ```ts
 * const { eventTypes } = eventTypeListSchema.parse(json);
 * ```
 */
export const eventTypeListSchema = z.object({
  /** Every kind the server emits, in the order of the catalogue. */
  eventTypes: z.array(eventTypeSchema),
});

/**
 * The body of `GET /api/event-types`.
 *
 * @example
 * ```ts
 * const body: EventTypeList = { eventTypes: [] };
 * ```
 */
export type EventTypeList = z.infer<typeof eventTypeListSchema>;
