import type { Queryable } from '../storage/database.js';
import type { StoredRole } from './service-account-store.js';

/** @internal A row of `tokens`, as the store reads it: the secret only as its SHA-256. */
export interface TokenRow {
  id: string;
  account_id: string;
  label: string | null;
  secret_sha256: Buffer;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  replaced_by: string | null;
}

/** @internal A token with its service account, as verification reads them in one statement. */
export interface TokenWithAccountRow extends TokenRow {
  name: string;
  role: StoredRole;
  account_created_at: string;
  account_disabled_at: string | null;
}

/**
 * @internal The PostgreSQL notification channel on which a change to tokens or accounts (a
 * revocation, a disabled account, a rolled token) is announced to every instance, sent in the
 * transaction of the change (so at its commit).
 */
export const TOKEN_REVOKED_CHANNEL = 'token_revoked';

const tokenColumns =
  'id, account_id, label, secret_sha256, created_at, expires_at, revoked_at, last_used_at, replaced_by';

/** @internal Inserts a new token; `secretSha256` is the digest of its secret, never the secret. */
export async function insertTokenRow(
  transaction: Queryable,
  token: {
    id: string;
    accountId: string;
    label: string | null;
    secretSha256: Buffer;
    createdAt: number;
    expiresAt: string | null;
  },
): Promise<void> {
  await transaction.query(
    `INSERT INTO tokens (id, account_id, label, secret_sha256, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6)`,
    [
      token.id,
      token.accountId,
      token.label,
      token.secretSha256,
      new Date(token.createdAt),
      token.expiresAt,
    ],
  );
}

/** @internal The tokens of a service account, oldest first. */
export async function listTokenRowsOfAccount(
  queryable: Queryable,
  accountId: string,
): Promise<TokenRow[]> {
  const { rows } = await queryable.query<TokenRow>(
    `SELECT ${tokenColumns} FROM tokens WHERE account_id = $1 ORDER BY created_at, id`,
    [accountId],
  );
  return rows;
}

/** @internal One token, or `undefined`. */
export async function findTokenRow(
  queryable: Queryable,
  tokenId: string,
): Promise<TokenRow | undefined> {
  const { rows } = await queryable.query<TokenRow>(
    `SELECT ${tokenColumns} FROM tokens WHERE id = $1`,
    [tokenId],
  );
  return rows[0];
}

/** @internal One token, locked until the end of the transaction, or `undefined`. */
export async function lockTokenRow(
  transaction: Queryable,
  tokenId: string,
): Promise<TokenRow | undefined> {
  const { rows } = await transaction.query<TokenRow>(
    `SELECT ${tokenColumns} FROM tokens WHERE id = $1 FOR UPDATE`,
    [tokenId],
  );
  return rows[0];
}

/**
 * @internal Revokes a token at `now` unless it is revoked already: answers the revoked row, or
 * `undefined` when no token with this id was still unrevoked.
 */
export async function revokeTokenRow(
  transaction: Queryable,
  options: { tokenId: string; now: number },
): Promise<TokenRow | undefined> {
  const { rows } = await transaction.query<TokenRow>(
    `UPDATE tokens SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL
           RETURNING ${tokenColumns}`,
    [options.tokenId, new Date(options.now)],
  );
  return rows[0];
}

/** @internal Records a roll on the old token: its new expiry and the token that replaced it. */
export async function markTokenReplaced(
  transaction: Queryable,
  options: { tokenId: string; expiresAt: string | null; replacedBy: string },
): Promise<TokenRow> {
  const { rows } = await transaction.query<TokenRow>(
    `UPDATE tokens SET expires_at = $2, replaced_by = $3 WHERE id = $1
           RETURNING ${tokenColumns}`,
    [options.tokenId, options.expiresAt, options.replacedBy],
  );
  return rows[0] as TokenRow;
}

/**
 * @internal Revokes at `now` every token of an account that still works (expired ones are left as
 * they are); answers how many.
 */
export async function revokeWorkingTokensOfAccount(
  transaction: Queryable,
  options: { accountId: string; now: number },
): Promise<number> {
  const revoked = await transaction.query(
    `UPDATE tokens SET revoked_at = $2
            WHERE account_id = $1 AND revoked_at IS NULL
              AND (expires_at IS NULL OR expires_at > $2)`,
    [options.accountId, new Date(options.now)],
  );
  return revoked.rowCount ?? 0;
}

/**
 * @internal Writes a token's `last_used_at` as `now`, unless it already holds a value less than
 * `resolutionMs` old: conditional, so that instances racing at the minute's turn write one value
 * between them.
 */
export async function writeTokenLastUsed(
  queryable: Queryable,
  options: { tokenId: string; now: number; resolutionMs: number },
): Promise<void> {
  await queryable.query(
    `UPDATE tokens SET last_used_at = $2
        WHERE id = $1 AND (last_used_at IS NULL OR last_used_at <= $3)`,
    [options.tokenId, new Date(options.now), new Date(options.now - options.resolutionMs)],
  );
}

/**
 * @internal Every token of a service account, each with the account, in one statement: what a
 * verification compares the presented secret against. Empty for an unknown account.
 */
export async function listTokensWithAccount(
  queryable: Queryable,
  accountId: string,
): Promise<TokenWithAccountRow[]> {
  const { rows } = await queryable.query<TokenWithAccountRow>(
    `SELECT t.id, t.account_id, t.label, t.secret_sha256, t.created_at, t.expires_at,
                t.revoked_at, t.last_used_at, t.replaced_by,
                a.name, a.role, a.created_at AS account_created_at,
                a.disabled_at AS account_disabled_at
           FROM service_accounts a JOIN tokens t ON t.account_id = a.id
          WHERE a.id = $1`,
    [accountId],
  );
  return rows;
}

/**
 * @internal Announces a change to tokens or accounts that may end a token's validity (a
 * revocation, a roll, a disabled account): `token_revoked` is notified in the change's
 * transaction, so every PostgreSQL instance forgets its verified tokens at the commit. The
 * payload is `<schema>:<subject>`: the instances of another schema in the same database (another
 * deployment, or another test file) let it pass.
 */
export async function announceTokensChanged(
  transaction: Queryable,
  subject: string,
): Promise<void> {
  await transaction.query(`SELECT pg_notify($1, current_schema() || ':' || $2)`, [
    TOKEN_REVOKED_CHANNEL,
    subject,
  ]);
}
