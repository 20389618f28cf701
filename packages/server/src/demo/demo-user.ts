import { recordAuditEntry } from '../audit/audit-log.js';
import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import type { Database } from '../storage/database.js';
import { upsertDemoAdmin } from '../stores/user-store.js';
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
    const userId = await upsertDemoAdmin(transaction, {
      id: options.newId('usr'),
      email: DEMO_USER_EMAIL,
      now,
    });
    if (!userId) throw new Error('The demo user could not be created.');
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
