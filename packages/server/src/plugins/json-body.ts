import type { FastifyInstance } from 'fastify';
import { ProblemError } from '../problem-error.js';
import { exceedsJsonNesting } from './json-nesting.js';

/**
 * @internal The most arrays and objects a JSON request body may open inside one another. The
 * deepest body a route takes is a sequence whose steps' extra fields are nested
 * `INPUT_LIMITS.jsonDepth` (8) deep, 11 levels in all; 64 leaves room, and keeps every
 * recursive reader of a body (validation, the idempotency fingerprint's `JSON.stringify`, the
 * database's JSON parser) far from the end of its stack.
 */
export const MAX_JSON_BODY_DEPTH = 64;

/**
 * @internal The `application/json` body parser of every route: Fastify's own (with its
 * `__proto__` and `constructor` checks), after a scan of the text that refuses a body nested
 * deeper than {@link MAX_JSON_BODY_DEPTH} with 400 `invalid_json`. The refusal comes before the
 * body is parsed, validated or seen by any hook or handler of the route; a body within the limit
 * is parsed once.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser(
    app.initialConfig.onProtoPoisoning ?? 'error',
    app.initialConfig.onConstructorPoisoning ?? 'error',
  );
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (exceedsJsonNesting(body as string, MAX_JSON_BODY_DEPTH)) {
      done(
        new ProblemError({
          code: 'invalid_json',
          detail: `The request body is nested more than ${MAX_JSON_BODY_DEPTH} deep.`,
        }),
        undefined,
      );
      return;
    }
    parseJson(request, body as string, done);
  });
}
