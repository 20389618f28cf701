import type { Queryable } from '../storage/database.js';

/** @internal Inserts a sign-in link; the database keeps the SHA-256 of its token only. */
export async function insertSignInLink(
  queryable: Queryable,
  link: { id: string; userId: string; tokenSha256: Buffer; createdAt: Date; expiresAt: Date },
): Promise<void> {
  await queryable.query(
    `INSERT INTO sign_in_links (id, user_id, token_sha256, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5)`,
    [link.id, link.userId, link.tokenSha256, link.createdAt, link.expiresAt],
  );
}

/**
 * @internal The unused, unexpired link with this token digest, of an enabled user, with the
 * user's e-mail address; `undefined` when none. With `consume`, the link is used up by the same
 * statement, so that of concurrent uses one finds it.
 */
export async function findUsableSignInLinkRow(
  queryable: Queryable,
  options: { tokenSha256: Buffer; now: number; consume: boolean },
): Promise<{ id: string; user_id: string; email: string } | undefined> {
  const { rows } = await queryable.query<{ id: string; user_id: string; email: string }>(
    options.consume
      ? `UPDATE sign_in_links l SET used_at = $2 FROM users u
          WHERE l.token_sha256 = $1 AND l.used_at IS NULL AND l.expires_at > $2
            AND u.id = l.user_id AND u.disabled_at IS NULL
          RETURNING l.id, l.user_id, u.email`
      : `SELECT l.id, l.user_id, u.email FROM sign_in_links l JOIN users u ON u.id = l.user_id
          WHERE l.token_sha256 = $1 AND l.used_at IS NULL AND l.expires_at > $2
            AND u.disabled_at IS NULL`,
    [options.tokenSha256, new Date(options.now)],
  );
  return rows[0];
}

/** @internal Deletes every sign-in link of a user (a new invite, a disabled user). */
export async function deleteSignInLinksOfUser(queryable: Queryable, userId: string): Promise<void> {
  await queryable.query('DELETE FROM sign_in_links WHERE user_id = $1', [userId]);
}

/** @internal Deletes the links used, or expired at `now`; answers how many. */
export async function deleteSpentSignInLinks(queryable: Queryable, now: Date): Promise<number> {
  const links = await queryable.query(
    'DELETE FROM sign_in_links WHERE used_at IS NOT NULL OR expires_at <= $1',
    [now],
  );
  return links.rowCount;
}
