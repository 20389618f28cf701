import { randomBytes, timingSafeEqual } from 'node:crypto';
import { type AuditActor, recordAuditEntry } from '../audit/audit-log.js';
import { type Clock, systemClock } from '../clock.js';
import { FollowUpServerError } from '../errors.js';
import { createIdGenerator, type IdGenerator } from '../ids.js';
import type { Database } from '../storage/database.js';
import { formatToken, generateSecret, hashSecret, parseToken } from './token-format.js';

/** The role of a service account; it fixes the account's capabilities. */
export type Role = 'ADMIN' | 'MANAGER' | 'AGENT' | 'READONLY';

/** Every role, most powerful first. */
export const roles: readonly Role[] = ['ADMIN', 'MANAGER', 'AGENT', 'READONLY'];

/** A non-human caller of the API. */
export interface ServiceAccount {
  /** `sa_…`, embedded in each of its tokens. */
  id: string;
  /** A name for people. */
  name: string;
  /** Fixes what its tokens may do. */
  role: Role;
  /** ISO 8601 UTC. */
  createdAt: string;
}

/** Where a token is in its life. */
export type TokenState = 'active' | 'expired' | 'revoked';

/** What is known of a token after its issuance: never its secret. */
export interface TokenInfo {
  /** `tok_…` */
  id: string;
  /** The service account it belongs to. */
  accountId: string;
  /** Its state now, by the store's clock. */
  state: TokenState;
  /** ISO 8601 UTC. */
  createdAt: string;
  /** When it stops working, or `null` for a token without a TTL. */
  expiresAt: string | null;
  /** When it was revoked, or `null`. */
  revokedAt: string | null;
}

/** A token just issued: the only time its plaintext exists. */
export interface IssuedToken {
  /** `tok_…`, the handle to list and revoke it by. */
  id: string;
  /** `hns_<accountId>.<secret>`: show it once, it cannot be read again. */
  token: string;
  /** When it stops working, or `null` for a token without a TTL. */
  expiresAt: string | null;
}

/** Why a token was refused. */
export type TokenFailureCode =
  | 'token_missing'
  | 'token_invalid'
  | 'token_expired'
  | 'token_revoked';

/** A token that {@link AccountStore.verifyToken} accepted. */
export interface TokenAccepted {
  /** Accepted. */
  ok: true;
  /** The service account the token belongs to. */
  account: ServiceAccount;
  /** The token's `tok_…` id (for rate limits and logs; never its secret). */
  tokenId: string;
}

/** A token that {@link AccountStore.verifyToken} refused. */
export interface TokenRefused {
  /** Refused. */
  ok: false;
  /** Why; each is a 401, never a 403. */
  code: TokenFailureCode;
}

/** What {@link AccountStore.verifyToken} found. */
export type TokenVerification = TokenAccepted | TokenRefused;

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
}

/** Options of {@link AccountStore.issueToken}. */
export interface IssueTokenOptions {
  /** The service account to issue it to. */
  accountId: string;
  /** Seconds until it expires; omit it for a token that lives until revoked. */
  ttlSeconds?: number;
  /** Who issues it, for the audit log; defaults to an operator. */
  actor?: AuditActor;
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
  /** Every account, oldest first. */
  listAccounts(): Promise<ServiceAccount[]>;
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

interface AccountRow {
  id: string;
  name: string;
  role: Role;
  created_at: Date;
}

interface TokenRow {
  id: string;
  account_id: string;
  secret_sha256: Buffer;
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
}

const operator: AuditActor = { type: 'operator' };
// Compared against when the account does not exist, so that both refusals cost the same work.
const decoyDigest = Buffer.alloc(32);

function toAccount(row: AccountRow): ServiceAccount {
  return { id: row.id, name: row.name, role: row.role, createdAt: row.created_at.toISOString() };
}

function stateOf(row: TokenRow, now: number): TokenState {
  if (row.revoked_at !== null) return 'revoked';
  if (row.expires_at !== null && row.expires_at.getTime() <= now) return 'expired';
  return 'active';
}

function toTokenInfo(row: TokenRow, now: number): TokenInfo {
  return {
    id: row.id,
    accountId: row.account_id,
    state: stateOf(row, now),
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at?.toISOString() ?? null,
    revokedAt: row.revoked_at?.toISOString() ?? null,
  };
}

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
  const newId = options.newId ?? createIdGenerator({ now: () => clock.now() });
  const random = options.randomBytes ?? randomBytes;
  const audit = { clock, newId };

  return {
    async createAccount({ name, role, actor = operator }) {
      if (!roles.includes(role)) {
        throw new FollowUpServerError({
          code: 'invalid_role',
          message: `role must be one of ${roles.join(', ')}.`,
        });
      }
      const account: ServiceAccount = {
        id: newId('sa'),
        name,
        role,
        createdAt: new Date(clock.now()).toISOString(),
      };
      await database.transaction(async (transaction) => {
        await transaction.query(
          'INSERT INTO service_accounts (id, name, role, created_at) VALUES ($1, $2, $3, $4)',
          [account.id, name, role, account.createdAt],
        );
        await recordAuditEntry(
          transaction,
          {
            action: 'service_account.created',
            actor,
            target: { type: 'service_account', id: account.id },
            metadata: { name, role },
          },
          audit,
        );
      });
      return account;
    },

    async listAccounts() {
      const { rows } = await database.query<AccountRow>(
        'SELECT id, name, role, created_at FROM service_accounts ORDER BY created_at, id',
      );
      return rows.map(toAccount);
    },

    async getAccount(id) {
      const { rows } = await database.query<AccountRow>(
        'SELECT id, name, role, created_at FROM service_accounts WHERE id = $1',
        [id],
      );
      return rows[0] ? toAccount(rows[0]) : undefined;
    },

    async issueToken({ accountId, ttlSeconds, actor = operator }) {
      if (ttlSeconds !== undefined && !(Number.isSafeInteger(ttlSeconds) && ttlSeconds > 0)) {
        throw new FollowUpServerError({
          code: 'invalid_ttl',
          message: 'ttlSeconds must be a positive whole number of seconds.',
        });
      }
      const now = clock.now();
      const id = newId('tok');
      const secret = generateSecret(random);
      const expiresAt =
        ttlSeconds === undefined ? null : new Date(now + ttlSeconds * 1000).toISOString();
      await database.transaction(async (transaction) => {
        const { rowCount } = await transaction.query(
          `INSERT INTO tokens (id, account_id, secret_sha256, created_at, expires_at)
           SELECT $1, id, $3, $4, $5 FROM service_accounts WHERE id = $2`,
          [id, accountId, hashSecret(secret), new Date(now), expiresAt],
        );
        if (rowCount === 0) {
          throw new FollowUpServerError({
            code: 'account_not_found',
            message: `No service account has the id ${accountId}.`,
          });
        }
        await recordAuditEntry(
          transaction,
          {
            action: 'token.issued',
            actor,
            target: { type: 'token', id },
            metadata: { accountId, expiresAt },
          },
          audit,
        );
      });
      return { id, token: formatToken(accountId, secret), expiresAt };
    },

    async listTokens(accountId) {
      const { rows } = await database.query<TokenRow>(
        `SELECT id, account_id, secret_sha256, created_at, expires_at, revoked_at
           FROM tokens WHERE account_id = $1 ORDER BY created_at, id`,
        [accountId],
      );
      const now = clock.now();
      return rows.map((row) => toTokenInfo(row, now));
    },

    async revokeToken({ tokenId, actor = operator }) {
      const now = clock.now();
      return database.transaction(async (transaction) => {
        const revoked = await transaction.query<TokenRow>(
          `UPDATE tokens SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL
           RETURNING id, account_id, secret_sha256, created_at, expires_at, revoked_at`,
          [tokenId, new Date(now)],
        );
        const row = revoked.rows[0];
        if (row) {
          await recordAuditEntry(
            transaction,
            {
              action: 'token.revoked',
              actor,
              target: { type: 'token', id: tokenId },
              metadata: { accountId: row.account_id },
            },
            audit,
          );
          return toTokenInfo(row, now);
        }
        const existing = await transaction.query<TokenRow>(
          `SELECT id, account_id, secret_sha256, created_at, expires_at, revoked_at
             FROM tokens WHERE id = $1`,
          [tokenId],
        );
        if (!existing.rows[0]) {
          throw new FollowUpServerError({
            code: 'token_not_found',
            message: `No token has the id ${tokenId}.`,
          });
        }
        return toTokenInfo(existing.rows[0], now);
      });
    },

    async verifyToken(token) {
      if (token === undefined || token === '') return { ok: false, code: 'token_missing' };
      const parsed = parseToken(token);
      if (!parsed) return { ok: false, code: 'token_invalid' };
      const digest = hashSecret(parsed.secret);
      const { rows } = await database.query<
        TokenRow & { name: string; role: Role; account_created_at: Date }
      >(
        `SELECT t.id, t.account_id, t.secret_sha256, t.created_at, t.expires_at, t.revoked_at,
                a.name, a.role, a.created_at AS account_created_at
           FROM service_accounts a JOIN tokens t ON t.account_id = a.id
          WHERE a.id = $1`,
        [parsed.accountId],
      );
      // Compare against every token of the account (or a decoy), never stopping early.
      let match: (typeof rows)[number] | undefined;
      for (const row of rows.length > 0 ? rows : [undefined]) {
        const stored = row?.secret_sha256 ?? decoyDigest;
        const equal = stored.length === digest.length && timingSafeEqual(stored, digest);
        if (equal && row) match = row;
      }
      if (!match) return { ok: false, code: 'token_invalid' };
      const state = stateOf(match, clock.now());
      if (state !== 'active') return { ok: false, code: `token_${state}` };
      return {
        ok: true,
        tokenId: match.id,
        account: toAccount({
          id: match.account_id,
          name: match.name,
          role: match.role,
          created_at: match.account_created_at,
        }),
      };
    },
  };
}
