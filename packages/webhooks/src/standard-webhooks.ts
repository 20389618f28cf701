import { verificationError } from './errors.js';
import { type HeadersLike, readHeader } from './read-header.js';
import { normalizeSecrets, type WebhookSecret } from './secrets.js';
import { checkTimestamp, type Instant, type TimestampOptions, toUnixSeconds } from './time.js';

/** The Standard Webhooks header names (lower case, as the specification writes them). */
export const STANDARD_WEBHOOK_HEADERS = {
  /** The message id, the same on every retry (FollowUp's delivery id). */
  id: 'webhook-id',
  /** When the attempt was signed, in Unix seconds. */
  timestamp: 'webhook-timestamp',
  /** `v1,<base64>` entries, separated by spaces. */
  signature: 'webhook-signature',
} as const;

/** The most signatures one `webhook-signature` header may list. */
const MAX_STANDARD_SIGNATURES = 32;
const MAX_HEADER_LENGTH = 4096;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/** Standard or URL-safe base64, padded or not, to bytes; `undefined` when it is not base64. */
export function decodeBase64(text: string): Uint8Array | undefined {
  if (text.length === 0 || !BASE64.test(text)) return undefined;
  const plain = text.replace(/=+$/, '').replace(/-/g, '+').replace(/_/g, '/');
  if (plain.length % 4 === 1) return undefined;
  const padded = plain + '='.repeat((4 - (plain.length % 4)) % 4);
  try {
    const binary = atob(padded);
    const bytes = new Uint8Array(binary.length);
    for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
    return bytes;
  } catch {
    return undefined;
  }
}

/**
 * The key bytes of a secret for the Standard Webhooks scheme: a string's base64 after `whsec_`
 * decoded (standard or URL-safe alphabet), as the specification says; bytes as they are. (The
 * `t=,v1=` scheme keys HMAC with the whole string instead, as Stripe does.)
 */
export function standardWebhookKey(secret: WebhookSecret, where: string): Uint8Array {
  if (typeof secret !== 'string') return secret;
  const key = decodeBase64(secret.startsWith('whsec_') ? secret.slice(6) : secret);
  if (key === undefined || key.byteLength === 0) {
    throw verificationError(
      'invalid_secret',
      `${where} is not base64 after whsec_, which the Standard Webhooks scheme needs.`,
    );
  }
  return key;
}

/** Everything a Standard Webhooks verification needs, read and checked from the headers. */
export interface StandardWebhookJob {
  id: string;
  timestamp: number;
  /** `<id>.<timestamp>.`, which precedes the body in the signed content. */
  prefix: string;
  /** The claimed digests (each 32 bytes) of the `v1` entries. */
  candidates: Uint8Array[];
  /** The key bytes of each secret, in order. */
  keys: Uint8Array[];
  /** The secrets as given, in the same order: what a cache of keys is keyed by. */
  secrets: readonly WebhookSecret[];
}

/** Options of `verifyStandardWebhook`. */
export interface StandardWebhookVerifyOptions extends TimestampOptions {
  /**
   * The endpoint's signing secret, or several during a rotation: `whsec_<base64>` (the decoded
   * bytes are the key) or the key bytes.
   */
  secret: WebhookSecret | readonly WebhookSecret[];
}

/** What a Standard Webhooks verification tells. */
export interface VerifiedStandardWebhook {
  /** `webhook-id`: the message id, the same on every retry (FollowUp's delivery id). */
  id: string;
  /** `webhook-timestamp`, in Unix seconds. */
  timestamp: number;
  /** Which of the given secrets matched. */
  secretIndex: number;
}

/**
 * Reads and checks the three headers, the timestamp and the secrets; throws the verification
 * error a malformed request deserves. Shared by both entries.
 */
export function planStandardWebhook(
  headers: HeadersLike,
  options: StandardWebhookVerifyOptions,
): StandardWebhookJob {
  const secrets = normalizeSecrets(options?.secret);
  const id = readHeader(headers, STANDARD_WEBHOOK_HEADERS.id);
  const timestampText = readHeader(headers, STANDARD_WEBHOOK_HEADERS.timestamp);
  const signature = readHeader(headers, STANDARD_WEBHOOK_HEADERS.signature);
  if (id === undefined || timestampText === undefined || signature === undefined) {
    throw verificationError(
      'missing_header',
      'A Standard Webhooks request carries webhook-id, webhook-timestamp and webhook-signature.',
    );
  }
  if (id.length === 0 || id.length > 256 || !/^[\x21-\x7e]+$/.test(id)) {
    throw verificationError('malformed_header', 'webhook-id is 1 to 256 visible ASCII characters.');
  }
  if (!/^\d{1,11}$/.test(timestampText.trim())) {
    throw verificationError('malformed_header', 'webhook-timestamp is whole Unix seconds.');
  }
  if (signature.length > MAX_HEADER_LENGTH) {
    throw verificationError('malformed_header', 'webhook-signature is too long.');
  }
  const entries = signature.trim().split(/\s+/);
  if (entries.length > MAX_STANDARD_SIGNATURES) {
    throw verificationError('malformed_header', 'webhook-signature lists too many signatures.');
  }
  const candidates: Uint8Array[] = [];
  for (const entry of entries) {
    const comma = entry.indexOf(',');
    if (comma <= 0)
      throw verificationError('malformed_header', 'A signature is <version>,<base64>.');
    // Other versions (v1a: asymmetric signatures) are skipped, as the specification says.
    if (entry.slice(0, comma) !== 'v1') continue;
    const digest = decodeBase64(entry.slice(comma + 1));
    if (digest === undefined || digest.byteLength !== 32) {
      throw verificationError('malformed_header', 'A v1 signature is the base64 of 32 bytes.');
    }
    candidates.push(digest);
  }
  const timestamp = Number(timestampText.trim());
  checkTimestamp(timestamp, options);
  const keys = secrets.map((secret, index) =>
    standardWebhookKey(secret, secrets.length === 1 ? 'The secret' : `Secret #${index}`),
  );
  return { id, timestamp, prefix: `${id}.${timestamp}.`, candidates, keys, secrets };
}

/** Options of `signStandardWebhook`. */
export interface StandardWebhookSignOptions {
  /** `webhook-id`: the message id, the same on every retry (FollowUp's delivery id). */
  id: string;
  /**
   * The endpoint's signing secret, or several during a rotation (one `v1,` entry per secret,
   * in the same order): `whsec_<base64>` (the decoded bytes are the key) or the key bytes.
   */
  secret: WebhookSecret | readonly WebhookSecret[];
  /** The time to sign: a `Date` or Unix seconds. Defaults to now. */
  timestamp?: Instant;
}

/** Everything a Standard Webhooks signature needs, checked. Shared by both entries. */
export function planStandardSigning(options: StandardWebhookSignOptions): {
  prefix: string;
  keys: Uint8Array[];
  secrets: readonly WebhookSecret[];
} {
  if (typeof options !== 'object' || options === null) {
    throw verificationError('invalid_secret', 'No options were given; pass { id, secret }.');
  }
  const { id } = options;
  if (typeof id !== 'string' || id.length === 0 || id.length > 256 || !/^[\x21-\x7e]+$/.test(id)) {
    throw new RangeError('id (webhook-id) is 1 to 256 visible ASCII characters.');
  }
  const secrets = normalizeSecrets(options.secret);
  const timestamp =
    options.timestamp === undefined
      ? Math.floor(Date.now() / 1000)
      : toUnixSeconds(options.timestamp, 'timestamp');
  const keys = secrets.map((secret, index) =>
    standardWebhookKey(secret, secrets.length === 1 ? 'The secret' : `Secret #${index}`),
  );
  return { prefix: `${id}.${timestamp}.`, keys, secrets };
}

/** Compares two digests in constant time for their (public) length. */
export function digestsEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  let difference = 0;
  for (let index = 0; index < a.byteLength; index++) {
    difference |= (a[index] as number) ^ (b[index] as number);
  }
  return difference === 0;
}

/** The failure when no secret's digest equals a claimed one. */
export function noStandardMatch() {
  return verificationError(
    'no_matching_signature',
    'No v1 signature of webhook-signature matches the payload with the given secret(s).',
  );
}
