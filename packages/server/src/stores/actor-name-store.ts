import type { Queryable } from '../storage/database.js';

/** @internal The name of a user or a service account that acted, as the console shows it. */
export interface ActorNameRow {
  kind: 'user' | 'service_account';
  id: string;
  /** The user's name, or their email when they gave none; the account's name. */
  name: string;
}

/**
 * @internal The names of the users and service accounts with these ids, in one statement (a
 * page of the audit log asks once, not once per row). Ids that name nothing are left out: a
 * removed record, or an actor id of another kind.
 */
export async function findActorNames(
  queryable: Queryable,
  ids: { userIds: readonly string[]; accountIds: readonly string[] },
): Promise<ActorNameRow[]> {
  if (ids.userIds.length === 0 && ids.accountIds.length === 0) return [];
  const { rows } = await queryable.query<ActorNameRow>(
    `SELECT 'user' AS kind, id, COALESCE(NULLIF(name, ''), email) AS name
       FROM users WHERE id = ANY($1::text[])
     UNION ALL
     SELECT 'service_account' AS kind, id, name
       FROM service_accounts WHERE id = ANY($2::text[])`,
    [[...ids.userIds], [...ids.accountIds]],
  );
  return rows;
}
