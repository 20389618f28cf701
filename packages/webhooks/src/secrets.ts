import { verificationError } from './errors.js';

/**
 * A signing secret: a string (used as its UTF-8 bytes, whole, the way Stripe uses `whsec_…`
 * secrets) or raw key bytes.
 */
export type WebhookSecret = string | Uint8Array;

/** The most secrets one call accepts; rotation needs two or three. */
export const MAX_SECRETS = 16;

/** Checks one secret or a list of them and returns the list. Never echoes a secret. */
export function normalizeSecrets(
  secret: WebhookSecret | readonly WebhookSecret[] | undefined,
): readonly WebhookSecret[] {
  const list: readonly unknown[] = Array.isArray(secret) ? secret : [secret];
  if (list.length === 0) {
    throw verificationError(
      'invalid_secret',
      'No secret was given (the list of secrets is empty).',
    );
  }
  if (list.length > MAX_SECRETS) {
    throw verificationError(
      'invalid_secret',
      `At most ${MAX_SECRETS} secrets may be given at once; got ${list.length}.`,
    );
  }
  for (let index = 0; index < list.length; index++) {
    const item = list[index];
    const where = list.length === 1 ? 'The secret' : `Secret #${index}`;
    if (typeof item === 'string') {
      if (item.length === 0) throw verificationError('invalid_secret', `${where} is empty.`);
      if (!item.isWellFormed()) {
        throw verificationError('invalid_secret', `${where} is not well-formed Unicode.`);
      }
    } else if (item instanceof Uint8Array) {
      if (item.byteLength === 0) throw verificationError('invalid_secret', `${where} is empty.`);
    } else {
      throw verificationError(
        'invalid_secret',
        `${where} must be a string or a Uint8Array, not ${item === null ? 'null' : typeof item}.`,
      );
    }
  }
  return list as readonly WebhookSecret[];
}
