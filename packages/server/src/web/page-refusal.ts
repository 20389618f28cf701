import { FollowUpServerError } from '../errors.js';
import { ProblemError } from '../problem-error.js';

/** @internal What a page says of an action it refused: the status and the message. */
export interface PageRefusal {
  status: number;
  message: string;
}

/**
 * @internal The status and message of a refusal an action threw (bad input, an unknown id, a
 * conflict), for the console's and the portal's pages alike: a `ProblemError`'s own status and
 * its fields' messages; a server error's code read as 404 (`…not_found`), 409 (one of
 * `conflicts`) or 400. `undefined` for anything else: a fault, not a refusal, left to the
 * server's error handler.
 */
export function pageRefusalOf(
  error: unknown,
  conflicts: ReadonlySet<string>,
): PageRefusal | undefined {
  if (error instanceof ProblemError) {
    const fields = error.errors?.map((item) => `${item.path}: ${item.message}`).join('; ');
    return { status: error.status, message: fields ? `${error.message} ${fields}` : error.message };
  }
  if (FollowUpServerError.isInstance(error)) {
    const status = /not_found$/.test(error.code) ? 404 : conflicts.has(error.code) ? 409 : 400;
    return { status, message: error.message };
  }
  return undefined;
}
