import { recordAuditEntry } from '../audit/audit-log.js';
import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import type { Database } from '../storage/database.js';
import { createSignInLink } from '../users/sign-in-links.js';
import { signInUrl } from '../users/user-actions.js';

/** @internal The e-mail address of the demo ADMIN user of `start --demo`. */
export const DEMO_USER_EMAIL = 'demo@example.com';

/**
 * @internal The demo ADMIN user of `start --demo`: created once and the same user on every
 * restart, with a new one-time sign-in link each time (audited as `user.sign_in_link_issued`).
 */
export async function demoUserSignInLink(
  database: Database,
  options: { clock: Clock; newId: IdGenerator; publicUrl: string },
): Promise<{ userId: string; email: string; signInUrl: string; expiresAt: string }> {
  return database.transaction(async (transaction) => {
    const now = new Date(options.clock.now());
    const inserted = await transaction.query<{ id: string }>(
      `INSERT INTO users (id, email, name, role, created_at) VALUES ($1, $2, 'Demo admin', 'ADMIN', $3)
       ON CONFLICT ((lower(email))) DO NOTHING RETURNING id`,
      [options.newId('usr'), DEMO_USER_EMAIL, now],
    );
    // Addresses are unique whatever their case: a `DEMO@example.com` made by hand is this user.
    const { rows } = await transaction.query<{ id: string }>(
      'SELECT id FROM users WHERE lower(email) = lower($1)',
      [DEMO_USER_EMAIL],
    );
    const userId = inserted.rows[0]?.id ?? rows[0]?.id;
    if (!userId) throw new Error('The demo user could not be created.');
    // The demo user is an administrator again, even if someone changed or disabled them.
    await transaction.query("UPDATE users SET role = 'ADMIN', disabled_at = NULL WHERE id = $1", [
      userId,
    ]);
    const link = await createSignInLink(transaction, userId, options);
    await recordAuditEntry(
      transaction,
      {
        action: 'user.sign_in_link_issued',
        actor: { type: 'system' },
        target: { type: 'user', id: userId },
        metadata: { reason: 'demo', expiresAt: link.expiresAt },
      },
      options,
    );
    return {
      userId,
      email: DEMO_USER_EMAIL,
      signInUrl: signInUrl(options.publicUrl, link.token),
      expiresAt: link.expiresAt,
    };
  });
}
