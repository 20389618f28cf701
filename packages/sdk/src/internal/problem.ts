import { type ProblemDetails, problemDetailsSchema } from '../schemas/problem-details.js';

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/**
 * Reads an error body as problem+json. Returns `undefined` for an empty body, a body that is not
 * JSON or not an object; when some members have the wrong type, keeps the ones that are right.
 * Never throws.
 */
export function parseProblem(text: string, contentType: string | null): ProblemDetails | undefined {
  if (text.length === 0) return undefined;
  if (contentType !== null && contentType !== '' && !JSON_TYPE.test(contentType)) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return undefined;
  const parsed = problemDetailsSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  // Keep every member that is well-typed on its own.
  const partial: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(problemDetailsSchema.shape)) {
    const member = schema.safeParse((json as Record<string, unknown>)[key]);
    if (member.success && member.data !== undefined) partial[key] = member.data;
  }
  return partial as ProblemDetails;
}
