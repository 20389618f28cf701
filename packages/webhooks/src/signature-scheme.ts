import { verificationError, type WebhookVerificationError } from './errors.js';
import { rawPayload, type WebhookPayload } from './payload.js';
import { type HeadersLike, readHeader } from './read-header.js';
import { normalizeSecrets, type WebhookSecret } from './secrets.js';
import {
  type ParsedSignatureHeader,
  parseHexDigestHeader,
  parseSignatureHeader,
  signedPrefix,
} from './signature-header.js';
import { checkTimestamp, type Instant, type TimestampOptions, toUnixSeconds } from './time.js';
import type { SignedVendorProfile } from './vendor-profiles.js';

/** The header that carries FollowUp's outbound signature, `t=<unix seconds>,v1=<hex>`. */
export const SIGNATURE_HEADER = 'X-Service-Signature';

/** Options of `signPayload`. */
export interface SignOptions {
  /**
   * The endpoint's signing secret, or several during a rotation: the header then carries one
   * `v1=` per secret, in the same order.
   */
  secret: WebhookSecret | readonly WebhookSecret[];
  /** The time to sign: a `Date` or Unix seconds. Defaults to now. */
  timestamp?: Instant;
}

/** Options of `verifySignature` and `safeVerifySignature`. */
export interface VerifyOptions extends TimestampOptions {
  /**
   * The signing secret, or several (during a rotation, or for several endpoints): a signature
   * made with any of them is accepted, and the result tells which one matched.
   */
  secret: WebhookSecret | readonly WebhookSecret[];
}

/** Options of `verifyVendorSignature`. The timestamp options apply to timestamped schemes only. */
export interface VendorVerifyOptions extends TimestampOptions {
  /** The vendor's shared secret, or several during a rotation. */
  secret: WebhookSecret | readonly WebhookSecret[];
}

/** What a successful verification tells. */
export interface VerifiedSignature {
  /** The signed timestamp, in Unix seconds. */
  readonly timestamp: number;
  /** The index, in the `secret` option, of the secret that matched (0 for a single secret). */
  readonly secretIndex: number;
}

/** What a successful vendor verification tells. */
export interface VerifiedVendorSignature {
  /** The signed timestamp in Unix seconds, for timestamped schemes; `undefined` otherwise. */
  readonly timestamp: number | undefined;
  /** The index, in the `secret` option, of the secret that matched (0 for a single secret). */
  readonly secretIndex: number;
}

/** The result of `safeVerifySignature` for a request that verified. */
export interface SafeVerifySuccess extends VerifiedSignature {
  /** Always `true`. */
  readonly ok: true;
}

/** The result of `safeVerifySignature` for a request that did not verify. */
export interface SafeVerifyFailure {
  /** Always `false`. */
  readonly ok: false;
  /** Why it did not verify; safe to log. */
  readonly error: WebhookVerificationError;
}

/** The result of `safeVerifySignature`: it never throws for a bad request. */
export type SafeVerifyResult = SafeVerifySuccess | SafeVerifyFailure;

/**
 * @internal What a verification has to compute and compare: the HMAC of `prefix + body` under
 * each secret, against each candidate digest.
 */
export interface VerificationJob {
  readonly secrets: readonly WebhookSecret[];
  readonly prefix: string;
  readonly body: string | Uint8Array;
  readonly candidates: readonly Uint8Array[];
  readonly timestamp: number | undefined;
}

function headerValue(header: string | HeadersLike, name: string): string | undefined {
  return typeof header === 'string' ? header : readHeader(header, name);
}

function timestampedJob(
  payload: WebhookPayload,
  header: unknown,
  headerName: string,
  options: TimestampOptions & { secret: WebhookSecret | readonly WebhookSecret[] },
): VerificationJob {
  const secrets = normalizeSecrets(options.secret);
  const body = rawPayload(payload);
  const parsed: ParsedSignatureHeader = parseSignatureHeader(header, headerName);
  checkTimestamp(parsed.timestamp, options);
  return {
    secrets,
    prefix: signedPrefix(parsed.timestamp),
    body,
    candidates: parsed.signatures,
    timestamp: parsed.timestamp,
  };
}

/** @internal Plans the verification of a FollowUp `t=,v1=` signature. */
export function planSignatureVerification(
  payload: WebhookPayload,
  header: string | HeadersLike,
  options: VerifyOptions,
): VerificationJob {
  if (typeof options !== 'object' || options === null) {
    throw verificationError('invalid_secret', 'No options were given; pass { secret }.');
  }
  return timestampedJob(payload, headerValue(header, SIGNATURE_HEADER), SIGNATURE_HEADER, options);
}

/** @internal Plans the verification of an EHR vendor's signature. */
export function planVendorVerification(
  profile: SignedVendorProfile,
  payload: WebhookPayload,
  headers: HeadersLike,
  options: VendorVerifyOptions,
): VerificationJob {
  if (typeof options !== 'object' || options === null) {
    throw verificationError('invalid_secret', 'No options were given; pass { secret }.');
  }
  switch (profile?.scheme) {
    case 'hmac-sha256-timestamped':
      return timestampedJob(payload, readHeader(headers, profile.header), profile.header, options);
    case 'hmac-sha256-body': {
      const secrets = normalizeSecrets(options.secret);
      const body = rawPayload(payload);
      const digest = parseHexDigestHeader(
        readHeader(headers, profile.header),
        profile.header,
        profile.prefix,
      );
      return { secrets, prefix: '', body, candidates: [digest], timestamp: undefined };
    }
    default:
      throw new TypeError(
        `Vendor profile ${JSON.stringify((profile as { key?: unknown } | undefined)?.key)} has no inbound signature scheme to verify.`,
      );
  }
}

/** @internal The error for a well-formed header whose signatures match no secret. */
export function noMatchingSignature(job: VerificationJob): WebhookVerificationError {
  const signatures =
    job.candidates.length === 1
      ? 'The signature'
      : `None of the ${job.candidates.length} signatures`;
  const secrets =
    job.secrets.length === 1 ? 'the secret' : `any of the ${job.secrets.length} secrets`;
  return verificationError(
    'no_matching_signature',
    `${signatures} in the header ${job.candidates.length === 1 ? 'does not match' : 'matches'} ${secrets}.`,
  );
}

/** @internal Checks the options of a signing call; returns the secrets and the timestamp. */
export function planSigning(options: SignOptions): {
  secrets: readonly WebhookSecret[];
  timestamp: number;
} {
  if (typeof options !== 'object' || options === null) {
    throw verificationError('invalid_secret', 'No options were given; pass { secret }.');
  }
  const secrets = normalizeSecrets(options.secret);
  const timestamp =
    options.timestamp === undefined
      ? Math.floor(Date.now() / 1000)
      : toUnixSeconds(options.timestamp, 'timestamp');
  return { secrets, timestamp };
}
