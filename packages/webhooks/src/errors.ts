/**
 * Why a webhook could not be verified.
 *
 * - `missing_header`: the signature header is absent or empty.
 * - `malformed_header`: the header is present but not well-formed (a missing or repeated `t`, a `t`
 *   that is not plain decimal digits, a `v1` that is not 64 hexadecimal characters, an entry
 *   without `=`, too long, too many entries, or the header given twice).
 * - `no_matching_signature`: the header is well-formed but no signature in it matches any secret.
 * - `timestamp_too_old` / `timestamp_in_future`: the signed timestamp is outside the tolerance.
 * - `payload_not_raw`: the payload is not the raw body (`string`, `Uint8Array` or `ArrayBuffer`),
 *   for example an object that a framework already parsed from JSON.
 * - `invalid_secret`: no secret, an empty secret, or a secret that is neither a string nor bytes.
 */
export type WebhookVerificationErrorCode =
  | 'missing_header'
  | 'malformed_header'
  | 'no_matching_signature'
  | 'timestamp_too_old'
  | 'timestamp_in_future'
  | 'payload_not_raw'
  | 'invalid_secret';

/** Options accepted by the {@link WebhookVerificationError} constructor. */
export interface WebhookVerificationErrorOptions {
  /** The machine-readable reason. */
  code: WebhookVerificationErrorCode;
  /** A sentence for people. It must never contain a payload, a secret or a signature. */
  message: string;
}

const brand = Symbol.for('@followup/webhooks.WebhookVerificationError');

/**
 * Thrown (or returned by `safeVerifySignature`) when a webhook cannot be verified.
 *
 * It carries a machine-readable {@link WebhookVerificationError.code} and a message for people.
 * Neither ever contains the payload, a secret or an expected signature, so it is safe to log.
 *
 * @example
 * ```ts
 * try {
 *   verifySignature(rawBody, request.headers, { secret });
 * } catch (error) {
 *   if (WebhookVerificationError.isInstance(error)) {
 *     return new Response(error.code, { status: 400 });
 *   }
 *   throw error;
 * }
 * ```
 */
export class WebhookVerificationError extends Error {
  /** Always `"WebhookVerificationError"`. */
  override readonly name = 'WebhookVerificationError';
  /** Why verification failed; see {@link WebhookVerificationErrorCode}. */
  readonly code: WebhookVerificationErrorCode;

  constructor(options: WebhookVerificationErrorOptions) {
    super(options.message);
    this.code = options.code;
    Object.defineProperty(this, brand, { value: true });
  }

  /**
   * Whether `value` is a `WebhookVerificationError`, also when it comes from another copy of this
   * package (the ESM and CommonJS builds, the `/web` entry, or two installed versions), where
   * `instanceof` would say no.
   */
  static isInstance(value: unknown): value is WebhookVerificationError {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as { [brand]?: unknown })[brand] === true
    );
  }
}

/** @internal */
export function verificationError(
  code: WebhookVerificationErrorCode,
  message: string,
): WebhookVerificationError {
  return new WebhookVerificationError({ code, message });
}
