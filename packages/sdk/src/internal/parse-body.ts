import type { z } from 'zod';
import type { Logger, Validation } from '../client-options.js';
import { jsonGuard } from '../json-guard.js';
import { ResponseValidationError } from '../request-errors.js';
import type { BuiltRequest } from './build-request.js';

/** How a success body is read: the schema, and what to do when the body does not match it. */
export interface ParseOptions<T> {
  /** The schema of the body; without one the body is ignored and the result is `undefined`. */
  readonly schema: z.ZodType<T> | undefined;
  readonly validation: Validation;
  readonly logger: Logger | undefined;
}

/**
 * The last step of a call: parses a 2xx body as JSON and validates it. The common case, a valid
 * body, is checked by a predicate compiled from the schema, which builds nothing; zod itself runs
 * when it says no, to report the issues. Under `validation: 'warn'` a mismatch is logged and the
 * body returned as it is; under `'off'` it is not checked.
 *
 * @throws {@link ResponseValidationError} when the body is not JSON, or (under `'strict'`) does
 *   not match the schema.
 */
export function parseBody<T>(
  response: Response,
  text: string,
  request: BuiltRequest,
  options: ParseOptions<T>,
): T {
  const { schema, validation } = options;
  if (schema === undefined) return undefined as T;
  const { method, url } = request;
  const context = () => ({
    status: response.status,
    requestId: response.headers.get('x-request-id') ?? undefined,
    method,
    url,
  });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ResponseValidationError({
      ...context(),
      message: `The response to ${method} ${url} is not JSON.`,
      issues: [{ path: [], message: 'The body is not valid JSON.' }],
    });
  }
  if (validation === 'off') return json as T;
  const guard = jsonGuard(schema);
  if (guard?.(json) === true) return json as T;
  const result = schema.safeParse(json);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => ({
    path: issue.path,
    message: issue.message,
  }));
  const summary = issues
    .slice(0, 3)
    .map((issue) => `${issue.path.map(String).join('.') || '(body)'}: ${issue.message}`)
    .join('; ');
  const message = `The response to ${method} ${url} does not match the schema: ${summary}${issues.length > 3 ? ` (and ${issues.length - 3} more)` : ''}.`;
  if (validation === 'warn') {
    options.logger?.warn?.(`followup: ${message}`, { ...context(), issues });
    return json as T;
  }
  throw new ResponseValidationError({ ...context(), message, issues });
}
