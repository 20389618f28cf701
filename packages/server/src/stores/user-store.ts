import type { Queryable } from '../storage/database.js';
import type { StoredRole } from './service-account-store.js';

/** @internal A user as lists show them: their state's inputs and how many sessions they hold. */
export interface UserInfoRow {
  id: string;
  email: string;
  name: string;
  role: StoredRole;
  has_password: boolean;
  disabled_at: string | null;
  sessions: string;
  created_at: string;
}

const userInfoColumns = `u.id, u.email, u.name, u.role, u.password_hash IS NOT NULL AS has_password,
  u.disabled_at, u.created_at,
  (SELECT count(*) FROM sessions s WHERE s.user_id = u.id) AS sessions`;

/**
 * @internal What a password sign-in needs, in one statement: the address as the lookup compares
 * it (the database's `lower()`), and the enabled user it finds, if any (`id` `null` otherwise).
 */
export async function findUserForPasswordSignIn(
  queryable: Queryable,
  email: string,
): Promise<{ lower_email: string; id: string | null; password_hash: string | null } | undefined> {
  const { rows } = await queryable.query<{
    lower_email: string;
    id: string | null;
    password_hash: string | null;
  }>(
    `SELECT lower($1::text) AS lower_email, u.id, u.password_hash
       FROM (SELECT 1) AS attempt
       LEFT JOIN users u ON lower(u.email) = lower($1::text) AND u.disabled_at IS NULL`,
    [email],
  );
  return rows[0];
}

/** @internal Sets a user's password hash (argon2id). */
export async function setUserPasswordHash(
  queryable: Queryable,
  options: { userId: string; passwordHash: string },
): Promise<void> {
  await queryable.query('UPDATE users SET password_hash = $2 WHERE id = $1', [
    options.userId,
    options.passwordHash,
  ]);
}

/** @internal The user with this address in any case, locked until the end of the transaction. */
export async function lockUserByEmail(
  transaction: Queryable,
  email: string,
): Promise<
  { id: string; email: string; password_hash: string | null; disabled_at: Date | null } | undefined
> {
  const { rows } = await transaction.query<{
    id: string;
    email: string;
    password_hash: string | null;
    disabled_at: Date | null;
  }>(
    'SELECT id, email, password_hash, disabled_at FROM users WHERE lower(email) = lower($1) FOR UPDATE',
    [email],
  );
  return rows[0];
}

/** @internal Invites a user again: the new role, the new name if one is given, enabled. */
export async function updateReinvitedUser(
  transaction: Queryable,
  options: { userId: string; role: StoredRole; name: string | null },
): Promise<void> {
  await transaction.query(
    'UPDATE users SET role = $2, name = COALESCE($3, name), disabled_at = NULL WHERE id = $1',
    [options.userId, options.role, options.name],
  );
}

/**
 * @internal Inserts a user, unless a user has the address already in any case (the unique index
 * on `lower(email)` decides, even against a concurrent insert). Answers whether it inserted.
 */
export async function insertUserUnlessEmailTaken(
  transaction: Queryable,
  user: { id: string; email: string; name: string; role: StoredRole; createdAt: Date },
): Promise<boolean> {
  const inserted = await transaction.query(
    `INSERT INTO users (id, email, name, role, created_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT ((lower(email))) DO NOTHING RETURNING id`,
    [user.id, user.email, user.name, user.role, user.createdAt],
  );
  return inserted.rows.length > 0;
}

/** @internal Users, oldest first, `limit` from `offset`. */
export async function listUserInfoRows(
  queryable: Queryable,
  options: { limit: number; offset: number },
): Promise<UserInfoRow[]> {
  const { rows } = await queryable.query<UserInfoRow>(
    `SELECT ${userInfoColumns} FROM users u ORDER BY u.created_at, u.id LIMIT $1 OFFSET $2`,
    [options.limit, options.offset],
  );
  return rows;
}

/** @internal One user as lists show them, or `undefined`. */
export async function findUserInfoRow(
  queryable: Queryable,
  userId: string,
): Promise<UserInfoRow | undefined> {
  const { rows } = await queryable.query<UserInfoRow>(
    `SELECT ${userInfoColumns} FROM users u WHERE u.id = $1`,
    [userId],
  );
  return rows[0];
}

/** @internal A user's `disabled_at`, locked until the end of the transaction; or `undefined`. */
export async function lockUserDisabledAt(
  transaction: Queryable,
  userId: string,
): Promise<{ disabled_at: string | null } | undefined> {
  const { rows } = await transaction.query<{ disabled_at: string | null }>(
    'SELECT disabled_at FROM users WHERE id = $1 FOR UPDATE',
    [userId],
  );
  return rows[0];
}

/** @internal Marks a user disabled at `now`. */
export async function markUserDisabled(
  transaction: Queryable,
  options: { userId: string; now: number },
): Promise<void> {
  await transaction.query('UPDATE users SET disabled_at = $2 WHERE id = $1', [
    options.userId,
    new Date(options.now),
  ]);
}

/** @internal A user's role, locked until the end of the transaction; or `undefined`. */
export async function lockUserRole(
  transaction: Queryable,
  userId: string,
): Promise<{ role: StoredRole } | undefined> {
  const { rows } = await transaction.query<{ role: StoredRole }>(
    'SELECT role FROM users WHERE id = $1 FOR UPDATE',
    [userId],
  );
  return rows[0];
}

/** @internal Sets a user's role. */
export async function setUserRole(
  transaction: Queryable,
  options: { userId: string; role: StoredRole },
): Promise<void> {
  await transaction.query('UPDATE users SET role = $2 WHERE id = $1', [
    options.userId,
    options.role,
  ]);
}

/** @internal Locks a user until the end of the transaction; answers whether they exist. */
export async function lockUser(transaction: Queryable, userId: string): Promise<boolean> {
  const { rows } = await transaction.query('SELECT id FROM users WHERE id = $1 FOR UPDATE', [
    userId,
  ]);
  return rows[0] !== undefined;
}
/**
 * @internal The demo ADMIN user of `start --demo` with this address: inserted when no user has
 * the address in any case, then made an enabled ADMIN again (even if someone changed or disabled
 * them). Answers the user's id, or `undefined` if none could be made.
 */
export async function upsertDemoAdmin(
  transaction: Queryable,
  options: { id: string; email: string; now: Date },
): Promise<string | undefined> {
  const inserted = await transaction.query<{ id: string }>(
    `INSERT INTO users (id, email, name, role, created_at) VALUES ($1, $2, 'Demo admin', 'ADMIN', $3)
       ON CONFLICT ((lower(email))) DO NOTHING RETURNING id`,
    [options.id, options.email, options.now],
  );
  // Addresses are unique whatever their case: a `DEMO@example.com` made by hand is this user.
  const { rows } = await transaction.query<{ id: string }>(
    'SELECT id FROM users WHERE lower(email) = lower($1)',
    [options.email],
  );
  const userId = inserted.rows[0]?.id ?? rows[0]?.id;
  if (!userId) return undefined;
  await transaction.query("UPDATE users SET role = 'ADMIN', disabled_at = NULL WHERE id = $1", [
    userId,
  ]);
  return userId;
}
