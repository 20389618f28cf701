import { ProblemError } from '../problem-error.js';
import type { ResourceDefinition } from './resource-definition.js';

function databaseErrorCode(error: unknown): { code?: string; constraint?: string } {
  if (typeof error !== 'object' || error === null) return {};
  const { code, constraint } = error as { code?: unknown; constraint?: unknown };
  return {
    ...(typeof code === 'string' ? { code } : {}),
    ...(typeof constraint === 'string' ? { constraint } : {}),
  };
}

/**
 * @internal Maps a constraint violation of a resource's write to the problem its request caused:
 * a foreign key of `references` is a 400 `validation_failed` on its field, a unique column of
 * `unique` a 409 `conflict`; any other error is answered unchanged.
 */
export function constraintProblem(
  definition: Pick<ResourceDefinition, 'references' | 'unique'>,
  error: unknown,
): unknown {
  const { code, constraint } = databaseErrorCode(error);
  if (constraint === undefined) return error;
  const reference = code === '23503' ? definition.references?.[constraint] : undefined;
  if (reference) {
    return new ProblemError({
      code: 'validation_failed',
      detail: 'The request is not valid: see errors.',
      errors: [{ path: reference.field, message: reference.message }],
    });
  }
  const unique = code === '23505' ? definition.unique?.[constraint] : undefined;
  if (unique) {
    return new ProblemError({
      code: 'conflict',
      detail: unique.message,
      errors: [{ path: unique.field, message: unique.message }],
    });
  }
  return error;
}
