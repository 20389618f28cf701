import { recordAuditEntry } from '../audit/audit-log.js';
import { FollowUpServerError } from '../errors.js';
import type { AuditActor } from '../stores/audit-store.js';
import {
  insertServiceAccount,
  lockServiceAccountRow,
  markServiceAccountDisabled,
} from '../stores/service-account-store.js';
import { announceTokensChanged, revokeWorkingTokensOfAccount } from '../stores/token-store.js';
import type { AccountStoreContext, DisabledAccount, ServiceAccount } from './account-types.js';
import { type Role, roles } from './role.js';
import { tokensChanged } from './token-cache.js';
import { toServiceAccount } from './token-state.js';

/** @internal Creates a service account; see {@link AccountStore.createAccount}. */
export async function createAccount(
  context: AccountStoreContext,
  options: { name: string; role: Role; actor: AuditActor },
): Promise<ServiceAccount> {
  const { name, role, actor } = options;
  if (!roles.includes(role)) {
    throw new FollowUpServerError({
      code: 'invalid_role',
      message: `role must be one of ${roles.join(', ')}.`,
    });
  }
  const account: ServiceAccount = {
    id: context.newId('sa'),
    name,
    role,
    createdAt: new Date(context.clock.now()).toISOString(),
    disabledAt: null,
  };
  await context.database.transaction(async (transaction) => {
    await insertServiceAccount(transaction, account);
    await recordAuditEntry(
      transaction,
      {
        action: 'service_account.created',
        actor,
        target: { type: 'service_account', id: account.id },
        metadata: { name, role },
      },
      context,
    );
  });
  return account;
}

/** @internal Disables a service account; see {@link AccountStore.disableAccount}. */
export async function disableAccount(
  context: AccountStoreContext,
  options: { accountId: string; actor: AuditActor },
): Promise<DisabledAccount> {
  const { database } = context;
  const { accountId, actor } = options;
  const now = context.clock.now();
  const result = await database.transaction(async (transaction) => {
    const row = await lockServiceAccountRow(transaction, accountId);
    if (!row) {
      throw new FollowUpServerError({
        code: 'account_not_found',
        message: `No service account has the id ${accountId}.`,
      });
    }
    if (row.disabled_at !== null) return { account: toServiceAccount(row), tokensRevoked: 0 };
    const disabled = await markServiceAccountDisabled(transaction, { accountId, now });
    // Every token that still works ends now; expired ones are left as they are.
    const tokensRevoked = await revokeWorkingTokensOfAccount(transaction, { accountId, now });
    await recordAuditEntry(
      transaction,
      {
        action: 'service_account.disabled',
        actor,
        target: { type: 'service_account', id: accountId },
        metadata: { tokensRevoked },
      },
      context,
    );
    await announceTokensChanged(transaction, accountId);
    return { account: toServiceAccount(disabled), tokensRevoked };
  });
  tokensChanged(database);
  return result;
}
