import type { ROLE_VALUES } from '@followup/sdk';
import type { Queryable } from '../storage/database.js';

/** @internal A role as the `service_accounts` and `users` tables hold it. */
export type StoredRole = (typeof ROLE_VALUES)[number];

/** @internal A row of `service_accounts`, as the store reads it. */
export interface ServiceAccountRow {
  id: string;
  name: string;
  role: StoredRole;
  created_at: string;
  disabled_at: string | null;
}

const accountColumns = 'id, name, role, created_at, disabled_at';

/** @internal Inserts a new, enabled service account. */
export async function insertServiceAccount(
  queryable: Queryable,
  account: { id: string; name: string; role: StoredRole; createdAt: string },
): Promise<void> {
  await queryable.query(
    'INSERT INTO service_accounts (id, name, role, created_at) VALUES ($1, $2, $3, $4)',
    [account.id, account.name, account.role, account.createdAt],
  );
}

/**
 * @internal Service accounts, oldest first, each with its number of tokens neither revoked nor
 * expired at `now`: all of them (`limit` `null`), or `limit` after skipping `offset`.
 */
export async function listServiceAccountRows(
  queryable: Queryable,
  options: { now: number; limit: number | null; offset: number },
): Promise<(ServiceAccountRow & { active_tokens: number })[]> {
  const { rows } = await queryable.query<ServiceAccountRow & { active_tokens: number }>(
    `SELECT a.id, a.name, a.role, a.created_at, a.disabled_at,
                (SELECT count(*)::int FROM tokens t
                  WHERE t.account_id = a.id AND t.revoked_at IS NULL
                    AND (t.expires_at IS NULL OR t.expires_at > $1)) AS active_tokens
           FROM service_accounts a ORDER BY a.created_at, a.id LIMIT $2 OFFSET $3`,
    [new Date(options.now), options.limit, options.offset],
  );
  return rows;
}

/** @internal One service account, or `undefined`. */
export async function findServiceAccountRow(
  queryable: Queryable,
  accountId: string,
): Promise<ServiceAccountRow | undefined> {
  const { rows } = await queryable.query<ServiceAccountRow>(
    `SELECT ${accountColumns} FROM service_accounts WHERE id = $1`,
    [accountId],
  );
  return rows[0];
}

/** @internal One service account, locked until the end of the transaction, or `undefined`. */
export async function lockServiceAccountRow(
  transaction: Queryable,
  accountId: string,
): Promise<ServiceAccountRow | undefined> {
  const { rows } = await transaction.query<ServiceAccountRow>(
    `SELECT ${accountColumns} FROM service_accounts WHERE id = $1 FOR UPDATE`,
    [accountId],
  );
  return rows[0];
}

/**
 * @internal Whether a service account is disabled, locking it until the end of the transaction
 * (so that it cannot be disabled while a token is issued to it); `undefined` for an unknown id.
 */
export async function lockServiceAccountState(
  transaction: Queryable,
  accountId: string,
): Promise<{ disabled_at: string | null } | undefined> {
  const { rows } = await transaction.query<{ disabled_at: string | null }>(
    'SELECT disabled_at FROM service_accounts WHERE id = $1 FOR UPDATE',
    [accountId],
  );
  return rows[0];
}

/** @internal Marks a service account disabled at `now`; answers the updated row. */
export async function markServiceAccountDisabled(
  transaction: Queryable,
  options: { accountId: string; now: number },
): Promise<ServiceAccountRow> {
  const { rows } = await transaction.query<ServiceAccountRow>(
    `UPDATE service_accounts SET disabled_at = $2 WHERE id = $1 RETURNING ${accountColumns}`,
    [options.accountId, new Date(options.now)],
  );
  return rows[0] as ServiceAccountRow;
}

/**
 * @internal The id of the oldest enabled ADMIN service account with this name, or `undefined`:
 * the account `start --demo` reuses on every restart.
 */
export async function findEnabledAdminAccountId(
  queryable: Queryable,
  name: string,
): Promise<string | undefined> {
  const { rows } = await queryable.query<{ id: string }>(
    `SELECT id FROM service_accounts
      WHERE name = $1 AND role = 'ADMIN' AND disabled_at IS NULL
      ORDER BY created_at, id LIMIT 1`,
    [name],
  );
  return rows[0]?.id;
}
