import type { Queryable } from '../storage/database.js';
import { type EndpointRow, infoColumns } from './webhook-endpoint-store.js';

// The keyset pages of `GET /api/webhook-endpoints`: oldest first (`created_at, id`), filtered
// by subscriber and state.

/** @internal The states the API shows: `failing` is an active endpoint whose attempts fail. */
export type EndpointListState = 'active' | 'failing' | 'disabled';

/** @internal What {@link readEndpointPage} reads. */
export interface EndpointPageRead {
  subscriber: string | undefined;
  state: EndpointListState | undefined;
  /** The row a page starts after: its `created_at` to the microsecond, and its id. */
  after: { createdAt: string; id: string } | undefined;
  /** Rows wanted; one more is read, to tell whether another page exists. */
  limit: number;
}

const stateConditions: Readonly<Record<EndpointListState, string>> = {
  active: "state = 'active' AND failing_since IS NULL",
  failing: "state = 'active' AND failing_since IS NOT NULL",
  disabled: "state = 'disabled'",
};

/**
 * @internal Up to `limit + 1` endpoints after `after`, oldest first, each with `cursor_at` (its
 * `created_at` as text, to the microsecond) for the page's cursor.
 */
export async function readEndpointPage(
  queryable: Queryable,
  read: EndpointPageRead,
): Promise<(EndpointRow & { cursor_at: string })[]> {
  const values: unknown[] = [read.limit + 1];
  const where: string[] = [];
  if (read.subscriber !== undefined) {
    values.push(read.subscriber);
    where.push(`subscriber = $${values.length}`);
  }
  if (read.state !== undefined) where.push(stateConditions[read.state]);
  if (read.after !== undefined) {
    values.push(read.after.createdAt, read.after.id);
    where.push(`(created_at, id) > ($${values.length - 1}::timestamptz, $${values.length})`);
  }
  const { rows } = await queryable.query<EndpointRow & { cursor_at: string }>(
    `SELECT ${infoColumns}, created_at::text AS cursor_at FROM webhook_endpoints
      ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY created_at, id LIMIT $1`,
    values,
  );
  return rows;
}
