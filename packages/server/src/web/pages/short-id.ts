// Ids are 30 characters (`usr_` and a 26-character ULID): in a table they crowd out what the
// row says. Shown shortened in the middle, they stay recognisable by both ends (the start is
// the time, the end the randomness), with the whole id in `title` and a copy button.

/** @internal Ids this long or shorter are shown whole. */
export const SHORT_ID_LIMIT = 14;

/** @internal Characters kept after the prefix, before the ellipsis. */
const HEAD = 4;
/** @internal Characters kept at the end, after the ellipsis. */
const TAIL = 3;

/**
 * @internal An id shortened in the middle for a table, such as `usr_01M8…3FQ` for
 * `usr_01M8ZKQ5C7V4XW2N9J6B8T03FQ`: its prefix (up to the first `_`, when that comes early),
 * the next four characters, an ellipsis and the last three. Ids of up to
 * {@link SHORT_ID_LIMIT} characters are answered as they are.
 *
 * @example
 * ```ts
 * shortId('dlv_01J9Z3B4C5D6E7F8G9H0J1K2M3'); // 'dlv_01J9…2M3'
 * shortId('we_xss'); // 'we_xss'
 * ```
 */
export function shortId(id: string): string {
  const characters = [...id];
  if (characters.length <= SHORT_ID_LIMIT) return id;
  const underscore = characters.indexOf('_');
  const prefix = underscore > 0 && underscore <= 6 ? underscore + 1 : 0;
  const head = characters.slice(0, prefix + HEAD).join('');
  const tail = characters.slice(-TAIL).join('');
  return `${head}…${tail}`;
}
