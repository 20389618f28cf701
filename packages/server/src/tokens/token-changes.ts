import { recordAuditEntry } from '../audit/audit-log.js';
import { FollowUpServerError } from '../errors.js';
import type { Queryable } from '../storage/database.js';
import type { AuditActor } from '../stores/audit-store.js';
import { lockServiceAccountState } from '../stores/service-account-store.js';
import {
  announceTokensChanged,
  findTokenRow,
  insertTokenRow,
  lockTokenRow,
  markTokenReplaced,
  revokeTokenRow,
} from '../stores/token-store.js';
import type { AccountStoreContext, IssuedToken, RolledToken, TokenInfo } from './account-types.js';
import { tokensChanged } from './token-cache.js';
import { formatToken, generateSecret, hashSecret } from './token-format.js';
import { checkTokenLabel } from './token-label.js';
import { MAX_ROLL_GRACE_SECONDS, MAX_TOKEN_TTL_SECONDS } from './token-limits.js';
import { tokenStateOf, toTokenInfo } from './token-state.js';

/** @internal What a token is issued with, already checked. */
interface TokenToIssue {
  accountId: string;
  ttlSeconds: number | undefined;
  label: string | null;
  actor: AuditActor;
  now: number;
}

/**
 * Inserts a token for an enabled account in `transaction` and records `token.issued`: the one
 * way a token comes to exist, for an issue and for the replacement of a roll.
 */
async function insertToken(
  transaction: Queryable,
  context: AccountStoreContext & { input: TokenToIssue },
): Promise<IssuedToken> {
  const { input } = context;
  const id = context.newId('tok');
  const secret = generateSecret(context.random);
  const expiresAt =
    input.ttlSeconds === undefined
      ? null
      : new Date(input.now + input.ttlSeconds * 1000).toISOString();
  const account = await lockServiceAccountState(transaction, input.accountId);
  if (!account) {
    throw new FollowUpServerError({
      code: 'account_not_found',
      message: `No service account has the id ${input.accountId}.`,
    });
  }
  if (account.disabled_at !== null) {
    throw new FollowUpServerError({
      code: 'account_disabled',
      message: `The service account ${input.accountId} is disabled: it gets no new tokens.`,
    });
  }
  await insertTokenRow(transaction, {
    id,
    accountId: input.accountId,
    label: input.label,
    secretSha256: hashSecret(secret),
    createdAt: input.now,
    expiresAt,
  });
  await recordAuditEntry(
    transaction,
    {
      action: 'token.issued',
      actor: input.actor,
      target: { type: 'token', id },
      metadata: {
        accountId: input.accountId,
        expiresAt,
        ...(input.label === null ? {} : { label: input.label }),
      },
    },
    context,
  );
  return { id, token: formatToken(input.accountId, secret), expiresAt, label: input.label };
}

/** @internal Issues a token; see {@link AccountStore.issueToken}. */
export async function issueToken(
  context: AccountStoreContext,
  options: { accountId: string; ttlSeconds?: number; label?: string; actor: AuditActor },
): Promise<IssuedToken> {
  const { accountId, ttlSeconds, label, actor } = options;
  if (
    ttlSeconds !== undefined &&
    !(Number.isSafeInteger(ttlSeconds) && ttlSeconds > 0 && ttlSeconds <= MAX_TOKEN_TTL_SECONDS)
  ) {
    throw new FollowUpServerError({
      code: 'invalid_ttl',
      message: `ttlSeconds must be a whole number of seconds from 1 to ${MAX_TOKEN_TTL_SECONDS} (ten years).`,
    });
  }
  const checkedLabel = label === undefined ? null : checkTokenLabel(label);
  const now = context.clock.now();
  return context.database.transaction((transaction) =>
    insertToken(transaction, {
      ...context,
      input: { accountId, ttlSeconds, label: checkedLabel, actor, now },
    }),
  );
}

/** @internal Revokes a token; see {@link AccountStore.revokeToken}. */
export async function revokeToken(
  context: AccountStoreContext,
  options: { tokenId: string; actor: AuditActor },
): Promise<TokenInfo> {
  const { database } = context;
  const { tokenId, actor } = options;
  const now = context.clock.now();
  const result = await database.transaction(async (transaction) => {
    const row = await revokeTokenRow(transaction, { tokenId, now });
    if (row) {
      await recordAuditEntry(
        transaction,
        {
          action: 'token.revoked',
          actor,
          target: { type: 'token', id: tokenId },
          metadata: { accountId: row.account_id },
        },
        context,
      );
      await announceTokensChanged(transaction, tokenId);
      return toTokenInfo(row, now);
    }
    const existing = await findTokenRow(transaction, tokenId);
    if (!existing) {
      throw new FollowUpServerError({
        code: 'token_not_found',
        message: `No token has the id ${tokenId}.`,
      });
    }
    return toTokenInfo(existing, now);
  });
  tokensChanged(database);
  return result;
}

/** @internal Rolls a token; see {@link AccountStore.rollToken}. */
export async function rollToken(
  context: AccountStoreContext,
  options: { tokenId: string; graceSeconds: number; actor: AuditActor },
): Promise<RolledToken> {
  const { database } = context;
  const { tokenId, graceSeconds, actor } = options;
  if (
    !Number.isSafeInteger(graceSeconds) ||
    graceSeconds < 0 ||
    graceSeconds > MAX_ROLL_GRACE_SECONDS
  ) {
    throw new FollowUpServerError({
      code: 'invalid_grace',
      message: `The grace period is a whole number of seconds from 0 to ${MAX_ROLL_GRACE_SECONDS} (30 days).`,
    });
  }
  const now = context.clock.now();
  const result = await database.transaction(async (transaction) => {
    const row = await lockTokenRow(transaction, tokenId);
    if (!row) {
      throw new FollowUpServerError({
        code: 'token_not_found',
        message: `No token has the id ${tokenId}.`,
      });
    }
    if (tokenStateOf(row, now) !== 'active') {
      throw new FollowUpServerError({
        code: 'token_not_active',
        message: `The token ${tokenId} is ${tokenStateOf(row, now)}: only an active token can be rolled.`,
      });
    }
    const lifetime =
      row.expires_at === null
        ? undefined
        : Math.max(1, Math.round((Date.parse(row.expires_at) - Date.parse(row.created_at)) / 1000));
    const issued = await insertToken(transaction, {
      ...context,
      input: { accountId: row.account_id, ttlSeconds: lifetime, label: row.label, actor, now },
    });
    const graceEnd = now + graceSeconds * 1000;
    const expiresAt =
      row.expires_at !== null && Date.parse(row.expires_at) < graceEnd
        ? row.expires_at
        : new Date(graceEnd).toISOString();
    const updated = await markTokenReplaced(transaction, {
      tokenId,
      expiresAt,
      replacedBy: issued.id,
    });
    await recordAuditEntry(
      transaction,
      {
        action: 'token.rolled',
        actor,
        target: { type: 'token', id: tokenId },
        metadata: { accountId: row.account_id, replacedBy: issued.id, graceSeconds, expiresAt },
      },
      context,
    );
    await announceTokensChanged(transaction, tokenId);
    return { issued, previous: toTokenInfo(updated, now) };
  });
  tokensChanged(database);
  return result;
}
