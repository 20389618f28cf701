import { z } from 'zod';
import { timestampSchema } from '../internal/timestamp.js';
import { INPUT_LIMITS } from '../wire/limits.js';
import { ROLE_VALUES, type Role } from '../wire/roles.js';
import { boundedText } from './input-limits.js';
import { openEnum } from './open-enum.js';

/**
 * Schema of a user, a person in the workspace (unknown fields are kept).
 *
 * @example
 * ```ts
 * const user = userSchema.parse(json);
 * ```
 */
export const userSchema = z.looseObject({
  /** The user's id. */
  id: z.string().min(1),
  /** The user's e-mail address (checked when written; read back as any string). */
  email: z.string(),
  /** The user's display name. */
  name: z.string(),
  /** `ADMIN`, `MANAGER`, `AGENT`, `READONLY` (an open enumeration). */
  role: openEnum(ROLE_VALUES),
  /** When the user was created (ISO 8601 UTC). */
  createdAt: timestampSchema,
});

/**
 * A user: `id, email, name, role, createdAt`.
 *
 * @example
 * ```ts
 * const user: User = await client.users.get('usr_01J…');
 * ```
 */
export type User = z.infer<typeof userSchema>;

// Written roles are the four roles exactly (a typo fails before it is sent); typed as a plain
// union so that the generated reference shows it as such.
const knownRoleSchema: z.ZodType<Role> = z.enum(ROLE_VALUES);

/**
 * Schema of the body of `POST /api/users`.
 *
 * @example
 * ```ts
 * createUserInputSchema.parse({ email: 'ada@example.com', name: 'Ada', role: 'AGENT' });
 * ```
 */
export const createUserInputSchema = z.strictObject({
  /** E-mail address. */
  email: z.email().max(INPUT_LIMITS.email),
  /** Display name, 1 to 200 characters. */
  name: boundedText({ min: 1, max: INPUT_LIMITS.name }),
  /** The role. */
  role: knownRoleSchema,
});

/**
 * What `client.users.create()` takes.
 *
 * @example
 * ```ts
 * const input: CreateUserInput = { email: 'ada@example.com', name: 'Ada', role: 'AGENT' };
 * ```
 */
export type CreateUserInput = z.input<typeof createUserInputSchema>;

/**
 * Schema of the body of `PATCH /api/users/:id`.
 *
 * @example
 * ```ts
 * updateUserInputSchema.parse({ role: 'MANAGER' });
 * ```
 */
export const updateUserInputSchema = z.strictObject({
  /** New e-mail address. */
  email: z.email().max(INPUT_LIMITS.email).optional(),
  /** New display name. */
  name: boundedText({ min: 1, max: INPUT_LIMITS.name }).optional(),
  /** New role. */
  role: knownRoleSchema.optional(),
});

/**
 * What `client.users.update()` takes.
 *
 * @example
 * ```ts
 * const patch: UpdateUserInput = { role: 'READONLY' };
 * ```
 */
export type UpdateUserInput = z.input<typeof updateUserInputSchema>;

/**
 * Schema of a page of `GET /api/users`: `{ "users": [...] }`.
 *
 * @example
 * ```ts
 * const { users } = userListSchema.parse(json);
 * ```
 */
export const userListSchema = z.looseObject({
  /** The users of the page. */
  users: z.array(userSchema),
});

/**
 * A page of users as the service sends it.
 *
 * @example
 * ```ts
 * const body: UserList = { users: [] };
 * ```
 */
export type UserList = z.infer<typeof userListSchema>;
