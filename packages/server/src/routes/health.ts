import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { problemResponses } from '../plugins/openapi.js';
import { ProblemError } from '../problem-error.js';
import type { Database } from '../storage/database.js';
import { appliedSchemaVersion, pingDatabase } from '../stores/health-store.js';

/** @internal How one readiness check went; `skipped` when an earlier one failed. */
export type ReadinessState = 'ok' | 'failed' | 'skipped';

/** @internal What `GET /readyz` checks, in the order it checks them. */
export interface ReadinessChecks {
  /** The server is not shutting down. */
  shutdown: ReadinessState;
  /** The database answers. */
  database: ReadinessState;
  /** The database's schema is at the version of this server's code. */
  migrations: ReadinessState;
}

/** @internal Options of {@link healthRoutes}. */
export interface HealthRoutesOptions {
  database: Database;
  /** The schema version this server's code was written for: its newest migration. */
  schemaVersion: number;
  /** Whether `app.close()` began (see `installShutdownRefusal`). */
  isClosing: () => boolean;
}

const checkState = z.enum(['ok', 'failed', 'skipped']);

/**
 * @internal The probes. `GET /healthz`: 200 once the server is ready and its database answers
 * (kept as it was). `GET /livez`: 200 while the process serves requests, whatever its database
 * does (a liveness probe restarts what it fails). `GET /readyz`: 200 when the server is not
 * shutting down, its database answers and the schema is at this code's version; otherwise 503
 * `unavailable` naming the failed check, in `detail` and in `checks` (a readiness probe takes
 * the instance out of the load balancer meanwhile).
 */
export function healthRoutes(options: HealthRoutesOptions): FastifyPluginAsync {
  const { database, schemaVersion, isClosing } = options;

  // Each check in turn; the reason of the first that failed, for people.
  async function readiness(): Promise<{ checks: ReadinessChecks; failure?: string }> {
    const checks: ReadinessChecks = { shutdown: 'ok', database: 'ok', migrations: 'ok' };
    if (isClosing()) {
      return {
        checks: { shutdown: 'failed', database: 'skipped', migrations: 'skipped' },
        failure: 'shutdown: the server is shutting down',
      };
    }
    let applied: number;
    try {
      await pingDatabase(database);
      applied = await appliedSchemaVersion(database);
    } catch {
      checks.database = 'failed';
      checks.migrations = 'skipped';
      return { checks, failure: 'database: the database does not answer' };
    }
    if (applied !== schemaVersion) {
      checks.migrations = 'failed';
      return {
        checks,
        failure: `migrations: the database schema is at version ${applied}, this server's code at ${schemaVersion}`,
      };
    }
    return { checks };
  }

  return async (app) => {
    const typed = app.withTypeProvider<ZodTypeProvider>();
    typed.get(
      '/healthz',
      {
        schema: {
          tags: ['Health'],
          summary: 'Readiness: 200 once the server is ready and its database answers',
          response: { 200: z.object({ status: z.literal('ok') }) },
        },
      },
      async () => {
        try {
          await pingDatabase(database);
        } catch {
          throw new ProblemError({
            code: 'unavailable',
            detail: 'The database does not answer.',
          });
        }
        return { status: 'ok' as const };
      },
    );

    typed.get(
      '/livez',
      {
        schema: {
          tags: ['Health'],
          summary: 'Liveness: 200 while the process serves requests (the database is not asked)',
          response: { 200: z.object({ status: z.literal('ok') }) },
        },
      },
      async () => ({ status: 'ok' as const }),
    );

    typed.get(
      '/readyz',
      {
        schema: {
          tags: ['Health'],
          summary:
            'Readiness: 200 when not shutting down, the database answers and its schema is current',
          description:
            'Otherwise 503 `unavailable`, whose `detail` names the failed check and whose `checks` ' +
            'member says how each went (`ok`, `failed`, or `skipped` after an earlier failure).',
          response: {
            200: z.object({
              status: z.literal('ok'),
              checks: z.object({
                shutdown: checkState,
                database: checkState,
                migrations: checkState,
              }),
            }),
            ...problemResponses('unavailable'),
          },
        },
      },
      async () => {
        const { checks, failure } = await readiness();
        if (failure !== undefined) {
          throw new ProblemError({
            code: 'unavailable',
            detail: `Not ready: ${failure}.`,
            extensions: { checks },
          });
        }
        return { status: 'ok' as const, checks };
      },
    );
  };
}
