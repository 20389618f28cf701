import { boundedText, INPUT_LIMITS } from '@followup/sdk';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import type { RequireCapability } from '../plugins/authentication.js';
import { problemResponses } from '../plugins/openapi.js';
import type { Database } from '../storage/database.js';
import { roles } from '../tokens/role.js';
import {
  disableUser,
  inviteUser,
  revokeUserSessions,
  type UserActionContext,
} from '../users/user-actions.js';
import { publicUrlOf } from '../web/page-context.js';

const roleSchema = z.enum(roles as [string, ...string[]]);

const invitationInputSchema = z.strictObject({
  email: z.email().max(INPUT_LIMITS.email),
  role: roleSchema,
  name: boundedText({ min: 1, max: INPUT_LIMITS.name }).optional(),
});

const invitationSchema = z.object({
  id: z.string(),
  email: z.string(),
  role: roleSchema,
  signInUrl: z.string(),
  expiresAt: z.string(),
});

const userStateSchema = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  role: roleSchema,
  state: z.enum(['invited', 'active', 'disabled']),
  sessions: z.number().int(),
  createdAt: z.string(),
});

const idParams = z.object({ id: boundedText({ min: 1, max: INPUT_LIMITS.id }) });

/**
 * @internal The user actions of `/api/users` beyond create/read/update/delete: invite (a one-time
 * sign-in link, shown once), disable, and end every session. `users.manage`; the same functions
 * as the Users page and `followup-server users …`, audited with the caller as actor.
 */
export function userActionRoutes(options: {
  database: Database;
  clock: Clock;
  newId: IdGenerator;
  requireCapability: RequireCapability;
  publicUrl: string | undefined;
}): FastifyPluginAsync {
  function context(request: FastifyRequest): UserActionContext {
    const principal = request.principal;
    if (!principal) throw new Error('A user action ran without an authenticated principal.');
    const { database, clock, newId } = options;
    return { database, clock, newId, actor: principal.actor };
  }

  return async (app) => {
    const typed = app.withTypeProvider<ZodTypeProvider>();
    typed.post(
      '/api/users/invitations',
      {
        onRequest: options.requireCapability('users.manage'),
        schema: {
          tags: ['Users'],
          summary: 'Invite a person: a one-time sign-in link, valid 24 hours, shown only now',
          security: [{ bearerAuth: [] }],
          body: invitationInputSchema,
          response: {
            201: invitationSchema,
            ...problemResponses('conflict'),
          },
        },
      },
      async (request, reply) => {
        const { email, role, name } = request.body;
        const invitation = await inviteUser(context(request), {
          email,
          role,
          publicUrl: publicUrlOf(request, options.publicUrl),
          ...(name === undefined ? {} : { name }),
        });
        return reply.status(201).send(invitation);
      },
    );

    typed.post(
      '/api/users/:id/disable',
      {
        onRequest: options.requireCapability('users.manage'),
        schema: {
          tags: ['Users'],
          summary: 'Disable a user: no more sign-in, and every session of theirs ends at once',
          security: [{ bearerAuth: [] }],
          params: idParams,
          response: { 200: userStateSchema, ...problemResponses('not_found') },
        },
      },
      async (request) => disableUser(context(request), request.params.id),
    );

    typed.delete(
      '/api/users/:id/sessions',
      {
        onRequest: options.requireCapability('users.manage'),
        schema: {
          tags: ['Users'],
          summary: 'End every session of a user at once',
          security: [{ bearerAuth: [] }],
          params: idParams,
          response: {
            200: z.object({ id: z.string(), sessionsEnded: z.number().int() }),
            ...problemResponses('not_found'),
          },
        },
      },
      async (request) => revokeUserSessions(context(request), request.params.id),
    );
  };
}
