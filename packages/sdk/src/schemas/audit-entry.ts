import { z } from 'zod';
import { timestampSchema } from '../internal/timestamp.js';
import { openEnum } from './open-enum.js';

/**
 * Schema of an audit entry (unknown fields are kept; `action` and `actor.type` are open
 * enumerations).
 *
 * @example
 * ```ts
 * const entry = auditEntrySchema.parse(json);
 * ```
 */
export const auditEntrySchema = z.looseObject({
  /** The entry's id (`aud_…`). */
  id: z.string().min(1),
  /** When the audited action happened (ISO 8601 UTC). */
  occurredAt: timestampSchema,
  /** What happened, e.g. `token.issued`, `token.revoked`, `contact.deleted`. */
  action: openEnum(['token.issued', 'token.revoked', 'contact.deleted']),
  /** Who did it. */
  actor: z.looseObject({
    /**
     * `service_account`, `user`, `operator`, `system` or `portal` (a subscriber through the
     * subscriber portal; an open enumeration).
     */
    type: openEnum(['service_account', 'user', 'operator', 'system', 'portal']),
    /** The actor's id, when it has one. */
    id: z.string().optional(),
    /** The subscriber key, for a `portal` actor. */
    subscriber: z.string().optional(),
  }),
  /** What it was done to. */
  target: z.looseObject({
    /** The kind of record, e.g. `token` or `contact`. */
    type: z.string(),
    /** The record's id. */
    id: z.string(),
  }),
  /** Details that depend on the action; never secrets. */
  metadata: z.record(z.string(), z.unknown()),
});

/**
 * An audit entry: `id, occurredAt, action, actor {type, id?}, target {type, id}, metadata`.
 *
 * @example
 * ```ts
 * for await (const entry of client.audit.list()) {
 *   if (entry.action === 'token.revoked') console.log(entry.target.id);
 * }
 * ```
 */
export type AuditEntry = z.infer<typeof auditEntrySchema>;

/**
 * Schema of a page of `GET /api/audit`: `{ "entries": [...], "nextCursor": "…" | null }`.
 *
 * @example
 * ```ts
 * const { entries, nextCursor } = auditEntryListSchema.parse(json);
 * ```
 */
export const auditEntryListSchema = z.looseObject({
  /** The entries of the page (may be empty while `nextCursor` is not null). */
  entries: z.array(auditEntrySchema),
  /** The cursor of the next page, or `null` on the last page. */
  nextCursor: z.string().min(1).nullable(),
});

/**
 * A page of audit entries as the service sends it.
 *
 * @example
 * ```ts
 * const body: AuditEntryList = { entries: [], nextCursor: null };
 * ```
 */
export type AuditEntryList = z.infer<typeof auditEntryListSchema>;
