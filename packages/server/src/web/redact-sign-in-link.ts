/**
 * @internal Hides the token of a sign-in link (`/signin/<token>`) or of a subscriber portal link
 * (`/portal/link/<token>`) in a path or a URL, for logs:
 * the path of a link's own requests, and the `Referer` of the requests its page makes, carry it
 * while it still works.
 *
 * @example
 * ```ts
 * redactSignInLink('/signin/abc?x=1'); // '/signin/[redacted]?x=1'
 * ```
 */
export function redactSignInLink(text: string): string {
  return text.replace(/\/(signin|portal\/link)\/[^?#]*/gi, '/$1/[redacted]');
}
