import type { IdPrefix } from '../ids.js';
import type { ChangeOrder } from '../storage/change-order.js';
import type { Queryable } from '../storage/database.js';
import type { AuditActor } from './audit-store.js';
import type { ResourceRowShape } from './resource-rows.js';

/** What a resource's hooks may do inside the transaction of a change. */
export interface ResourceChange {
  /** The transaction the change runs in. */
  transaction: Queryable;
  /** The record as the API returns it, after the change. */
  item: Record<string, unknown>;
  /** The id of who made the change: the service account's `sa_…` or the user's `usr_…`. */
  accountId: string;
  /** Who made the change, as the audit log records it. */
  actor: AuditActor;
  /** The fields the request set. */
  fields: string[];
}

/**
 * @internal How one resource family is stored, for its store ({@link resourceStore}): the
 * table, the fields, the ids, the change order, what is audited and announced, and the hooks that
 * run in a change's transaction. The routes' definition adds the path, schemas and capabilities.
 */
export interface ResourceTable extends ResourceRowShape {
  /** Singular, lower case: `contact`. Names the audit target type, and the events. */
  name: string;
  /** The list's key, and the table: `contacts`. */
  collection: string;
  /** The prefix of new ids. */
  idPrefix: IdPrefix;
  /** Values of fields a create may leave out, such as `lifecycle: 'LEAD'`. */
  defaults?: Readonly<Record<string, unknown>>;
  /**
   * The rows carry `change_seq` in this change order (the order of `sort=updatedAt`); a delete
   * leaves the id in `tombstones` when given.
   */
  changes?: { order: ChangeOrder; tombstones?: string };
  /** Which changes are written to the audit log as `<name>.<change>`. */
  audited: { created: boolean; updated: boolean; deleted: boolean };
  /**
   * Whether changes write `<name>.created`, `<name>.updated` (with `previousAttributes`, only
   * when a field's value changed) and `<name>.deleted` events into the outbox, in the change's
   * transaction. `onOutboxEvent` is told after such a change committed.
   */
  events?: { onOutboxEvent?: () => void };
  /** Runs in the transaction of a create, after the insert. */
  afterCreate?: (change: ResourceChange) => Promise<void>;
  /** Runs in the transaction of an update, after it (a user's role change ends their sessions). */
  afterUpdate?: (change: ResourceChange) => Promise<void>;
  /**
   * Runs in the transaction of a delete, before the delete, with the id; returns the audit
   * entry's metadata (a contact counts the deals its deletion removes).
   */
  beforeDelete?: (transaction: Queryable, id: string) => Promise<Record<string, unknown>>;
}
