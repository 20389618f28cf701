import { PROBLEM_CODES, type ProblemCode } from '@followup/sdk';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route reads any body, of any content type, as bytes (the EHR webhooks, whose signature
     * covers the raw bytes): it never answers `invalid_json` or `unsupported_media_type`.
     */
    anyBody?: boolean;
  }
}

/**
 * @internal Where a hook says which problem codes it can answer: a function of the request's
 * method (a web session's CSRF check refuses unsafe methods only). See {@link answering}.
 */
export const ANSWERS: unique symbol = Symbol('followup.answers');

/** @internal The codes a hook can answer, for a method. */
export type AnswersOf = (method: string) => readonly ProblemCode[];

/**
 * @internal Marks a hook with the problem codes it can answer, so that the OpenAPI document of
 * every route it guards lists them, from the code that throws them rather than from a copy.
 *
 * @example
 * ```ts
 * const hook = answering(async (request) => { … }, () => ['webhook_secret_invalid']);
 * ```
 */
export function answering<Hook extends object>(hook: Hook, answers: AnswersOf): Hook {
  return Object.assign(hook, { [ANSWERS]: answers });
}

/** @internal What a route's definition says about the problems it can answer. */
export interface RouteFacts {
  /** Its method, or methods. */
  method: string | readonly string[];
  /** Its schemas: any of body, query string or parameters can fail validation. */
  schema?: { body?: unknown; querystring?: unknown; params?: unknown } | undefined;
  /** Its config: `idempotent` (Idempotency-Key) and `anyBody` (any body taken as bytes). */
  config?: { idempotent?: boolean; anyBody?: boolean } | undefined;
  /** Its hooks, some marked with {@link answering}. */
  onRequest?: unknown;
  preValidation?: unknown;
  preHandler?: unknown;
  /** The codes its handler throws itself (`not_found`, `conflict`, `signature_invalid`…). */
  declared?: readonly ProblemCode[];
}

// The methods whose body Fastify reads: a JSON body that does not parse, one of another type,
// or one over the limit is refused before the handler, whether or not the route reads it.
const bodyMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * @internal Every problem code a route can answer (beside the transport's, `PROBLEM_CODES` scope
 * `transport`), in catalogue order: `bad_request` for any request; `validation_failed` when it
 * has a body, query string or parameters schema; `invalid_json`, `unsupported_media_type` and
 * `payload_too_large` for a method with a body (only the last when the route takes any body as
 * bytes); the idempotency codes on an idempotent `POST`; what its marked hooks answer (tokens,
 * capabilities, CSRF, rate limits, webhook secrets) for its methods; and what its handler
 * declares.
 */
export function routeProblemCodes(route: RouteFacts): ProblemCode[] {
  const methods = [route.method].flat().map((method) => method.toUpperCase());
  const codes = new Set<ProblemCode>(['bad_request', ...(route.declared ?? [])]);
  const { schema, config } = route;
  if (schema?.body || schema?.querystring || schema?.params) codes.add('validation_failed');
  if (methods.some((method) => bodyMethods.has(method))) {
    codes.add('payload_too_large');
    if (!config?.anyBody) {
      codes.add('invalid_json');
      codes.add('unsupported_media_type');
    }
  }
  if (config?.idempotent && methods.includes('POST')) {
    codes.add('idempotency_conflict');
    codes.add('idempotency_in_progress');
  }
  const hooks = [route.onRequest, route.preValidation, route.preHandler].flat();
  for (const hook of hooks) {
    const answers = (hook as { [ANSWERS]?: AnswersOf } | undefined)?.[ANSWERS];
    if (!answers) continue;
    for (const method of methods) for (const code of answers(method)) codes.add(code);
  }
  return (Object.keys(PROBLEM_CODES) as ProblemCode[]).filter((code) => codes.has(code));
}
