// A path of this site in printable ASCII: `/`, not followed by another `/` or `\` (which browsers
// read as another host), then anything from `!` to `~` but `\`. No space, no control character
// (a Location header cannot carry them: Node throws ERR_INVALID_CHAR), nothing beyond ASCII.
const sitePath = /^\/(?![/\\])[\x21-\x5b\x5d-\x7e]*$/;

/**
 * @internal Where to go after sign-in: `value` when it is a path of this site, `/` otherwise, so
 * that a crafted `?next=` can never send anyone to another site (`//evil.example`, `/\\evil`,
 * `https://…`) or back to a sign-in page. A path with whitespace, a control or a non-ASCII
 * character is `/` too: what this answers always goes into a `Location` header as it is, so it
 * must be a valid header value (a browser percent-encodes its own links; a raw one is crafted).
 */
export function safeNext(value: string): string {
  if (value.length > 2048) return '/';
  if (!sitePath.test(value)) return '/';
  if (value === '/signin' || value.startsWith('/signin/') || value.startsWith('/signin?')) {
    return '/';
  }
  return value;
}
