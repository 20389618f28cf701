import type { Queryable } from '../storage/database.js';

/** How long an idempotency key is remembered: 24 hours (then a retry is a new request). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** @internal A key reserved by a running request. */
export interface IdempotencyReservation {
  accountId: string;
  key: string;
  /** Random, to tell this reservation from a later one of the same key. */
  holder: string;
}

/** @internal A stored key: its request's digest, and its response once the request is done. */
export interface IdempotencyKeyRow {
  request_sha256: Buffer;
  /** `null` while the request runs. */
  status: number | null;
  response_body: string | null;
  response_type: string | null;
  created_at: string;
  holder: string | null;
  /** `null` once done, and on rows from before leases. */
  lease_expires_at: string | null;
}

/** @internal Renews the leases of the reservations this server is running. */
export async function renewIdempotencyLeases(
  database: Queryable,
  renewal: { reservations: readonly IdempotencyReservation[]; leaseExpiresAt: Date },
): Promise<void> {
  const live = renewal.reservations;
  await database.query(
    `UPDATE idempotency_keys SET lease_expires_at = $1
         FROM unnest($2::text[], $3::text[], $4::text[]) AS live(account_id, key, holder)
        WHERE idempotency_keys.account_id = live.account_id AND idempotency_keys.key = live.key
          AND idempotency_keys.holder = live.holder`,
    [
      renewal.leaseExpiresAt,
      live.map((reservation) => reservation.accountId),
      live.map((reservation) => reservation.key),
      live.map((reservation) => reservation.holder),
    ],
  );
}

/** @internal Forgets every key created before `createdBefore`. */
export async function purgeIdempotencyKeys(
  database: Queryable,
  createdBefore: Date,
): Promise<void> {
  await database.query('DELETE FROM idempotency_keys WHERE created_at < $1', [createdBefore]);
}

/**
 * @internal Retention: forgets the keys created before `createdBefore` whose lease, if any,
 * ran out before `leaseEndedBefore` (a running request's key is kept); answers how many went.
 */
export async function pruneIdempotencyKeys(
  database: Queryable,
  prune: { createdBefore: Date; leaseEndedBefore: Date },
): Promise<number> {
  const { rowCount } = await database.query(
    `DELETE FROM idempotency_keys
      WHERE created_at < $1 AND (lease_expires_at IS NULL OR lease_expires_at < $2)`,
    [prune.createdBefore, prune.leaseEndedBefore],
  );
  return rowCount;
}

/** @internal A reservation to take: the key, the request it stands for, and its first lease. */
export interface NewIdempotencyReservation extends IdempotencyReservation {
  method: string;
  path: string;
  requestSha256: Buffer;
  createdAt: Date;
  leaseExpiresAt: Date;
}

/** @internal Reserves a key unless the account holds it already; answers whether it did. */
export async function reserveIdempotencyKey(
  database: Queryable,
  reservation: NewIdempotencyReservation,
): Promise<boolean> {
  const reserved = await database.query(
    `INSERT INTO idempotency_keys
           (account_id, key, method, path, request_sha256, created_at, holder, lease_expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (account_id, key) DO NOTHING`,
    [
      reservation.accountId,
      reservation.key,
      reservation.method,
      reservation.path,
      reservation.requestSha256,
      reservation.createdAt,
      reservation.holder,
      reservation.leaseExpiresAt,
    ],
  );
  return reserved.rowCount === 1;
}

/** @internal The account's stored key, if any. */
export async function findIdempotencyKey(
  database: Queryable,
  key: { accountId: string; key: string },
): Promise<IdempotencyKeyRow | undefined> {
  const { rows } = await database.query<IdempotencyKeyRow>(
    `SELECT request_sha256, status, response_body, response_type, created_at, holder,
                lease_expires_at
           FROM idempotency_keys WHERE account_id = $1 AND key = $2`,
    [key.accountId, key.key],
  );
  return rows[0];
}

/**
 * @internal Deletes a stale key (past the window, or abandoned), only if it is still the row
 * that was read (same creation and holder), so a fresh reservation of the key is kept.
 */
export async function deleteStaleIdempotencyKey(
  database: Queryable,
  stale: { accountId: string; key: string; createdAt: string; holder: string | null },
): Promise<void> {
  await database.query(
    `DELETE FROM idempotency_keys WHERE account_id = $1 AND key = $2 AND created_at = $3
              AND holder IS NOT DISTINCT FROM $4`,
    [stale.accountId, stale.key, stale.createdAt, stale.holder],
  );
}

/** @internal Releases a reservation (its request failed with a 5xx): a retry runs again. */
export async function releaseIdempotencyKey(
  database: Queryable,
  reservation: IdempotencyReservation,
): Promise<void> {
  await database.query(
    'DELETE FROM idempotency_keys WHERE account_id = $1 AND key = $2 AND holder = $3',
    [reservation.accountId, reservation.key, reservation.holder],
  );
}

/** @internal Stores the response of a reserved key, to be answered again to a retry. */
export async function recordIdempotentResponse(
  database: Queryable,
  response: {
    reservation: IdempotencyReservation;
    status: number;
    body: string;
    contentType: string | null;
  },
): Promise<void> {
  const { reservation } = response;
  await database.query(
    `UPDATE idempotency_keys
              SET status = $4, response_body = $5, response_type = $6, lease_expires_at = NULL
            WHERE account_id = $1 AND key = $2 AND holder = $3`,
    [
      reservation.accountId,
      reservation.key,
      reservation.holder,
      response.status,
      response.body,
      response.contentType,
    ],
  );
}
