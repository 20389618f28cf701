import type { Database } from '../storage/database.js';
import { findEnabledAdminAccountId } from '../stores/service-account-store.js';
import type { AccountStore } from '../tokens/account-store.js';

/** @internal The name of the demo ADMIN service account of `start --demo`. */
export const DEMO_ACCOUNT_NAME = 'demo';

/**
 * @internal How long the token `start --demo` prints stays valid: one day. A restart prints a
 * new one; a forgotten demo token does not stay an ADMIN credential for ever.
 */
export const DEMO_TOKEN_TTL_SECONDS = 24 * 60 * 60;

/**
 * @internal The demo ADMIN service account of `start --demo` and a new token for it, valid for
 * {@link DEMO_TOKEN_TTL_SECONDS}: the account is created on the first start and the same one on
 * every restart (the oldest enabled ADMIN account named `demo`), so restarts do not pile up
 * ADMIN accounts. Issuing is audited like any other.
 */
export async function demoAccountToken(
  database: Database,
  accounts: AccountStore,
): Promise<{ accountId: string; token: string; expiresAt: string | null }> {
  const accountId =
    (await findEnabledAdminAccountId(database, DEMO_ACCOUNT_NAME)) ??
    (await accounts.createAccount({ name: DEMO_ACCOUNT_NAME, role: 'ADMIN' })).id;
  const issued = await accounts.issueToken({
    accountId,
    ttlSeconds: DEMO_TOKEN_TTL_SECONDS,
    label: 'start --demo',
  });
  return { accountId, token: issued.token, expiresAt: issued.expiresAt };
}
