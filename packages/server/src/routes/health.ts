import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ProblemError } from '../problem-error.js';
import type { Database } from '../storage/database.js';
import { pingDatabase } from '../stores/health-store.js';

/** @internal `GET /healthz`: 200 once the server is ready and its database answers. */
export function healthRoutes(options: { database: Database }): FastifyPluginAsync {
  return async (app) => {
    app.withTypeProvider<ZodTypeProvider>().get(
      '/healthz',
      {
        schema: {
          summary: 'Readiness: 200 once the server is ready and its database answers',
          response: { 200: z.object({ status: z.literal('ok') }) },
        },
      },
      async () => {
        try {
          await pingDatabase(options.database);
        } catch {
          throw new ProblemError({
            code: 'unavailable',
            detail: 'The database does not answer.',
          });
        }
        return { status: 'ok' as const };
      },
    );
  };
}
