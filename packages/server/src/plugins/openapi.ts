import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { PROBLEM_CODES, type ProblemCode, problemResponseSchema } from '@followup/sdk';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { openApiWebhooks } from '../events/event-types.js';
import { DOCS_FAVICON_SVG, DOCS_LOGO_SVG, DOCS_THEME_SCRIPT, DOCS_TITLE } from './docs-branding.js';
import { polishDocument, webhookSecuritySchemes } from './openapi-document.js';
import { OPENAPI_TAGS } from './openapi-tags.js';
import { routeProblemCodes } from './route-problem-codes.js';

/**
 * @internal The body of every error response, for the route schemas' documentation: the SDK's
 * `problemResponseSchema`, the one shape the server sends.
 */
export const problemSchema = problemResponseSchema;

/** The codes a route's handler declared, by the response schema that carries them. */
const declaredCodes = new WeakMap<object, readonly ProblemCode[]>();

/**
 * @internal The problem codes a route's handler throws itself (`not_found`, `conflict`,
 * `signature_invalid`…), as response schemas by status: `{ 404: problem, 409: problem }`. The
 * published document lists, under each status, these and the codes the route's definition
 * implies (its schemas, methods, idempotency and guarding hooks; see `routeProblemCodes`), and
 * no other.
 */
export function problemResponses(...codes: ProblemCode[]): Record<number, typeof problemSchema> {
  const byStatus = new Map<number, ProblemCode[]>();
  for (const code of codes) {
    const status = PROBLEM_CODES[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, list]) => {
      const schema = problemSchema.clone();
      declaredCodes.set(schema, list);
      return [status, schema];
    }),
  );
}

function problemJsonSchema(): Record<string, unknown> {
  const { $schema: _, ...schema } = z.toJSONSchema(problemSchema) as Record<string, unknown>;
  return schema;
}

const unsafeMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

// Every route that takes a bearer token also takes the web session cookie (with X-CSRF-Token on
// unsafe methods): say so beside bearerAuth, from the one place that knows.
const withCookieAuth: typeof jsonSchemaTransform = (input) => {
  const output = jsonSchemaTransform(input);
  const schema = output.schema as { security?: Record<string, string[]>[] } | undefined;
  if (!schema?.security?.some((requirement) => 'bearerAuth' in requirement)) return output;
  const methods = [input.route.method].flat().map((method) => method.toUpperCase());
  const cookie = methods.some((method) => unsafeMethods.has(method))
    ? { cookieAuth: [], csrfToken: [] }
    : { cookieAuth: [] };
  const already = schema.security.some((requirement) => 'cookieAuth' in requirement);
  return {
    ...output,
    schema: {
      ...schema,
      security: already
        ? schema.security.map((requirement) => ('cookieAuth' in requirement ? cookie : requirement))
        : [...schema.security, cookie],
    },
  } as typeof output;
};

type Transformed = ReturnType<typeof jsonSchemaTransform>;

/**
 * The problem responses of a route, derived from its definition (`routeProblemCodes`): one per
 * status it can answer with, naming the codes. What the route schema declared by status alone
 * is replaced, so that no response lists a code the route cannot answer.
 */
function withProblemCodes(input: Parameters<typeof jsonSchemaTransform>[0], output: Transformed) {
  const { route } = input;
  const schema = output.schema as { response?: Record<string, unknown> } | undefined;
  if (!schema || (route.schema as { hide?: boolean } | undefined)?.hide) return output;
  const declared = Object.values((route.schema?.response ?? {}) as Record<string, object>).flatMap(
    (response) => declaredCodes.get(response) ?? [],
  );
  const codes = routeProblemCodes({
    method: route.method,
    schema: route.schema,
    config: route.config as { idempotent?: boolean; anyBody?: boolean } | undefined,
    onRequest: route.onRequest,
    preValidation: route.preValidation,
    preHandler: route.preHandler,
    declared,
  });
  const response = Object.fromEntries(
    Object.entries(schema.response ?? {}).filter(([status]) => Number(status) < 400),
  );
  const byStatus = new Map<number, ProblemCode[]>();
  for (const code of codes) {
    const status = PROBLEM_CODES[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, list] of byStatus) {
    response[status] = { ...problemJsonSchema(), description: `Problem codes: ${list.join(', ')}` };
  }
  return { ...output, schema: { ...schema, response } } as Transformed;
}

/**
 * @internal The Content-Security-Policy of `/docs` and its assets: Swagger UI's own scripts and
 * styles only, no inline script, its calls to this origin only, and never in a frame (as the
 * web console's pages, see web/README.md).
 */
export const DOCS_CONTENT_SECURITY_POLICY: Readonly<Record<string, readonly string[]>> = {
  'default-src': ["'none'"],
  'script-src': ["'self'"],
  // And the one <style> Swagger UI draws for its own top-bar logo before ours (docs-branding.ts,
  // which has none) replaces it, by its hash: no other inline style.
  'style-src': ["'self'", "'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
  'base-uri': ["'none'"],
  'object-src': ["'none'"],
};

/** @internal Options of {@link installOpenApi}. */
export interface OpenApiOptions {
  /** The origin of `--public-url`: the document's one server. */
  publicOrigin: string | undefined;
}

/**
 * @internal `GET /openapi.json`, generated from the route schemas (the zod schemas that also
 * validate requests), and `GET /docs`, a browsable reference of it. Register before the routes.
 *
 * The document's `servers` is the public URL when one is configured, and otherwise `/`: the
 * origin the document was fetched from, resolved by the client. Never the `Host` or
 * `X-Forwarded-Host` of the request, which whoever sends it chooses (a cache between would keep
 * a forged one for everybody).
 */
export function installOpenApi(app: FastifyInstance, options: OpenApiOptions): void {
  const servers = [{ url: options.publicOrigin ?? '/' }];
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
      // In this order in /docs; every operation names one (see openapi-tags.ts).
      tags: OPENAPI_TAGS.map((tag) => ({ ...tag })),
      // Plain JSON Schema objects, which the OpenAPI types describe more narrowly.
      webhooks: openApiWebhooks() as never,
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'A service-account token: hns_<serviceAccountId>.<secret>',
          },
          ...webhookSecuritySchemes(),
          cookieAuth: {
            type: 'apiKey',
            in: 'cookie',
            name: 'followup_session',
            description:
              "The web application's session cookie (`__Host-followup_session` over HTTPS), with " +
              "the signed-in user's role. Used only when no Authorization header is sent. POST, " +
              'PUT, PATCH and DELETE also need the X-CSRF-Token header (csrfToken) and a ' +
              'same-origin Origin, or they get 403 csrf_invalid. For the browser only: not a ' +
              'stable contract for programmatic clients, which use bearer tokens.',
          },
          csrfToken: {
            type: 'apiKey',
            in: 'header',
            name: 'X-CSRF-Token',
            description:
              'The CSRF token of the web session (from the page\'s <meta name="csrf-token">), ' +
              'with cookieAuth on unsafe methods. Not a stable contract for programmatic clients.',
          },
        },
      },
    },
    transform: (input) => withProblemCodes(input, withCookieAuth(input)),
    transformObject: (documentObject) => {
      const document = 'openapiObject' in documentObject ? documentObject.openapiObject : {};
      return polishDocument(
        document as Record<string, unknown>,
        problemJsonSchema(),
      ) as typeof document;
    },
  });
  app.register(swaggerUi, {
    routePrefix: '/docs',
    logLevel: 'warn',
    staticCSP: DOCS_CONTENT_SECURITY_POLICY as Record<string, string[]>,
    // FollowUp's name and logo, not Fastify's (see docs-branding.ts).
    theme: {
      title: DOCS_TITLE,
      favicon: [
        {
          filename: 'favicon.svg',
          rel: 'icon',
          type: 'image/svg+xml',
          sizes: 'any',
          content: DOCS_FAVICON_SVG,
        },
      ],
      js: [{ filename: 'name-logo.js', content: DOCS_THEME_SCRIPT }],
    },
    logo: { type: 'image/svg+xml', content: DOCS_LOGO_SVG },
    // The same servers as /openapi.json, for the page's "Try it out".
    transformSpecification: (document) => ({ ...document, servers }),
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => ({
    ...app.swagger(),
    servers,
  }));
}
