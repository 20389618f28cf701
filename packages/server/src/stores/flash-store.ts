import type { Queryable } from '../storage/database.js';

/** @internal A one-time flash as `web_flashes` holds it: ciphertext only. */
export interface FlashRow {
  session_id: string;
  ciphertext: Buffer;
  expires_at: string;
}

/** @internal Deletes the flashes expired at `now`: those nobody came back for. */
export async function deleteExpiredFlashes(queryable: Queryable, now: Date): Promise<void> {
  await queryable.query('DELETE FROM web_flashes WHERE expires_at <= $1', [now]);
}

/** @internal Inserts a flash for a session. */
export async function insertFlash(
  queryable: Queryable,
  flash: { id: string; sessionId: string; ciphertext: Buffer; expiresAt: Date },
): Promise<void> {
  await queryable.query(
    `INSERT INTO web_flashes (id, session_id, ciphertext, expires_at) VALUES ($1, $2, $3, $4)`,
    [flash.id, flash.sessionId, flash.ciphertext, flash.expiresAt],
  );
}

/** @internal Deletes a flash and answers it, so that it is read at most once; or `undefined`. */
export async function takeFlashRow(
  queryable: Queryable,
  flashId: string,
): Promise<FlashRow | undefined> {
  const { rows } = await queryable.query<FlashRow>(
    'DELETE FROM web_flashes WHERE id = $1 RETURNING session_id, ciphertext, expires_at',
    [flashId],
  );
  return rows[0];
}
