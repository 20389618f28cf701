import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { z } from 'zod';

/** @internal The body of every error response, for the route schemas' documentation. */
export const problemSchema = z
  .object({
    type: z.string().describe('urn:followup:problem:<code>'),
    title: z.string().describe('The HTTP status text'),
    status: z.number().int(),
    detail: z.string(),
    code: z.string().describe('Machine-readable, such as token_expired or validation_failed'),
    requestId: z.string().describe('Equal to the X-Request-Id response header'),
    errors: z
      .array(z.object({ path: z.string(), message: z.string() }))
      .optional()
      .describe('The invalid fields, for validation_failed'),
  })
  .describe('RFC 9457 problem details (application/problem+json)');

const descriptions: Record<number, string> = {
  400: 'validation_failed: see errors',
  401: 'token_missing, token_invalid, token_expired or token_revoked (or webhook_secret_invalid)',
  403: 'forbidden: the role lacks the capability',
  404: 'not_found: no record has this id',
  409: 'conflict (a duplicate), idempotency_conflict or idempotency_in_progress',
  413: 'payload_too_large: the body is over 1 MiB',
  429: 'rate_limited: retry after the Retry-After header, in seconds',
};

/** @internal Documents problem responses of a route: `{ 401: problem, 403: problem, … }`. */
export function problemResponses(...statuses: number[]) {
  return Object.fromEntries(
    statuses.map((status) => [status, problemSchema.describe(descriptions[status] ?? 'Problem')]),
  );
}

/**
 * @internal `GET /openapi.json`, generated from the route schemas (the zod schemas that also
 * validate requests), and `GET /docs`, a browsable reference of it. Register before the routes.
 */
export function installOpenApi(app: FastifyInstance): void {
  app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'FollowUp service interface',
        description:
          'The reference server of the contact follow-up service interface. Every error is ' +
          'application/problem+json (RFC 9457) with a machine-readable code; every response ' +
          'carries X-Request-Id.',
        // The version of the service interface this server implements.
        version: '1.0',
      },
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'A service-account token: hns_<serviceAccountId>.<secret>',
          },
        },
      },
    },
    transform: jsonSchemaTransform,
  });
  app.register(swaggerUi, { routePrefix: '/docs', logLevel: 'warn' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
