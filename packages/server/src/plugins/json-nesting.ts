const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \
const OPEN_BRACKET = 0x5b; // [
const CLOSE_BRACKET = 0x5d; // ]
const OPEN_BRACE = 0x7b; // {
const CLOSE_BRACE = 0x7d; // }

/**
 * The index of the quote that closes the JSON string opened at `open`, or the text's length when
 * none does: a quote preceded by an odd number of backslashes is escaped and the string goes on.
 * `indexOf` jumps over the string's other characters, so long text costs little.
 */
function endOfString(text: string, open: number): number {
  let at = open;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at === -1) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
}

/**
 * @internal Whether the JSON text `text` opens more than `limit` arrays and objects inside one
 * another (`[]` is nested 1 deep, `{"a":[1]}` 2, a number 0), read without parsing it: brackets
 * and braces inside strings do not count, escaped quotes included. It stops at the first level
 * past the limit. Text that is not JSON may be counted wrongly either way; the parser refuses it
 * anyway.
 *
 * @example
 * ```ts
 * exceedsJsonNesting('{"a":[[1]]}', 2); // true: 3 deep
 * exceedsJsonNesting('{"a":"[[[["}', 1); // false
 * ```
 */
export function exceedsJsonNesting(text: string, limit: number): boolean {
  // Each level opens with one character: a text no longer than the limit cannot pass it.
  if (text.length <= limit) return false;
  let depth = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      index = endOfString(text, index);
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth++;
      if (depth > limit) return true;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}
