import { FollowUpServerError } from '../errors.js';
import { MAX_TOKEN_LABEL_LENGTH } from './token-limits.js';

/**
 * @internal Checks a token label: 1 to {@link MAX_TOKEN_LABEL_LENGTH} characters, none of them a
 * control character, a lone surrogate or a line or paragraph separator. Throws `invalid_label`.
 */
export function checkTokenLabel(label: string): string {
  const printable = /^[^\p{Cc}\p{Cs}\u2028\u2029]+$/u;
  if (
    typeof label !== 'string' ||
    label.trim() === '' ||
    [...label].length > MAX_TOKEN_LABEL_LENGTH ||
    !label.isWellFormed() ||
    !printable.test(label)
  ) {
    throw new FollowUpServerError({
      code: 'invalid_label',
      message: `A token label is 1 to ${MAX_TOKEN_LABEL_LENGTH} printable characters.`,
    });
  }
  return label;
}
