/**
 * The literal prefix of every service-account token.
 *
 * @example
 * ```ts
 * token.startsWith(TOKEN_PREFIX); // true for every token the service issues
 * ```
 */
export const TOKEN_PREFIX = 'hns_';

/**
 * The grammar of a token, `hns_<service account id>.<secret>`: the account id is 1 to 64 of
 * `A-Z a-z 0-9 _`, the secret one or more base64url characters (`A-Z a-z 0-9 _ -`). The first
 * group is the account id, the second the secret. The server issues secrets of
 * {@link TOKEN_SECRET_LENGTH} characters and refuses any other length.
 *
 * @example
 * ```ts
 * TOKEN_PATTERN.test('hns_sa_01JD0000000000000000000000.c2VjcmV0'); // true
 * ```
 */
export const TOKEN_PATTERN: RegExp = /^hns_([A-Za-z0-9_]{1,64})\.([A-Za-z0-9_-]+)$/;

/** The random bytes of a token's secret: 32. */
export const TOKEN_SECRET_BYTES = 32;

/** The characters of a secret the server issues: 32 bytes in unpadded base64url, 43. */
export const TOKEN_SECRET_LENGTH = 43;

/** The two parts of a token. */
export interface TokenParts {
  /** The service account's id, embedded in the token. */
  readonly accountId: string;
  /** The secret. */
  readonly secret: string;
}

/**
 * Splits a token along {@link TOKEN_PATTERN}; `undefined` when it does not match. The secret's
 * length is not checked here (the server checks it against {@link TOKEN_SECRET_LENGTH}).
 *
 * @example
 * ```ts
 * splitToken('hns_sa_1.c2VjcmV0'); // { accountId: 'sa_1', secret: 'c2VjcmV0' }
 * ```
 */
export function splitToken(token: string): TokenParts | undefined {
  const match = TOKEN_PATTERN.exec(token);
  if (match === null) return undefined;
  return { accountId: match[1] as string, secret: match[2] as string };
}
