import { LIFECYCLE_VALUES } from '@followup/sdk';
import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import { contactChangeOrder } from '../storage/change-order.js';
import type { Queryable } from '../storage/database.js';
import { deleteContactDeals } from './deal-store.js';
import { recordOutboxEvent } from './outbox-store.js';
import type { KeysetListFilters } from './resource-list-store.js';
import { itemColumns, itemFromRow, type ResourceRowShape } from './resource-rows.js';
import type { ResourceTable } from './resource-table.js';

// Beside the migration lock (7312045781) and the former audit lock (7312045782).
const BATCH_LOCK_KEY = '7312045790';

/** @internal How a contact is stored: its fields, as the API names them, and their columns. */
export const contactStorage: ResourceRowShape = {
  fields: {
    firstName: { column: 'first_name' },
    lastName: { column: 'last_name' },
    lifecycle: { column: 'lifecycle' },
    email: { column: 'email', optional: true },
    phone: { column: 'phone', optional: true },
  },
  updatedAt: true,
};

/**
 * @internal The filters of a contacts list, `GET /api/contacts` and the web application's
 * Contacts page alike: `lifecycle` (repeatable, open to values added later), `email` (exact,
 * case-insensitive) and `q` (a case-insensitive prefix of the first name, the last name or the
 * e-mail).
 */
export const contactListFilters: KeysetListFilters = {
  oneOf: { parameter: 'lifecycle', column: 'lifecycle', values: LIFECYCLE_VALUES, open: true },
  email: 'email',
  search: {
    columns: ['first_name', 'last_name', 'email'],
    description: 'A case-insensitive prefix of the first name, the last name or the e-mail',
  },
};

/**
 * @internal How contacts are stored, for their store (`resourceStore`) and for the actions that
 * run outside the routes (a contact's erasure deletes it as `DELETE /api/contacts/{id}` does):
 * table, fields, change order and tombstones, what is audited, events, and the delete that takes
 * its deals along (a `deal.deleted` event each).
 */
export function contactTable(options: {
  clock: Clock;
  newId: IdGenerator;
  /** Told after a change committed its event. */
  onOutboxEvent?: (() => void) | undefined;
}): ResourceTable {
  const { clock, newId, onOutboxEvent } = options;
  return {
    name: 'contact',
    collection: 'contacts',
    idPrefix: 'con',
    ...contactStorage,
    defaults: { lifecycle: 'LEAD' },
    changes: { order: contactChangeOrder, tombstones: 'contact_tombstones' },
    audited: { created: true, updated: false, deleted: true },
    events: onOutboxEvent ? { onOutboxEvent } : {},
    async beforeDelete(transaction, id) {
      // Lock the contact first: a deal cannot be added to it between this delete and the
      // contact's. Its deals go first, each announced as deleted.
      await transaction.query('SELECT id FROM contacts WHERE id = $1 FOR UPDATE', [id]);
      const deals = await deleteContactDeals(transaction, id);
      for (const deal of deals) {
        await recordOutboxEvent(
          transaction,
          { event: 'deal.deleted', data: deal },
          { clock, newId },
        );
      }
      return { dealsDeleted: deals.length };
    },
  };
}

/**
 * @internal The contact with this id, locked until the caller's transaction ends (an update or a
 * new deal waits for it), or `null`.
 */
export async function lockContact(
  transaction: Queryable,
  contactId: string,
): Promise<Record<string, unknown> | null> {
  const { rows } = await transaction.query(
    `SELECT ${itemColumns(contactStorage)} FROM contacts WHERE id = $1 FOR UPDATE`,
    [contactId],
  );
  const row = rows[0];
  return row ? itemFromRow(contactStorage, row) : null;
}

/**
 * @internal Waits for the contact batches of other transactions to end, and holds the turn until
 * the caller's transaction ends: two batches naming one new e-mail at once create it once.
 */
export async function takeContactBatchTurn(transaction: Queryable): Promise<void> {
  await transaction.query('SELECT pg_advisory_xact_lock($1::bigint)', [BATCH_LOCK_KEY]);
}

/** @internal The oldest contact with this e-mail address, compared case-insensitively, or `undefined`. */
export async function findContactByEmail(
  transaction: Queryable,
  email: string,
): Promise<Record<string, unknown> | undefined> {
  const { rows } = await transaction.query(
    `SELECT ${itemColumns(contactStorage)} FROM contacts WHERE lower(email) = lower($1)
              ORDER BY created_at, id LIMIT 1`,
    [email],
  );
  const row = rows[0];
  return row ? itemFromRow(contactStorage, row) : undefined;
}

/** @internal Demo contacts as columns: the nth contact is the nth value of each. */
export interface DemoContactColumns {
  id: string[];
  first: string[];
  last: string[];
  lifecycle: string[];
  email: string[];
  /** `created_at` and `updated_at`, ISO 8601. */
  at: string[];
}

/** @internal Inserts demo contacts in one statement, without events (a bulk load). */
export async function insertDemoContacts(
  transaction: Queryable,
  contacts: DemoContactColumns,
): Promise<void> {
  await transaction.query(
    `INSERT INTO contacts (id, first_name, last_name, lifecycle, email, created_at, updated_at)
         SELECT id, first_name, last_name, lifecycle, email, at, at
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[],
                       $6::timestamptz[]) AS t(id, first_name, last_name, lifecycle, email, at)`,
    [contacts.id, contacts.first, contacts.last, contacts.lifecycle, contacts.email, contacts.at],
  );
}
