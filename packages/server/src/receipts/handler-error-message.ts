/** The longest handler error message stored on a receipt, in UTF-16 code units. */
export const MAX_HANDLER_ERROR_LENGTH = 1000;

const fallback = 'The handler failed without a readable message.';

// C0 and C1 control characters and DEL (NUL included, which PostgreSQL's text cannot hold), and
// unpaired surrogates (which UTF-8 cannot encode).
const unstorable =
  /\p{Cc}|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/gu;

/**
 * @internal What a failed EHR handler's error leaves on its receipt: its message on one line,
 * control characters and unpaired surrogates each replaced by a space or U+FFFD, at most
 * {@link MAX_HANDLER_ERROR_LENGTH} code units (cut before a surrogate pair, not through it, and
 * marked with `…`). Whatever was thrown — not an `Error`, an object whose `message` or
 * `toString` throws — it answers a string and never throws.
 */
export function handlerErrorMessage(error: unknown): string {
  let message: string;
  try {
    const raw = error instanceof Error ? error.message : String(error);
    message = typeof raw === 'string' ? raw : String(raw);
  } catch {
    return fallback;
  }
  message = message.replace(unstorable, (character) =>
    character.length === 1 && character.charCodeAt(0) >= 0xd800 ? '\uFFFD' : ' ',
  );
  if (message.trim() === '') return fallback;
  if (message.length <= MAX_HANDLER_ERROR_LENGTH) return message;
  let end = MAX_HANDLER_ERROR_LENGTH - 1;
  const last = message.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${message.slice(0, end)}…`;
}
