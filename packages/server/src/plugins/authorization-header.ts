/** @internal What a request's `Authorization` header presents. */
export type PresentedCredentials =
  /** No header, or one with nothing in it: `token_missing`. */
  | { kind: 'none' }
  /** A header that is not `Bearer <token>` (another scheme, a bare token, no token): `token_malformed`. */
  | { kind: 'malformed' }
  /** The token of a `Bearer <token>` header, still to be verified. */
  | { kind: 'bearer'; token: string };

// RFC 6750 section 2.1: the scheme (any case), at least one space, then one token. Tabs are
// accepted as the server always has; what the token itself may be is the token grammar's call.
const bearerPattern = /^Bearer[ \t]+(\S+)$/i;

/**
 * @internal Reads an `Authorization` header. A token sent without its scheme
 * (`Authorization: hns_…`) or under another one (`Basic …`) is `malformed`, not `none`: the
 * caller did send credentials, and the answer must tell them the scheme is wrong rather than
 * that nothing came. Several `Authorization` headers are malformed too.
 */
export function readAuthorizationHeader(
  header: string | readonly string[] | undefined,
): PresentedCredentials {
  if (header === undefined) return { kind: 'none' };
  if (typeof header !== 'string') return { kind: 'malformed' };
  const value = header.trim();
  if (value === '') return { kind: 'none' };
  const match = bearerPattern.exec(value);
  return match ? { kind: 'bearer', token: match[1] as string } : { kind: 'malformed' };
}
