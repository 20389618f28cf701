const brand = Symbol.for('@followup/cli/FollowUpCliError');

/** Options of {@link FollowUpCliError}. */
export interface FollowUpCliErrorOptions {
  /** What went wrong, for a person; never a token, a secret or a request body. */
  message: string;
  /**
   * Machine-readable code, stable across releases: `usage` for a command line the command does
   * not accept (exit code 2), others for a failure of the work itself (exit code 1).
   */
  code: string;
  /** The underlying error, if any. */
  cause?: unknown;
}

/**
 * Base of every error `@followup/cli` throws on its own: a bad command line (`code` `usage`), a
 * missing credential, an unreadable configuration file. Its message never carries a token, a
 * secret or a body.
 *
 * @example
 * ```ts
 * import { FollowUpCliError, verifyReceiver } from '@followup/cli';
 *
 * try {
 *   await verifyReceiver({ url, secret: 'not-a-secret' });
 * } catch (error) {
 *   if (FollowUpCliError.isInstance(error)) console.error(error.code, error.message);
 * }
 * ```
 */
export class FollowUpCliError extends Error {
  /** Machine-readable code, stable across releases. */
  readonly code: string;

  /** Makes the error; see {@link FollowUpCliErrorOptions}. */
  constructor(options: FollowUpCliErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'FollowUpCliError';
    this.code = options.code;
    Object.defineProperty(this, brand, { value: true });
  }

  /** True for a `FollowUpCliError` from any copy of this package. */
  static isInstance(value: unknown): value is FollowUpCliError {
    return typeof value === 'object' && value !== null && brand in value;
  }
}

/** @internal A command line the command does not accept: the command exits 2 with `message`. */
export function usageError(message: string): FollowUpCliError {
  return new FollowUpCliError({ code: 'usage', message });
}
