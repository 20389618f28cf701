/** @internal The symbol under which an error lists its class names. */
const brandKey = Symbol.for('@followup/sdk.error');
const brandNames = new WeakMap<object, string>();

function hasBrand(value: unknown, name: string): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const names = (value as { [brandKey]?: unknown })[brandKey];
  return Array.isArray(names) && names.includes(name);
}

/**
 * @internal Registers `errorClass` under `name` and gives it an `isInstance` guard that works
 * across copies of the SDK (by name, not by prototype).
 */
export function brand<T extends object>(errorClass: T, name: string): T {
  brandNames.set(errorClass, name);
  // Each class gets its own bound guard, so `errors.filter(NotFoundError.isInstance)` works too.
  Object.defineProperty(errorClass, 'isInstance', {
    value: (value: unknown) => hasBrand(value, name),
    writable: false,
    enumerable: false,
    configurable: true,
  });
  return errorClass;
}

/**
 * Where a list walk can start again after an error: spread it into the same `list()` call.
 * `{ offset }` for offset lists, `{ cursor }` for cursor lists and for contacts and deals walked
 * by cursor. Only an error of a page after the first carries one: when the first page fails,
 * there is no walk to resume, and calling `list()` again is the way to start over.
 *
 * @example
 * ```ts
 * client.contacts.list({ limit: 200, ...error.resumeFrom });
 * ```
 */
export type ResumeFrom =
  | {
      /** The offset of the page that failed. */
      readonly offset: number;
    }
  | {
      /**
       * The cursor of the page that failed; absent when the walk is to start from the beginning
       * (a `contacts.sync()` that failed before it had a position).
       */
      readonly cursor?: string;
    };

/**
 * Options of the {@link FollowUpError} constructor.
 *
 * @example
 * ```ts
 * const options: FollowUpErrorOptions = { message: 'Sync stopped', code: 'sync_stopped' };
 * throw new FollowUpError(options);
 * ```
 */
export interface FollowUpErrorOptions {
  /** A sentence for people. It must never contain a token, a secret or a payload. */
  message: string;
  /** A machine-readable code. */
  code: string;
  /** The error that caused this one. */
  cause?: unknown;
}

/**
 * The base of every error the SDK throws. `FollowUpError.isInstance(error)` (and the same
 * method on every subclass) recognises errors from any copy of the package, including the ESM and
 * CommonJS builds loaded together, where `instanceof` would say no.
 *
 * Messages never contain the token, a secret or a request body.
 *
 * @example
 * ```ts
 * try {
 *   await client.contacts.get(id);
 * } catch (error) {
 *   if (NotFoundError.isInstance(error)) return null;
 *   if (FollowUpError.isInstance(error)) console.error(error.code, error.message);
 *   throw error;
 * }
 * ```
 */
export class FollowUpError extends Error {
  /** Always `"FollowUpError"`. */
  override readonly name: string = 'FollowUpError';
  /** A machine-readable code: the server's problem `code`, or one of the SDK's own. */
  readonly code: string;
  /**
   * Set when the error ended a list walk: where to resume, without duplicates, by spreading it
   * into the same `list()` call.
   */
  declare resumeFrom?: ResumeFrom;

  constructor(options: FollowUpErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = options.code;
    const names: string[] = [];
    for (
      let current: unknown = new.target;
      typeof current === 'function';
      current = Object.getPrototypeOf(current)
    ) {
      const name = brandNames.get(current);
      if (name !== undefined) names.push(name);
    }
    Object.defineProperty(this, brandKey, { value: Object.freeze(names) });
  }

  /**
   * Whether `value` is an instance of this class (or a subclass), also when it comes from another
   * copy of `@followup/sdk`, where `instanceof` fails.
   *
   * @example
   * ```ts
   * if (RateLimitError.isInstance(error)) await sleep(error.retryAfterMs ?? 1000);
   * ```
   */
  static isInstance<T>(this: { readonly prototype: T }, value: unknown): value is T {
    // Replaced on every class by `brand()` below with a guard bound to that class.
    const name = brandNames.get(FollowUpError);
    return name !== undefined && hasBrand(value, name);
  }
}
brand(FollowUpError, 'FollowUpError');

/**
 * The client or a call was given options that cannot work: a malformed token, a missing
 * `baseUrl`, a `limit` above 200. Thrown before any request is made.
 *
 * @example
 * ```ts
 * try {
 *   new FollowUp({ token: 'oops', baseUrl });
 * } catch (error) {
 *   if (ConfigurationError.isInstance(error)) console.error(error.message);
 * }
 * ```
 */
export class ConfigurationError extends FollowUpError {
  /** Always `"ConfigurationError"`. */
  override readonly name: string = 'ConfigurationError';

  constructor(options: { message: string; cause?: unknown }) {
    super({ ...options, code: 'configuration_invalid' });
  }
}
brand(ConfigurationError, 'ConfigurationError');
