import { verificationError } from './errors.js';
import { normalizeSecrets, type WebhookSecret } from './secrets.js';
import { formatSignatureHeader, signedPrefix } from './signature-header.js';
import { type Instant, toUnixSeconds } from './time.js';
import type { SignedVendorProfile } from './vendor-profiles.js';

// What signing as an EHR vendor means for each scheme that verifyVendorSignature reads, written
// once for the node:crypto and Web Crypto entries: what precedes the body in the signed bytes,
// and how the digest is written into the vendor's header.

/** Options of `signVendorPayload`. */
export interface VendorSignOptions {
  /** The vendor's shared secret (a vendor signs with one). */
  secret: WebhookSecret;
  /**
   * The time to sign, for a timestamped scheme (`akute`): a `Date` or Unix seconds; defaults to
   * now. A scheme over the body alone signs no time and ignores it.
   */
  timestamp?: Instant;
}

/** @internal What a vendor signature needs: the secret, the bytes before the body, the header. */
export interface VendorSigningJob {
  readonly secret: WebhookSecret;
  /** Signed before the body: `''`, or `` `${t}.` `` for a timestamped scheme. */
  readonly prefix: string;
  /** The header value for the lowercase hexadecimal HMAC-SHA256. */
  header(hexDigest: string): string;
}

/** @internal Checks a vendor signing call and says what to sign and how to write it. */
export function planVendorSigning(
  profile: SignedVendorProfile,
  options: VendorSignOptions,
): VendorSigningJob {
  if (typeof options !== 'object' || options === null) {
    throw verificationError('invalid_secret', 'No options were given; pass { secret }.');
  }
  if (Array.isArray(options.secret)) {
    throw verificationError('invalid_secret', 'A vendor signs with one secret, not a list.');
  }
  const [secret] = normalizeSecrets(options.secret) as [WebhookSecret];
  switch (profile?.scheme) {
    case 'hmac-sha256-body':
      return { secret, prefix: '', header: (hex) => `${profile.prefix}${hex}` };
    case 'hmac-sha256-timestamped': {
      const timestamp =
        options.timestamp === undefined
          ? Math.floor(Date.now() / 1000)
          : toUnixSeconds(options.timestamp, 'timestamp');
      return {
        secret,
        prefix: signedPrefix(timestamp),
        header: (hex) => formatSignatureHeader(timestamp, [hex]),
      };
    }
    default:
      throw new TypeError(
        `Vendor profile ${JSON.stringify((profile as { key?: unknown } | undefined)?.key)} has no inbound signature scheme to sign with.`,
      );
  }
}
