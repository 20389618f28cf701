import type { Queryable } from '../database.js';

/**
 * @internal E-mail addresses of users are unique whatever their case: a unique index on
 * `lower(email)` replaces the case-sensitive `UNIQUE (email)`, so `DEMO@example.com` can no
 * longer be created beside `demo@example.com` (sign-in, which finds a user by `lower(email)`,
 * picked whichever row came first: a user with `users.manage` could lock another out). The index
 * also serves the lookups by `lower(email)` of sign-in and invitations. `lower()` folds as the
 * database's locale does, the same function those lookups use.
 */
export const userEmailCase = `
ALTER TABLE users DROP CONSTRAINT users_email_key;
CREATE UNIQUE INDEX users_lower_email_key ON users (lower(email));
`;

/** How many groups of colliding addresses the refusal names; it counts the rest. */
const namedGroups = 20;

/**
 * @internal Refuses {@link userEmailCase} while two users have addresses that differ only in
 * case, naming them (and their ids): which to keep is a person's decision, never the
 * migration's. The table is locked first, so that no such row arrives (from an instance of an
 * earlier release) between this check and the index.
 */
export async function userEmailCaseRefusal(queryable: Queryable): Promise<string | undefined> {
  await queryable.query('LOCK TABLE users IN SHARE MODE');
  const { rows } = await queryable.query<{ users: string; groups: string }>(
    `SELECT string_agg(email || ' (' || id || ')', ', ' ORDER BY email, id) AS users,
            count(*) OVER () AS groups
       FROM users GROUP BY lower(email) HAVING count(*) > 1
      ORDER BY min(email) LIMIT ${namedGroups}`,
  );
  const first = rows[0];
  if (!first) return undefined;
  const more = Number(first.groups) - rows.length;
  return (
    'E-mail addresses of users are now unique whatever their case, and some users have ' +
    `addresses that differ only in case: ${rows.map((row) => row.users).join('; ')}` +
    `${more > 0 ? `; and ${more} more such groups` : ''}. Give all but one user of each group ` +
    'another address, or delete them (PATCH or DELETE /api/users/{id} on the release running ' +
    'now), then start this release again.'
  );
}
