import { type AuditEntryList, auditEntryListSchema } from '@followup/sdk';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { listAuditEntries } from '../audit/audit-log.js';
import { FollowUpServerError } from '../errors.js';
import type { RequireCapability } from '../plugins/authentication.js';
import { problemResponses } from '../plugins/openapi.js';
import { ProblemError } from '../problem-error.js';
import type { Database } from '../storage/database.js';
import { limitParameter } from './list-query.js';

const querySchema = z.object({
  limit: limitParameter,
  cursor: z.string().optional(),
});

/** @internal `GET /api/audit` (audit.read): cursor pages of the audit log. */
export function auditRoutes(options: {
  database: Database;
  requireCapability: RequireCapability;
}): FastifyPluginAsync {
  return async (app) => {
    app.withTypeProvider<ZodTypeProvider>().get(
      '/api/audit',
      {
        onRequest: options.requireCapability('audit.read'),
        schema: {
          tags: ['Audit'],
          summary: 'List audit entries, oldest first, in cursor pages',
          security: [{ bearerAuth: [] }],
          querystring: querySchema,
          response: {
            200: auditEntryListSchema,
            ...problemResponses(),
          },
        },
      },
      async (request) => {
        const { limit, cursor } = request.query;
        try {
          const page = await listAuditEntries(
            options.database,
            cursor === undefined ? { limit } : { limit, cursor },
          );
          // The store's interfaces lack the index signature of the SDK's open object types; the
          // response schema (auditEntryListSchema) checks the answer itself.
          return page as AuditEntryList;
        } catch (error) {
          if (FollowUpServerError.isInstance(error) && error.code === 'invalid_cursor') {
            throw new ProblemError({
              code: 'validation_failed',
              detail: 'The request is not valid: see errors.',
              errors: [{ path: 'cursor', message: error.message }],
            });
          }
          throw error;
        }
      },
    );
  };
}
