import {
  createUserInputSchema,
  updateUserInputSchema,
  userListSchema,
  userSchema,
} from '@followup/sdk';
import type { FastifyPluginAsync } from 'fastify';
import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import type { RequireCapability } from '../plugins/authentication.js';
import type { Database } from '../storage/database.js';
import type { Role } from '../tokens/role.js';
import { userRoleChanged } from '../users/user-actions.js';
import { resourceRoutes } from './resource-routes.js';

/**
 * @internal `/api/users` (the people of the workspace): list, get, create, update and delete,
 * all behind users.manage. An e-mail address belongs to one user whatever its case: a second,
 * created or changed to (`DEMO@example.com` beside `demo@example.com`), is a 409 `conflict`.
 * Users decide who works in the workspace, so every change is audited (`user.created`,
 * `user.updated` with the names of the fields changed, `user.deleted`), never with the values.
 * Setting a user's role ends every session of theirs at once, as the Users page and the CLI do
 * (`user.role_changed`).
 */
export function userRoutes(options: {
  database: Database;
  clock: Clock;
  newId: IdGenerator;
  requireCapability: RequireCapability;
}): FastifyPluginAsync {
  return resourceRoutes(
    {
      name: 'user',
      path: '/api/users',
      collection: 'users',
      idPrefix: 'usr',
      capabilities: { read: 'users.manage', write: 'users.manage', delete: 'users.manage' },
      schemas: {
        item: userSchema,
        list: userListSchema,
        create: createUserInputSchema,
        update: updateUserInputSchema,
      },
      fields: {
        email: { column: 'email' },
        name: { column: 'name' },
        role: { column: 'role' },
      },
      updatedAt: false,
      count: false,
      unique: {
        // Whatever its case (migration 26): `DEMO@example.com` beside `demo@example.com` is 409.
        users_lower_email_key: {
          field: 'email',
          message: 'Another user has this e-mail address.',
        },
      },
      audited: { created: true, updated: true, deleted: true },
      async afterUpdate({ transaction, item, actor, fields }) {
        if (!fields.includes('role')) return;
        await userRoleChanged(transaction, { ...options, actor }, String(item.id), {
          to: item.role as Role,
        });
      },
    },
    options,
  );
}
