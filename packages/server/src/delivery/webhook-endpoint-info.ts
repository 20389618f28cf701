import type { EndpointRow } from '../stores/webhook-endpoint-store.js';

/** @internal An endpoint as the operator sees it: never its secrets. */
export interface WebhookEndpointInfo {
  id: string;
  url: string;
  events: string[];
  state: 'active' | 'disabled';
  /**
   * Why the server disabled it: `gone` (the subscriber answered 410) or `failing` (every attempt
   * failed for the auto-disable period); `null` when active or disabled by a person.
   */
  disabledReason: 'gone' | 'failing' | null;
  /** Since when every attempt has failed, or `null` after a success. */
  failingSince: string | null;
  /** Until when the previous secret still signs (a rotation's overlap), or `null`. */
  previousSecretUntil: string | null;
  /** What it is for, or `null`. */
  description: string | null;
  /** The subscriber it belongs to (the portal's key), or `null`. */
  subscriber: string | null;
  /** Static headers sent with each delivery, under the delivery's own. */
  headers: Record<string, string>;
  /** At most this many deliveries per second (a burst of twice that), or `null`. */
  rateLimit: number | null;
  /** How long one attempt may take, in seconds. */
  timeoutSeconds: number;
  /** `full` or `thin` bodies: deliveries queued from then on carry it (`thin-event-data.ts`). */
  payload: 'full' | 'thin';
  createdAt: string;
  updatedAt: string;
}

/** @internal An endpoint's row as {@link WebhookEndpointInfo}, at `now`. */
export function toInfo(row: EndpointRow, now: number): WebhookEndpointInfo {
  const until = row.previous_secret_until;
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    state: row.state,
    disabledReason: row.disabled_reason,
    failingSince: row.failing_since,
    previousSecretUntil: until !== null && Date.parse(until) > now ? until : null,
    description: row.description,
    subscriber: row.subscriber,
    headers: row.headers,
    rateLimit: row.rate_limit,
    timeoutSeconds: row.timeout_seconds,
    payload: row.payload,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
