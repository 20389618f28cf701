import type { Queryable } from '../storage/database.js';
import {
  type AuditDependencies,
  type AuditEntry,
  auditEntryPart,
  type NewAuditEntry,
} from './audit-store.js';
import { type NewOutboxEvent, type OutboxEvent, outboxEventPart } from './outbox-store.js';
import { createSqlParameters } from './sql-part.js';

/**
 * @internal Writes a change's audit entry and its outbox event in one statement: what
 * {@link recordAuditEntry} and {@link recordOutboxEvent} write one after the other, in one round
 * trip instead of two. Pass the transaction of the change, and wake the delivery workers after
 * its commit, as for {@link recordOutboxEvent}.
 *
 * @example
 * ```ts
 * await recordChange(transaction, {
 *   audit: { action: 'contact.created', actor, target: { type: 'contact', id }, metadata },
 *   event: { event: 'contact.created', data: contact },
 * }, { clock, newId });
 * ```
 */
export async function recordChange(
  queryable: Queryable,
  change: { audit: NewAuditEntry; event: NewOutboxEvent },
  dependencies: AuditDependencies,
): Promise<{ auditEntry: AuditEntry; event: OutboxEvent }> {
  const parameters = createSqlParameters();
  const audit = auditEntryPart(change.audit, dependencies, parameters);
  const event = outboxEventPart(change.event, dependencies, parameters);
  await queryable.query(`WITH ${audit.ctes}, ${event.ctes} ${event.select}`, parameters.values);
  return { auditEntry: audit.entry, event: event.event };
}
