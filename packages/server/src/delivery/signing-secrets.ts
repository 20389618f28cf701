import { randomBytes } from 'node:crypto';

// An endpoint's signing secrets: how one is made, how long a rotation lets the previous one
// sign, and which sign an attempt.

/** The prefix of an endpoint's signing secret. */
export const SIGNING_SECRET_PREFIX = 'whsec_';

/** Longest overlap of a secret rotation, in seconds (7 days). */
export const MAX_ROTATION_OVERLAP_SECONDS = 7 * 86_400;

/** Default overlap of a secret rotation, in seconds (24 hours). */
export const DEFAULT_ROTATION_OVERLAP_SECONDS = 86_400;

/**
 * @internal A new signing secret: `whsec_` and 32 random bytes in standard base64, so that one
 * secret serves both schemes (Standard Webhooks decodes the base64; `t=,v1=` keys with the
 * string).
 */
export function generateSigningSecret(): string {
  return `${SIGNING_SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/**
 * @internal The secrets that sign an attempt at `now`: the current one first, and the previous
 * one while a rotation's overlap lasts.
 */
export function signingSecrets(
  row: { secret: string; previous_secret: string | null; previous_secret_until: string | null },
  now: number,
): string[] {
  const overlapping =
    row.previous_secret !== null &&
    row.previous_secret_until !== null &&
    Date.parse(row.previous_secret_until) > now;
  return overlapping ? [row.secret, row.previous_secret as string] : [row.secret];
}
