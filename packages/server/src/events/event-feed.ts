import { WEBHOOK_EVENT_KINDS, type WebhookEventKind } from '@followup/sdk';
import { type Capability, hasCapability } from '../capabilities.js';
import { FollowUpServerError } from '../errors.js';
import { type ChangePosition, parseChangePosition } from '../storage/change-order.js';
import type { Queryable } from '../storage/database.js';
import {
  type EventFeedRow,
  findEvent,
  findEventPosition,
  readEventsAfter,
} from '../stores/event-feed-store.js';
import type { Role } from '../tokens/role.js';

/**
 * @internal The capability that lets a caller see each kind of event: the one that reads the
 * record it is about. Inbox messages are read with `contacts.read` (as `GET /api/messages`); EHR
 * receipts belong to the operators, so with `audit.read`; the operational `endpoint.*` events
 * name endpoints' URLs and subscribers, so with `webhooks.manage`, as the endpoints.
 */
export const eventKindCapabilities: Readonly<Record<WebhookEventKind, Capability>> = {
  'contact.created': 'contacts.read',
  'contact.updated': 'contacts.read',
  'contact.deleted': 'contacts.read',
  'contact.erased': 'contacts.read',
  'deal.created': 'deals.read',
  'deal.updated': 'deals.read',
  'deal.deleted': 'deals.read',
  'message.received': 'contacts.read',
  'ehr.receipt.recorded': 'audit.read',
  'endpoint.failing': 'webhooks.manage',
  'endpoint.disabled': 'webhooks.manage',
  'endpoint.enabled': 'webhooks.manage',
  'endpoint.recovered': 'webhooks.manage',
};

/** @internal The event kinds a role may see in the feed. */
export function visibleEventKinds(role: Role): WebhookEventKind[] {
  return WEBHOOK_EVENT_KINDS.filter((kind) => hasCapability(role, eventKindCapabilities[kind]));
}

/** One event of the feed: the object outbound webhooks carry, with the event's own id. */
export interface FeedEvent {
  /** `evt_…` */
  id: string;
  /** The event kind. */
  event: string;
  /** When the change happened (ISO 8601 UTC). */
  createdAt: string;
  /** The record the event is about. */
  data: Record<string, unknown>;
  /** For a `*.updated` event, the former values of the fields that changed. */
  previousAttributes?: Record<string, unknown>;
}

/** @internal One page of the feed. */
export interface EventPage {
  events: FeedEvent[];
  /** Pass it back as `cursor` for the next page; `null` on the last page for now. */
  nextCursor: string | null;
}

const cursorPrefix = 'events:v1:';

/** @internal The opaque cursor that points after the event at `(xid, seq)`. */
export function encodeEventCursor(xid: string, seq: string): string {
  return Buffer.from(`${cursorPrefix}${xid}:${seq}`, 'utf8').toString('base64url');
}

/** @internal Reads a cursor back; `undefined` for anything this server did not make. */
export function decodeEventCursor(cursor: string): ChangePosition | undefined {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(cursor)) return undefined;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!text.startsWith(cursorPrefix)) return undefined;
  const [xid = '', seq = '', ...rest] = text.slice(cursorPrefix.length).split(':');
  return rest.length > 0 ? undefined : parseChangePosition(xid, seq);
}

/** @internal What {@link listEvents} reads. */
export interface ListEventsOptions {
  /** The kinds to return; only those are read. */
  kinds: readonly string[];
  /** 1 to 200. */
  limit: number;
  /** A `nextCursor` of an earlier page. */
  cursor?: string;
  /** The id of an event already processed: the walk continues after it. */
  after?: string;
}

function invalid(code: string, message: string): FollowUpServerError {
  return new FollowUpServerError({ code, message });
}

/**
 * @internal Reads one page of the event feed, oldest first. Only events whose transaction ended
 * before every transaction still running are read, in `(xid, seq)` order (migration 8 says why),
 * so a walk that passes each `nextCursor` back sees every event of the requested kinds exactly
 * once while writes go on. `invalid_cursor` for a cursor this server did not make, or an `after`
 * id it does not hold.
 */
export async function listEvents(
  database: Queryable,
  options: ListEventsOptions,
): Promise<EventPage> {
  let position = { xid: '0', seq: '0' };
  if (options.cursor !== undefined) {
    const decoded = decodeEventCursor(options.cursor);
    if (decoded === undefined) {
      throw invalid('invalid_cursor', 'cursor is not a nextCursor of this event feed.');
    }
    position = decoded;
  } else if (options.after !== undefined) {
    const row = await findEventPosition(database, options.after);
    if (!row) throw invalid('invalid_after', 'after names no event this server holds.');
    position = row;
  }
  if (options.kinds.length === 0) return { events: [], nextCursor: null };
  // One row more than asked tells whether another page exists, without a count.
  const rows = await readEventsAfter(database, {
    position,
    kinds: options.kinds,
    limit: options.limit + 1,
  });
  const page = rows.slice(0, options.limit);
  const last = page.at(-1);
  return {
    events: page.map(feedEventOf),
    nextCursor: rows.length > options.limit && last ? encodeEventCursor(last.xid, last.seq) : null,
  };
}

function feedEventOf(row: EventFeedRow): FeedEvent {
  return {
    id: row.id,
    event: row.event,
    createdAt: row.created_at,
    data: row.data,
    ...(row.previous_attributes === null ? {} : { previousAttributes: row.previous_attributes }),
  };
}

/**
 * @internal One event as the feed shows it (its values `"[erased]"` where a person was erased),
 * or `undefined` when the server does not hold it (never written, or pruned past retention) or
 * its kind is not among `kinds`, those the caller may see: an event the caller may not read is
 * answered as one that does not exist, so that its id tells nothing.
 */
export async function findFeedEvent(
  database: Queryable,
  options: { id: string; kinds: readonly string[] },
): Promise<FeedEvent | undefined> {
  const row = await findEvent(database, options.id);
  if (row === undefined || !options.kinds.includes(row.event)) return undefined;
  return feedEventOf(row);
}
