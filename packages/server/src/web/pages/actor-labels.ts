import type { Capability } from '../../capabilities.js';
import type { Queryable } from '../../storage/database.js';
import { findActorNames } from '../../stores/actor-name-store.js';
import type { AuditActor } from '../../stores/audit-store.js';

/** @internal Who acted, as the console shows it: a name, linked, and the kind in words. */
export interface ActorLabel {
  /** `user`, `service account`, `operator` or `system`. */
  kind: string;
  /** The user's or account's name; `null` for the operator and the server, or a removed one. */
  name: string | null;
  /** The `usr_…` or `sa_…` id, or `null`. */
  id: string | null;
  /**
   * Our page about them, or `null`: a service account's page (for a role that manages them,
   * otherwise its entries in the audit log); a user's entries in the audit log (users have no
   * page of their own).
   */
  href: string | null;
}

const kindWords: Record<AuditActor['type'], string> = {
  user: 'user',
  service_account: 'service account',
  operator: 'operator',
  system: 'system',
  portal: 'subscriber portal',
};

/**
 * @internal The labels of the actors of a page of entries, their names read in one statement
 * (never one per row). `capabilities` are the viewer's: a link goes only where they may go.
 */
export async function actorLabels(
  database: Queryable,
  options: { actors: readonly AuditActor[]; capabilities: ReadonlySet<Capability> },
): Promise<(actor: AuditActor) => ActorLabel> {
  const ids = (type: AuditActor['type']) => [
    ...new Set(
      options.actors.flatMap((actor) => (actor.type === type && actor.id ? [actor.id] : [])),
    ),
  ];
  const rows = await findActorNames(database, {
    userIds: ids('user'),
    accountIds: ids('service_account'),
  });
  const names = new Map(rows.map((row) => [`${row.kind}:${row.id}`, row.name]));
  return (actor) => {
    const kind = kindWords[actor.type] ?? actor.type;
    // A portal actor is a subscriber, named by its key; it has no page of its own.
    if (actor.type === 'portal')
      return { kind, name: actor.subscriber ?? null, id: null, href: null };
    if (!actor.id) return { kind, name: null, id: null, href: null };
    const entries = `/audit-log?actor=${encodeURIComponent(actor.id)}`;
    const href =
      actor.type === 'service_account' && options.capabilities.has('users.manage')
        ? `/service-accounts/${encodeURIComponent(actor.id)}`
        : entries;
    return { kind, name: names.get(`${actor.type}:${actor.id}`) ?? null, id: actor.id, href };
  };
}
