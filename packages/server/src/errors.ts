const brand = Symbol.for('@followup/server/FollowUpServerError');

/** Options of {@link FollowUpServerError}. */
export interface FollowUpServerErrorOptions {
  /** What went wrong, for a person; never a token, a secret or a request body. */
  message: string;
  /** Machine-readable code, stable across releases. */
  code: string;
  /** The underlying error, if any. */
  cause?: unknown;
}

/**
 * Base of every error the server package throws on its own (storage, locking, migrations,
 * configuration). Its message never carries a token, a secret or a request body.
 *
 * @example
 * ```ts
 * try {
 *   await openPGliteDatabase({ dataDir: './data' });
 * } catch (error) {
 *   if (FollowUpServerError.isInstance(error) && error.code === 'data_directory_locked') {
 *     console.error(error.message);
 *   }
 * }
 * ```
 */
export class FollowUpServerError extends Error {
  /** Machine-readable code, stable across releases. */
  readonly code: string;

  constructor(options: FollowUpServerErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'FollowUpServerError';
    this.code = options.code;
    Object.defineProperty(this, brand, { value: true });
  }

  /** True for a `FollowUpServerError` from any copy of this package (ESM, duplicates). */
  static isInstance(value: unknown): value is FollowUpServerError {
    return typeof value === 'object' && value !== null && brand in value;
  }
}
