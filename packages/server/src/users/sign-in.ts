import { recordAuditEntry } from '../audit/audit-log.js';
import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import type { Database } from '../storage/database.js';
import { findUserForPasswordSignIn, setUserPasswordHash } from '../stores/user-store.js';
import { hashPassword, passwordProblem, verifyPassword } from './passwords.js';
import type { SessionStore, StartedSession } from './sessions.js';
import { findUsableSignInLink } from './sign-in-links.js';
import { type SignInThrottle, signInKeys } from './sign-in-throttle.js';

/** @internal What signing in and out needs. */
export interface SignInContext {
  database: Database;
  clock: Clock;
  newId: IdGenerator;
  sessions: SessionStore;
  throttle: SignInThrottle;
}

/** @internal The outcome of a sign-in attempt. */
export type SignInResult =
  | { ok: true; userId: string; session: StartedSession }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'throttled'; retryAfterSeconds: number };

const maxEmailLength = 320;

/**
 * @internal Signs in with e-mail and password. A wrong e-mail and a wrong password answer the
 * same `invalid` after the same work (an unknown e-mail is checked against a decoy hash). Every
 * failure counts against the account (every spelling of the address that finds one user counts
 * as that one account) and the client address; once either is over its limit, every attempt is
 * `throttled` (even with the right password) until the window ends. Audited: `user.signed_in`,
 * `user.sign_in_failed` (target the user, or the e-mail when no user has it) and
 * `sign_in.throttled` when a burst of failures reaches a limit.
 */
export async function signInWithPassword(
  context: SignInContext,
  attempt: { email: string; password: string; address: string },
): Promise<SignInResult> {
  const { database, throttle } = context;
  const email = attempt.email.trim().slice(0, maxEmailLength);
  // The account's key is the address as this lookup compares it (the database's lower(), whose
  // folding depends on its locale and differs from JavaScript's), from the same statement: every
  // spelling that finds a user has the user's key, so none gets a limit of its own.
  const found = await findUserForPasswordSignIn(database, email);
  const lowerEmail = found?.lower_email ?? email;
  const user = found?.id ? { id: found.id, password_hash: found.password_hash } : undefined;
  const keys = signInKeys(lowerEmail, attempt.address);
  // Counted before the password is checked: a burst of concurrent attempts is checked at most
  // as often as the limit allows, then every attempt is throttled.
  const wait = await throttle.reserve(database, keys);
  if (wait > 0) return { ok: false, reason: 'throttled', retryAfterSeconds: wait };

  const acceptable = passwordProblem(attempt.password) === undefined;
  const matches =
    (await verifyPassword(acceptable ? user?.password_hash : undefined, attempt.password)) &&
    acceptable &&
    user !== undefined;

  if (!matches || !user) {
    await database.transaction(async (transaction) => {
      const bursts = await throttle.reportBursts(transaction, keys);
      // Audited whether or not the e-mail is a user's: the same work either way, so the time
      // taken does not tell (the target says which, for the administrators who read the log).
      await recordAuditEntry(
        transaction,
        {
          action: 'user.sign_in_failed',
          actor: { type: 'system' },
          target: user ? { type: 'user', id: user.id } : { type: 'email', id: lowerEmail },
          metadata: { address: attempt.address },
        },
        context,
      );
      for (const burst of bursts) {
        await recordAuditEntry(
          transaction,
          {
            action: 'sign_in.throttled',
            actor: { type: 'system' },
            target: {
              type: burst.kind === 'account' ? 'email' : 'client_address',
              id: burst.key,
            },
            metadata: { failures: burst.failures, windowSeconds: throttle.policy.windowMs / 1000 },
          },
          context,
        );
      }
    });
    return { ok: false, reason: 'invalid' };
  }

  const session = await database.transaction(async (transaction) => {
    await throttle.release(transaction, keys);
    const started = await context.sessions.start(transaction, user.id);
    await recordAuditEntry(
      transaction,
      {
        action: 'user.signed_in',
        actor: { type: 'user', id: user.id },
        target: { type: 'user', id: user.id },
        metadata: { method: 'password', address: attempt.address },
      },
      context,
    );
    return started;
  });
  return { ok: true, userId: user.id, session };
}

/** @internal The outcome of choosing a password with a sign-in link. */
export type SetPasswordResult =
  | { ok: true; userId: string; session: StartedSession }
  | { ok: false; reason: 'link_unusable' }
  | { ok: false; reason: 'password_invalid'; message: string };

/**
 * @internal Uses a one-time sign-in link: sets the user's password (argon2id) and signs them in.
 * The link is used up in the same transaction; a used, expired or unknown link changes nothing.
 * Audited as `user.password_set` and `user.signed_in`.
 */
export async function setPasswordWithLink(
  context: SignInContext,
  input: { token: string; password: string; confirmation: string; address: string },
): Promise<SetPasswordResult> {
  const problem = passwordProblem(input.password);
  if (problem) return { ok: false, reason: 'password_invalid', message: problem };
  if (input.password !== input.confirmation) {
    return { ok: false, reason: 'password_invalid', message: 'The two passwords differ.' };
  }
  // A link that cannot be used costs a lookup, never a hash: guessing links must stay cheap for
  // us. Then hash before the transaction: argon2 takes tens of milliseconds, no lock waits on it.
  if (!(await findUsableSignInLink(context.database, input.token, context.clock))) {
    return { ok: false, reason: 'link_unusable' };
  }
  const passwordHash = await hashPassword(input.password);
  return context.database.transaction(async (transaction) => {
    const link = await findUsableSignInLink(transaction, input.token, context.clock, {
      consume: true,
    });
    if (!link) return { ok: false, reason: 'link_unusable' } as const;
    await setUserPasswordHash(transaction, { userId: link.userId, passwordHash });
    const session = await context.sessions.start(transaction, link.userId);
    const actor = { type: 'user', id: link.userId } as const;
    const target = { type: 'user', id: link.userId };
    await recordAuditEntry(
      transaction,
      { action: 'user.password_set', actor, target, metadata: { linkId: link.linkId } },
      context,
    );
    await recordAuditEntry(
      transaction,
      {
        action: 'user.signed_in',
        actor,
        target,
        metadata: { method: 'sign_in_link', address: input.address },
      },
      context,
    );
    return { ok: true, userId: link.userId, session } as const;
  });
}

/** @internal Signs out: deletes the session server-side. Audited as `user.signed_out`. */
export async function signOut(
  context: SignInContext,
  cookieValue: string | undefined,
): Promise<boolean> {
  return context.database.transaction(async (transaction) => {
    const ended = await context.sessions.end(transaction, cookieValue);
    if (!ended) return false;
    await recordAuditEntry(
      transaction,
      {
        action: 'user.signed_out',
        actor: { type: 'user', id: ended.userId },
        target: { type: 'user', id: ended.userId },
        metadata: { sessionId: ended.id },
      },
      context,
    );
    return true;
  });
}
