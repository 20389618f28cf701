import { DEAL_STAGE_VALUES } from '@followup/sdk';
import type { Queryable } from '../storage/database.js';
import type { KeysetListFilters } from './resource-list-store.js';
import { itemColumns, itemFromRow, type ResourceRowShape } from './resource-rows.js';

/** @internal How a deal is stored: what `deal.*` events and the routes read back. */
export const dealStorage: ResourceRowShape = {
  fields: {
    contactId: { column: 'contact_id' },
    title: { column: 'title' },
    stage: { column: 'stage' },
    amountCents: { column: 'amount_cents', type: 'integer' },
    currency: { column: 'currency' },
  },
  updatedAt: true,
};

/**
 * @internal The filters of a deals list, `GET /api/deals` and the web application's Deals page
 * alike: `stage` (repeatable, open to values added later) and `q` (a case-insensitive prefix of
 * the title, the one text of a deal people name it by; the currency is a code, the stage a
 * filter of its own).
 */
export const dealListFilters: KeysetListFilters = {
  oneOf: { parameter: 'stage', column: 'stage', values: DEAL_STAGE_VALUES, open: true },
  search: { columns: ['title'], description: 'A case-insensitive prefix of the title' },
};

/** @internal The deal with this id, as the API returns it, or `undefined`. */
export async function readDeal(
  queryable: Queryable,
  id: string,
): Promise<Record<string, unknown> | undefined> {
  const { rows } = await queryable.query(
    `SELECT ${itemColumns(dealStorage)} FROM deals WHERE id = $1`,
    [id],
  );
  const row = rows[0];
  return row ? itemFromRow(dealStorage, row) : undefined;
}

/**
 * @internal Deletes every deal of a contact, in the caller's transaction (the contact's delete,
 * which locked the contact first); answers the deals as they were, in id order.
 */
export async function deleteContactDeals(
  transaction: Queryable,
  contactId: string,
): Promise<Record<string, unknown>[]> {
  const { rows } = await transaction.query(
    `DELETE FROM deals WHERE contact_id = $1 RETURNING ${itemColumns(dealStorage)}`,
    [contactId],
  );
  rows.sort((a, b) => String(a.id).localeCompare(String(b.id)));
  return rows.map((row) => itemFromRow(dealStorage, row));
}

/**
 * @internal A contact's deals, newest first, at most `limit` of them, and how many it has: what
 * a contact's page lists.
 */
export async function listContactDeals(
  queryable: Queryable,
  request: { contactId: string; limit: number },
): Promise<{ deals: Record<string, unknown>[]; total: number }> {
  const { rows } = await queryable.query(
    `SELECT ${itemColumns(dealStorage)}, count(*) OVER () AS total FROM deals
      WHERE contact_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`,
    [request.contactId, request.limit],
  );
  // The count over every deal of the contact, before the limit: one statement, one snapshot.
  const total = rows[0] ? Number(rows[0].total) : 0;
  return { deals: rows.map((row) => itemFromRow(dealStorage, row)), total };
}

/** @internal Demo deals as columns: the nth deal is the nth value of each. */
export interface DemoDealColumns {
  id: string[];
  contact: string[];
  title: string[];
  stage: string[];
  /** In cents, as decimal text. */
  amount: string[];
  /** `created_at` and `updated_at`, ISO 8601. */
  at: string[];
}

/** @internal Inserts demo deals in US dollars in one statement, without events (a bulk load). */
export async function insertDemoDeals(
  transaction: Queryable,
  deals: DemoDealColumns,
): Promise<void> {
  await transaction.query(
    `INSERT INTO deals
             (id, contact_id, title, stage, amount_cents, currency, created_at, updated_at)
           SELECT id, contact_id, title, stage, amount, 'USD', at, at
             FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[],
                         $6::timestamptz[]) AS t(id, contact_id, title, stage, amount, at)`,
    [deals.id, deals.contact, deals.title, deals.stage, deals.amount, deals.at],
  );
}
