import type { Queryable } from '../storage/database.js';

// What happened to a contact, for its page in the web application: the audit entries about it
// or its deals, the events about them (the outbox, which is the feed and every webhook body) and
// the deliveries of those events, newest first. Read only; the erasure (contact-erasure-store.ts)
// finds the same rows by the same conditions, so a page shows "[erased]" where it erased.

/** @internal One line of a contact's timeline. */
export interface ContactTimelineEntry {
  /** An audit entry, an event, or the delivery of an event to one endpoint. */
  kind: 'audit' | 'event' | 'delivery';
  /** The audit entry's `aud_…`, the event's `evt_…` or the delivery's `dlv_…`. */
  id: string;
  /** When it happened (a delivery: when it was made), ISO 8601. */
  at: string;
  /** The audit action (`contact.deleted`) or the event's kind (`deal.updated`). */
  name: string;
  /** What it is about: the contact, or one of its deals. */
  subject: { type: 'contact' | 'deal'; id: string };
  /** Who acted (audit entries only). */
  actor?: { type: string; id: string | null };
  /**
   * The audit entry's details, or the event's `data`, as stored: values a contact's erasure
   * replaced read `"[erased]"`. Empty for a delivery.
   */
  details: Record<string, unknown>;
  /** The delivery's state and where it went (deliveries only). */
  delivery?: {
    endpointId: string;
    state: string;
    attempts: number;
    lastStatus: number | null;
  };
}

/** @internal What {@link readContactTimeline} answers: the newest entries, and whether there are more. */
export interface ContactTimeline {
  entries: ContactTimelineEntry[];
  /** Whether older entries exist beyond `limit`. */
  more: boolean;
}

interface TimelineRow {
  kind: 'audit' | 'event' | 'delivery';
  id: string;
  at: string;
  name: string;
  subject_type: 'contact' | 'deal';
  subject_id: string;
  actor_type: string | null;
  actor_id: string | null;
  details: Record<string, unknown> | null;
  endpoint_id: string | null;
  state: string | null;
  attempts: number | null;
  last_status: number | null;
}

/** @internal The kinds of entry a timeline holds. */
export const TIMELINE_KINDS = ['audit', 'event', 'delivery'] as const;

/**
 * @internal The statement {@link readContactTimeline} runs: `$1` the contact's id, `$2` the
 * number of rows to answer, `$3` the kinds of entry. Its audit entries are read through
 * `audit_entries_target` (migration 35), whose columns are this `WHERE`'s and this `ORDER BY`'s;
 * the deals' ids are an array computed once (`= ANY (ARRAY(…))`), not `IN (subquery)`, which
 * under an `OR` the planner can only check row by row, reading every deal's entry.
 */
export const READ_CONTACT_TIMELINE = `WITH subject_events AS (
     SELECT id, event, data, created_at FROM outbox_events
      WHERE (event LIKE 'contact.%' AND data->>'id' = $1)
         OR (event LIKE 'deal.%' AND data->>'contactId' = $1)
   ), subject_deals AS (
     SELECT id FROM deals WHERE contact_id = $1
     UNION SELECT data->>'id' FROM subject_events WHERE event LIKE 'deal.%'
   )
   SELECT * FROM (
     SELECT 'audit' AS kind, id, occurred_at AS at, action AS name,
            target_type AS subject_type, target_id AS subject_id, actor_type, actor_id,
            metadata AS details, NULL AS endpoint_id, NULL AS state,
            NULL::integer AS attempts, NULL::integer AS last_status
       FROM audit_entries
      WHERE (target_type = 'contact' AND target_id = $1)
         OR (target_type = 'deal' AND target_id = ANY (ARRAY(SELECT id FROM subject_deals)))
     UNION ALL
     SELECT 'event', id, created_at, event,
            CASE WHEN event LIKE 'deal.%' THEN 'deal' ELSE 'contact' END, data->>'id',
            NULL, NULL, data, NULL, NULL, NULL, NULL
       FROM subject_events
     UNION ALL
     SELECT 'delivery', delivery.id, delivery.created_at, event.event,
            CASE WHEN event.event LIKE 'deal.%' THEN 'deal' ELSE 'contact' END,
            event.data->>'id', NULL, NULL, NULL, delivery.endpoint_id, delivery.state,
            delivery.attempts, delivery.last_status
       FROM deliveries AS delivery JOIN subject_events AS event ON event.id = delivery.event_id
   ) AS timeline
   WHERE kind = ANY($3::text[])
   ORDER BY at DESC, id DESC
   LIMIT $2`;

/**
 * @internal The newest `limit` entries of a contact's timeline (see {@link ContactTimelineEntry})
 * of the `kinds` asked for (default: all; a reader who may not read the audit log or deliveries
 * is not shown them), newest first (ties: by id, newest first), with `more` when older ones
 * exist. A contact that was deleted or erased keeps its timeline: its deals are found through
 * their events too.
 */
export async function readContactTimeline(
  queryable: Queryable,
  request: {
    contactId: string;
    limit: number;
    kinds?: readonly (typeof TIMELINE_KINDS)[number][] | undefined;
  },
): Promise<ContactTimeline> {
  const { rows } = await queryable.query<TimelineRow>(READ_CONTACT_TIMELINE, [
    request.contactId,
    request.limit + 1,
    request.kinds ?? TIMELINE_KINDS,
  ]);
  const entries = rows.slice(0, request.limit).map((row): ContactTimelineEntry => {
    const entry: ContactTimelineEntry = {
      kind: row.kind,
      id: row.id,
      at: new Date(row.at).toISOString(),
      name: row.name,
      subject: { type: row.subject_type, id: row.subject_id },
      details: row.details ?? {},
    };
    if (row.kind === 'audit') entry.actor = { type: row.actor_type ?? '', id: row.actor_id };
    if (row.kind === 'delivery') {
      entry.delivery = {
        endpointId: row.endpoint_id ?? '',
        state: row.state ?? '',
        attempts: Number(row.attempts ?? 0),
        lastStatus: row.last_status === null ? null : Number(row.last_status),
      };
    }
    return entry;
  });
  return { entries, more: rows.length > request.limit };
}
