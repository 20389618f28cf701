import { randomBytes } from 'node:crypto';
import { type Clock, systemClock } from '../clock.js';
import { FollowUpServerError } from '../errors.js';
import { createIdGenerator, type IdGenerator } from '../ids.js';
import type { Database } from '../storage/database.js';
import type { AuditActor } from '../stores/audit-store.js';
import { findServiceAccountRow, listServiceAccountRows } from '../stores/service-account-store.js';
import { findTokenRow, listTokenRowsOfAccount } from '../stores/token-store.js';
import { createAccount, disableAccount } from './account-changes.js';
import type {
  AccountStoreContext,
  DisabledAccount,
  IssuedToken,
  IssueTokenOptions,
  RolledToken,
  ServiceAccount,
  ServiceAccountSummary,
  TokenInfo,
  TokenVerification,
} from './account-types.js';
import { createLastUsedRecorder } from './last-used-recorder.js';
import type { Role } from './role.js';
import type { TokenCache } from './token-cache.js';
import { issueToken, revokeToken, rollToken } from './token-changes.js';
import { toServiceAccount, toTokenInfo } from './token-state.js';
import { verifyToken } from './token-verification.js';

/** Options of {@link createAccountStore}. */
export interface AccountStoreOptions {
  /** Where accounts, tokens and audit entries live. */
  database: Database;
  /** Decides expiry and timestamps; defaults to the system clock. */
  clock?: Clock;
  /** Makes ids; defaults to a ULID generator on `clock`. */
  newId?: IdGenerator;
  /** Random bytes for secrets; defaults to `crypto.randomBytes`. */
  randomBytes?: (size: number) => Uint8Array;
  /**
   * @internal Where {@link AccountStore.verifyToken} remembers verified tokens (the server's
   * own store has one); without it every verification is a lookup.
   */
  tokenCache?: TokenCache;
}

/** Service accounts and their tokens: issuance, listing, revocation and verification. */
export interface AccountStore {
  /**
   * Creates a service account.
   *
   * @example
   * ```ts
   * const account = await store.createAccount({ name: 'billing-sync', role: 'AGENT' });
   * ```
   */
  createAccount(options: { name: string; role: Role; actor?: AuditActor }): Promise<ServiceAccount>;
  /**
   * Accounts, oldest first, with their number of active tokens: all of them, or `limit` (1 to
   * 1000) after skipping `offset`.
   */
  listAccounts(page?: { limit?: number; offset?: number }): Promise<ServiceAccountSummary[]>;
  /** One account, or `undefined`. */
  getAccount(id: string): Promise<ServiceAccount | undefined>;
  /**
   * Issues a token to an account and records `token.issued` in the audit log. The plaintext is in
   * the result and nowhere else: only the SHA-256 of its secret is stored. An account may hold
   * several active tokens, which is how a token is rotated without downtime.
   *
   * @example
   * ```ts
   * const { token } = await store.issueToken({ accountId: account.id, ttlSeconds: 86_400 });
   * ```
   */
  issueToken(options: IssueTokenOptions): Promise<IssuedToken>;
  /** The tokens of an account, oldest first, with their state; never a secret. */
  listTokens(accountId: string): Promise<TokenInfo[]>;
  /** One token, with its state; never its secret. `undefined` for an unknown id. */
  getToken(tokenId: string): Promise<TokenInfo | undefined>;
  /**
   * Rolls a token: issues a replacement for the same account (with the same label, and the same
   * lifetime if it had a TTL) and makes the old one expire after `graceSeconds` (0 to
   * {@link MAX_ROLL_GRACE_SECONDS}), or at its own expiry if that comes first. Records
   * `token.issued` and `token.rolled`. Only an active token can be rolled (`token_not_active`);
   * an unknown id throws `token_not_found`.
   *
   * @example
   * ```ts
   * const { issued } = await store.rollToken({ tokenId: 'tok_…', graceSeconds: 86_400 });
   * ```
   */
  rollToken(options: {
    tokenId: string;
    graceSeconds: number;
    actor?: AuditActor;
  }): Promise<RolledToken>;
  /**
   * Disables an account: revokes every token of it at once and refuses new ones
   * (`account_disabled`). Records `service_account.disabled`. Disabling a disabled account
   * changes nothing and records nothing. An unknown id throws `account_not_found`.
   */
  disableAccount(options: { accountId: string; actor?: AuditActor }): Promise<DisabledAccount>;
  /**
   * Revokes a token at once and records `token.revoked` in the audit log. Revoking a revoked
   * token changes nothing and records nothing. An unknown id throws `token_not_found`.
   */
  revokeToken(options: { tokenId: string; actor?: AuditActor }): Promise<TokenInfo>;
  /**
   * Checks a token: the account is looked up by the id embedded in it, then the secret's digest
   * is compared in constant time. An unknown account and a wrong secret are both
   * `token_invalid`; `token_expired` and `token_revoked` are only told once the secret matched.
   */
  verifyToken(token: string | undefined): Promise<TokenVerification>;
}

const operator: AuditActor = { type: 'operator' };

/**
 * Creates the store of service accounts and tokens over a migrated database.
 *
 * @example
 * ```ts
 * const store = createAccountStore({ database });
 * const account = await store.createAccount({ name: 'crm-sync', role: 'MANAGER' });
 * const issued = await store.issueToken({ accountId: account.id });
 * const result = await store.verifyToken(issued.token); // { ok: true, account, tokenId }
 * ```
 */
export function createAccountStore(options: AccountStoreOptions): AccountStore {
  const { database } = options;
  const clock = options.clock ?? systemClock;
  const context: AccountStoreContext = {
    database,
    clock,
    newId: options.newId ?? createIdGenerator({ now: () => clock.now() }),
    random: options.randomBytes ?? randomBytes,
  };
  const verification = {
    database,
    clock,
    lastUsed: createLastUsedRecorder(database),
    tokenCache: options.tokenCache,
  };

  return {
    createAccount: ({ name, role, actor = operator }) =>
      createAccount(context, { name, role, actor }),

    async listAccounts(page = {}) {
      const limit = page.limit ?? null;
      const offset = page.offset ?? 0;
      if (
        (limit !== null && !(Number.isInteger(limit) && limit >= 1 && limit <= 1000)) ||
        !(Number.isInteger(offset) && offset >= 0)
      ) {
        throw new FollowUpServerError({
          code: 'invalid_page',
          message: 'limit is 1 to 1000 and offset a whole number.',
        });
      }
      const rows = await listServiceAccountRows(database, { now: clock.now(), limit, offset });
      return rows.map((row) => ({ ...toServiceAccount(row), activeTokens: row.active_tokens }));
    },

    async getAccount(id) {
      const row = await findServiceAccountRow(database, id);
      return row ? toServiceAccount(row) : undefined;
    },

    issueToken: ({ actor = operator, ...rest }) => issueToken(context, { ...rest, actor }),

    async listTokens(accountId) {
      const rows = await listTokenRowsOfAccount(database, accountId);
      const now = clock.now();
      return rows.map((row) => toTokenInfo(row, now));
    },

    async getToken(tokenId) {
      const row = await findTokenRow(database, tokenId);
      return row ? toTokenInfo(row, clock.now()) : undefined;
    },

    revokeToken: ({ tokenId, actor = operator }) => revokeToken(context, { tokenId, actor }),

    rollToken: ({ tokenId, graceSeconds, actor = operator }) =>
      rollToken(context, { tokenId, graceSeconds, actor }),

    disableAccount: ({ accountId, actor = operator }) =>
      disableAccount(context, { accountId, actor }),

    verifyToken: (token) => verifyToken(verification, token),
  };
}
