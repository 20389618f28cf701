import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import type { Queryable } from '../storage/database.js';
import { deleteExpiredFlashes, insertFlash, takeFlashRow } from '../stores/flash-store.js';

/** @internal How long a flash waits for the page that shows it: 5 minutes. */
export const FLASH_LIFETIME_MS = 5 * 60_000;

/** @internal The name of the cookie that carries a flash's id and key. */
export const FLASH_COOKIE = 'followup_flash';

const cookiePattern = /^(flash_[0-9A-Z]{26})\.([A-Za-z0-9_-]{43})$/;

/**
 * @internal Keeps a one-time message for the next page of a session (post/redirect/get): a new
 * token or signing secret is shown once, after the redirect, and never again, not even on
 * reload. The database keeps only AES-256-GCM ciphertext; the key is in the returned cookie
 * value, so neither alone can read it. Returns the flash cookie's value.
 */
export async function putFlash(
  database: Queryable,
  options: { sessionId: string; payload: unknown; clock: Clock; newId: IdGenerator },
): Promise<string> {
  const id = options.newId('flash');
  const key = randomBytes(32);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(`${id}|${options.sessionId}`, 'utf8'));
  const body = Buffer.concat([
    cipher.update(JSON.stringify(options.payload), 'utf8'),
    cipher.final(),
  ]);
  const now = options.clock.now();
  // Flashes nobody came back for are removed as new ones are made.
  await deleteExpiredFlashes(database, new Date(now));
  await insertFlash(database, {
    id,
    sessionId: options.sessionId,
    ciphertext: Buffer.concat([iv, cipher.getAuthTag(), body]),
    expiresAt: new Date(now + FLASH_LIFETIME_MS),
  });
  return `${id}.${key.toString('base64url')}`;
}

/**
 * @internal Reads a flash once: the row is deleted as it is read, so a second read (a reload,
 * a replayed cookie) finds nothing. `undefined` for a missing, expired, foreign (another
 * session's) or tampered flash.
 */
export async function takeFlash(
  database: Queryable,
  options: { sessionId: string; cookieValue: string | undefined; clock: Clock },
): Promise<unknown> {
  const match = cookiePattern.exec(options.cookieValue ?? '');
  if (!match) return undefined;
  const [, id, keyText] = match as unknown as [string, string, string];
  const row = await takeFlashRow(database, id);
  if (!row || row.session_id !== options.sessionId) return undefined;
  if (Date.parse(row.expires_at) <= options.clock.now()) return undefined;
  try {
    const data = Buffer.from(row.ciphertext);
    const decipher = createDecipheriv(
      'aes-256-gcm',
      Buffer.from(keyText, 'base64url'),
      data.subarray(0, 12),
    );
    decipher.setAAD(Buffer.from(`${id}|${options.sessionId}`, 'utf8'));
    decipher.setAuthTag(data.subarray(12, 28));
    const text = Buffer.concat([decipher.update(data.subarray(28)), decipher.final()]).toString(
      'utf8',
    );
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
