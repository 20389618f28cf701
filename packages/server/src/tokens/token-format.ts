import { hash, randomBytes } from 'node:crypto';
import { splitToken, TOKEN_PREFIX, TOKEN_SECRET_BYTES, TOKEN_SECRET_LENGTH } from '@followup/sdk';

/** The two parts of a token. */
export interface ParsedToken {
  /** The service account's id, embedded in the token. */
  accountId: string;
  /** The secret: 32 random bytes, base64url, 43 characters. */
  secret: string;
}

/** @internal Makes a new secret: 32 random bytes as base64url. */
export function generateSecret(random: (size: number) => Uint8Array = randomBytes): string {
  return Buffer.from(random(TOKEN_SECRET_BYTES)).toString('base64url');
}

/** @internal `hns_<accountId>.<secret>` */
export function formatToken(accountId: string, secret: string): string {
  return `${TOKEN_PREFIX}${accountId}.${secret}`;
}

/**
 * Splits a token into its account id and secret; `undefined` for anything that is not
 * `hns_<accountId>.<secret>` with a 32-byte base64url secret.
 *
 * @example
 * ```ts
 * parseToken('hns_sa_01JD….Zm9v…'); // { accountId: 'sa_01JD…', secret: 'Zm9v…' }
 * ```
 */
export function parseToken(token: string): ParsedToken | undefined {
  const parts = splitToken(token);
  if (parts === undefined || parts.secret.length !== TOKEN_SECRET_LENGTH) return undefined;
  return { accountId: parts.accountId, secret: parts.secret };
}

/** @internal The SHA-256 digest of a secret: the only thing the database keeps of a token. */
export function hashSecret(secret: string): Buffer {
  // The one-shot hash: no Hash object to make and collect on every request.
  return hash('sha256', secret, 'buffer');
}
