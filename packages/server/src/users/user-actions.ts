import { LIST_LIMITS } from '@followup/sdk';
import { z } from 'zod';
import { recordAuditEntry } from '../audit/audit-log.js';
import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import { ProblemError } from '../problem-error.js';
import type { Database, Queryable } from '../storage/database.js';
import type { AuditActor } from '../stores/audit-store.js';
import { deleteSessionsOfUser } from '../stores/session-store.js';
import { deleteSignInLinksOfUser } from '../stores/sign-in-link-store.js';
import {
  findUserInfoRow,
  insertUserUnlessEmailTaken,
  listUserInfoRows,
  lockUser,
  lockUserByEmail,
  lockUserDisabledAt,
  lockUserRole,
  markUserDisabled,
  setUserRole,
  type UserInfoRow,
  updateReinvitedUser,
} from '../stores/user-store.js';
import { type Role, roles } from '../tokens/role.js';
import { createSignInLink } from './sign-in-links.js';

/** What every user action needs: storage, time, ids, and who is acting (for the audit log). */
export interface UserActionContext {
  database: Database;
  clock: Clock;
  newId: IdGenerator;
  /** Who does it: recorded in the audit entry. */
  actor: AuditActor;
}

/** A user as the operator commands and the Users page list them. */
export interface UserInfo {
  /** `usr_…` */
  id: string;
  email: string;
  name: string;
  role: Role;
  /** `invited` until a password is chosen, then `active`; `disabled` once disabled. */
  state: 'invited' | 'active' | 'disabled';
  /** Sessions not yet ended (some may have expired without being pruned yet). */
  sessions: number;
  createdAt: string;
}

/** What {@link inviteUser} answers: the one-time sign-in link, shown once. */
export interface UserInvitation {
  id: string;
  email: string;
  role: Role;
  /** `<public URL>/signin/<token>`: single use, valid 24 hours; only its hash is stored. */
  signInUrl: string;
  expiresAt: string;
}

const emailSchema = z.email().max(320);

function invalid(path: string, message: string): ProblemError {
  return new ProblemError({
    code: 'validation_failed',
    detail: 'The request is not valid: see errors.',
    errors: [{ path, message }],
  });
}

function notFound(): ProblemError {
  return new ProblemError({ code: 'not_found', detail: 'No user has this id.' });
}

/** @internal Checks a role named by a person (any case). */
export function parseRole(value: string): Role {
  const role = value.toUpperCase();
  if (!roles.includes(role as Role)) throw invalid('role', `must be one of ${roles.join(', ')}`);
  return role as Role;
}

async function audit(
  queryable: Queryable,
  context: UserActionContext,
  action: string,
  userId: string,
  metadata: Record<string, unknown> = {},
): Promise<void> {
  await recordAuditEntry(
    queryable,
    { action, actor: context.actor, target: { type: 'user', id: userId }, metadata },
    context,
  );
}

/** @internal The sign-in URL of a link token under a public URL. */
export function signInUrl(publicUrl: string, token: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/signin/${token}`;
}

/**
 * Invites a person: creates the user (or, for an existing user who never chose a password, keeps
 * them, with the new role, and voids their earlier links) and makes a one-time sign-in link,
 * valid 24 hours. An address is one user's whatever its case: inviting `ADA@example.com` finds
 * `ada@example.com`, and is a 409 `conflict` once that user has signed in. Audited as `user.invited`. The same
 * function serves `followup-server users invite`, the Users page and the API.
 */
export async function inviteUser(
  context: UserActionContext,
  input: { email: string; role: Role | string; name?: string; publicUrl: string },
): Promise<UserInvitation> {
  const email = input.email.trim();
  if (!emailSchema.safeParse(email).success) throw invalid('email', 'must be an e-mail address');
  const role = parseRole(input.role);
  const name = (input.name ?? '').trim() || email.slice(0, email.indexOf('@'));
  if ([...name].length > 200) throw invalid('name', 'must be at most 200 characters');
  return context.database.transaction(async (transaction) => {
    let id: string;
    let storedEmail = email;
    const metadata: Record<string, unknown> = { role };
    const found = await lockUserByEmail(transaction, email);
    if (found) {
      if (found.password_hash !== null) {
        throw new ProblemError({
          code: 'conflict',
          detail: 'A user with this e-mail address has already signed in.',
        });
      }
      id = found.id;
      storedEmail = found.email;
      metadata.reinvited = true;
      // Inviting a disabled person who never signed in enables them again: said in the audit.
      if (found.disabled_at !== null) metadata.reenabled = true;
      // A new invite replaces the earlier links: only the newest one works.
      await deleteSignInLinksOfUser(transaction, id);
      await updateReinvitedUser(transaction, {
        userId: id,
        role,
        name: input.name?.trim() || null,
      });
    } else {
      id = context.newId('usr');
      // A concurrent invite of the same address in any case may have inserted it since the
      // lookup above (which locks only rows that exist): the unique index on lower(email) keeps
      // one, and this one answers as for a user who exists.
      const inserted = await insertUserUnlessEmailTaken(transaction, {
        id,
        email,
        name,
        role,
        createdAt: new Date(context.clock.now()),
      });
      if (!inserted) {
        throw new ProblemError({
          code: 'conflict',
          detail: 'Another user has this e-mail address.',
        });
      }
    }
    const link = await createSignInLink(transaction, id, context);
    await audit(transaction, context, 'user.invited', id, {
      ...metadata,
      expiresAt: link.expiresAt,
    });
    return {
      id,
      email: storedEmail,
      role,
      signInUrl: signInUrl(input.publicUrl, link.token),
      expiresAt: link.expiresAt,
    };
  });
}

function toUserInfo(row: UserInfoRow): UserInfo {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    state: row.disabled_at ? 'disabled' : row.has_password ? 'active' : 'invited',
    sessions: Number(row.sessions),
    createdAt: row.created_at,
  };
}

/** Lists users, oldest first, `limit` (1 to 200, default 50) from `offset`. */
export async function listUsers(
  queryable: Queryable,
  options: { limit?: number; offset?: number } = {},
): Promise<UserInfo[]> {
  const { defaultLimit, maxLimit } = LIST_LIMITS;
  const limit = Math.min(Math.max(Math.trunc(options.limit ?? defaultLimit), 1), maxLimit);
  const offset = Math.max(Math.trunc(options.offset ?? 0), 0);
  const rows = await listUserInfoRows(queryable, { limit, offset });
  return rows.map(toUserInfo);
}

/** One user with their state, or `undefined`. */
export async function getUserInfo(
  queryable: Queryable,
  userId: string,
): Promise<UserInfo | undefined> {
  const row = await findUserInfoRow(queryable, userId);
  return row ? toUserInfo(row) : undefined;
}

/**
 * Disables a user: they can no longer sign in, and every session of theirs ends at once.
 * Audited as `user.disabled`. Disabling a disabled user changes nothing and is not audited again.
 */
export async function disableUser(context: UserActionContext, userId: string): Promise<UserInfo> {
  await context.database.transaction(async (transaction) => {
    const row = await lockUserDisabledAt(transaction, userId);
    if (!row) throw notFound();
    if (row.disabled_at !== null) return;
    await markUserDisabled(transaction, { userId, now: context.clock.now() });
    const ended = await deleteSessionsOfUser(transaction, userId);
    await deleteSignInLinksOfUser(transaction, userId);
    await audit(transaction, context, 'user.disabled', userId, { sessionsEnded: ended });
  });
  return (await getUserInfo(context.database, userId)) as UserInfo;
}

/**
 * Changes a user's role; every session of theirs ends at once, so the new role applies from
 * their next sign-in. Audited as `user.role_changed` with the old and new role.
 */
export async function changeUserRole(
  context: UserActionContext,
  userId: string,
  role: Role | string,
): Promise<UserInfo> {
  const next = parseRole(role);
  await context.database.transaction(async (transaction) => {
    const row = await lockUserRole(transaction, userId);
    if (!row) throw notFound();
    if (row.role === next) return;
    await setUserRole(transaction, { userId, role: next });
    await userRoleChanged(transaction, context, userId, { from: row.role, to: next });
  });
  return (await getUserInfo(context.database, userId)) as UserInfo;
}

/**
 * @internal What follows a role change on every surface (`PATCH /api/users/:id` too): the user's
 * sessions end, and the change is audited as `user.role_changed`.
 */
export async function userRoleChanged(
  transaction: Queryable,
  context: Omit<UserActionContext, 'database'>,
  userId: string,
  change: { from?: Role; to: Role },
): Promise<void> {
  const ended = await deleteSessionsOfUser(transaction, userId);
  await recordAuditEntry(
    transaction,
    {
      action: 'user.role_changed',
      actor: context.actor,
      target: { type: 'user', id: userId },
      metadata: {
        ...(change.from ? { from: change.from } : {}),
        to: change.to,
        sessionsEnded: ended,
      },
    },
    context,
  );
}

/** Ends every session of a user at once. Audited as `user.sessions_revoked` with how many. */
export async function revokeUserSessions(
  context: UserActionContext,
  userId: string,
): Promise<{ id: string; sessionsEnded: number }> {
  return context.database.transaction(async (transaction) => {
    if (!(await lockUser(transaction, userId))) throw notFound();
    const ended = await deleteSessionsOfUser(transaction, userId);
    await audit(transaction, context, 'user.sessions_revoked', userId, { sessionsEnded: ended });
    return { id: userId, sessionsEnded: ended };
  });
}
