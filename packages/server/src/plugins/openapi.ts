import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { polishDocument, webhookSecuritySchemes } from './openapi-document.js';

const PROBLEM_DESCRIPTION = 'RFC 9457 problem details (application/problem+json)';

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
  .describe(PROBLEM_DESCRIPTION);

/**
 * @internal Documents problem responses of a route: `{ 401: problem, 403: problem, … }`. The
 * published document names the codes each one can carry on that route (see `polishDocument`).
 */
export function problemResponses(...statuses: number[]) {
  return Object.fromEntries(statuses.map((status) => [status, problemSchema]));
}

function problemJsonSchema(): Record<string, unknown> {
  const { $schema: _, ...schema } = z.toJSONSchema(problemSchema) as Record<string, unknown>;
  return schema;
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
        license: { name: 'MIT', identifier: 'MIT' },
      },
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'A service-account token: hns_<serviceAccountId>.<secret>',
          },
          ...webhookSecuritySchemes(),
        },
      },
    },
    transform: jsonSchemaTransform,
    transformObject: (documentObject) => {
      const document = 'openapiObject' in documentObject ? documentObject.openapiObject : {};
      return polishDocument(
        document as Record<string, unknown>,
        problemJsonSchema(),
        PROBLEM_DESCRIPTION,
      ) as typeof document;
    },
  });
  app.register(swaggerUi, { routePrefix: '/docs', logLevel: 'warn' });
  // The document names the server it was fetched from, so that a client generator or the /docs
  // page calls the right host.
  app.get('/openapi.json', { schema: { hide: true } }, async (request, reply) => {
    reply.header('vary', 'host');
    return { ...app.swagger(), servers: [{ url: `${request.protocol}://${request.host}` }] };
  });
}
