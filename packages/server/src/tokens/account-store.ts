import { randomBytes, timingSafeEqual } from 'node:crypto';
import { type ProblemCode, ROLE_VALUES, type Role as WireRole } from '@followup/sdk';
import { type AuditActor, recordAuditEntry } from '../audit/audit-log.js';
import { type Clock, systemClock } from '../clock.js';
import { FollowUpServerError } from '../errors.js';
import { createIdGenerator, type IdGenerator } from '../ids.js';
import type { Database, Queryable } from '../storage/database.js';
import { TOKEN_REVOKED_CHANNEL, type TokenCache, tokensChanged } from './token-cache.js';
import { formatToken, generateSecret, hashSecret, parseToken } from './token-format.js';

/** The role of a service account; it fixes the account's capabilities (the SDK's `Role`). */
export type Role = WireRole;

/** Every role, most powerful first: the SDK's `ROLE_VALUES`, the wire contract's list. */
export const roles: readonly Role[] = ROLE_VALUES;

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
  /** When the account was disabled (every token revoked, none issued since), or `null`. */
  disabledAt: string | null;
}

/** A service account as lists show it: with the number of its tokens that work now. */
export interface ServiceAccountSummary extends ServiceAccount {
  /** Tokens neither revoked nor expired, by the store's clock. */
  activeTokens: number;
}

/** Where a token is in its life. */
export type TokenState = 'active' | 'expired' | 'revoked';

/** What is known of a token after its issuance: never its secret. */
export interface TokenInfo {
  /** `tok_…` */
  id: string;
  /** The service account it belongs to. */
  accountId: string;
  /** What it is for, as given at issuance, or `null`. */
  label: string | null;
  /** Its state now, by the store's clock. */
  state: TokenState;
  /** ISO 8601 UTC. */
  createdAt: string;
  /** When it stops working, or `null` for a token without a TTL. */
  expiresAt: string | null;
  /** When it was revoked, or `null`. */
  revokedAt: string | null;
  /**
   * When a request last authenticated with it, to the minute (written at most once a minute per
   * token, not on every request), or `null` if it was never used.
   */
  lastUsedAt: string | null;
  /** The `tok_…` id of the token that replaced it in a roll, or `null`. */
  replacedBy: string | null;
}

/** A token just issued: the only time its plaintext exists. */
export interface IssuedToken {
  /** `tok_…`, the handle to list and revoke it by. */
  id: string;
  /** `hns_<accountId>.<secret>`: show it once, it cannot be read again. */
  token: string;
  /** When it stops working, or `null` for a token without a TTL. */
  expiresAt: string | null;
  /** Its label, or `null`. */
  label: string | null;
}

/** What {@link AccountStore.rollToken} did. */
export interface RolledToken {
  /** The replacement, with its plaintext: the only time it exists. */
  issued: IssuedToken;
  /** The token rolled, now expiring at the end of the grace period. */
  previous: TokenInfo;
}

/** What {@link AccountStore.disableAccount} did. */
export interface DisabledAccount {
  /** The account, with its `disabledAt`. */
  account: ServiceAccount;
  /** How many tokens that still worked were revoked by it. */
  tokensRevoked: number;
}

/** The longest label of a token, in characters. */
export const MAX_TOKEN_LABEL_LENGTH = 100;

/** The longest grace period of {@link AccountStore.rollToken}: 30 days, in seconds. */
export const MAX_ROLL_GRACE_SECONDS = 30 * 86_400;

/** How often, at most, a token's `lastUsedAt` is written: once a minute. */
export const LAST_USED_RESOLUTION_MS = 60_000;

/** Why a token was refused: one of the SDK's `PROBLEM_CODES` the bearer routes answer 401 with. */
export type TokenFailureCode = Extract<
  ProblemCode,
  'token_missing' | 'token_invalid' | 'token_expired' | 'token_revoked'
>;

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
  /**
   * @internal Where {@link AccountStore.verifyToken} remembers verified tokens (the server's
   * own store has one); without it every verification is a lookup.
   */
  tokenCache?: TokenCache;
}

/** Options of {@link AccountStore.issueToken}. */
export interface IssueTokenOptions {
  /** The service account to issue it to. */
  accountId: string;
  /** Seconds until it expires; omit it for a token that lives until revoked. */
  ttlSeconds?: number;
  /**
   * What it is for (`ci deploy`, `billing sync`), 1 to {@link MAX_TOKEN_LABEL_LENGTH} printable
   * characters; shown in lists beside its id.
   */
  label?: string;
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

interface AccountRow {
  id: string;
  name: string;
  role: Role;
  created_at: string;
  disabled_at: string | null;
}

interface TokenRow {
  id: string;
  account_id: string;
  label: string | null;
  secret_sha256: Buffer;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  replaced_by: string | null;
}

const accountColumns = 'id, name, role, created_at, disabled_at';
const tokenColumns =
  'id, account_id, label, secret_sha256, created_at, expires_at, revoked_at, last_used_at, replaced_by';

const operator: AuditActor = { type: 'operator' };
// Compared against when the account does not exist, so that both refusals cost the same work.
const decoyDigest = Buffer.alloc(32);

function toAccount(row: AccountRow): ServiceAccount {
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    createdAt: row.created_at,
    disabledAt: row.disabled_at,
  };
}

/**
 * @internal Checks a token label: 1 to {@link MAX_TOKEN_LABEL_LENGTH} characters, none of them a
 * control character, a lone surrogate or a line or paragraph separator. Throws `invalid_label`.
 */
export function checkTokenLabel(label: string): string {
  const printable = /^[^\p{Cc}\p{Cs}\u2028\u2029]+$/u;
  if (
    typeof label !== 'string' ||
    label.trim() === '' ||
    [...label].length > MAX_TOKEN_LABEL_LENGTH ||
    !label.isWellFormed() ||
    !printable.test(label)
  ) {
    throw new FollowUpServerError({
      code: 'invalid_label',
      message: `A token label is 1 to ${MAX_TOKEN_LABEL_LENGTH} printable characters.`,
    });
  }
  return label;
}

function stateOf(row: TokenRow, now: number): TokenState {
  if (row.revoked_at !== null) return 'revoked';
  if (row.expires_at !== null && Date.parse(row.expires_at) <= now) return 'expired';
  return 'active';
}

function toTokenInfo(row: TokenRow, now: number): TokenInfo {
  return {
    id: row.id,
    accountId: row.account_id,
    label: row.label,
    state: stateOf(row, now),
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
    replacedBy: row.replaced_by,
  };
}

/**
 * The longest lifetime a token can be issued with: ten years, in seconds. A longer `--ttl` is
 * refused; a token meant never to expire is issued without one.
 */
export const MAX_TOKEN_TTL_SECONDS = 10 * 365 * 24 * 60 * 60;

/**
 * @internal Announces a change to tokens or accounts that may end a token's validity (a
 * revocation, a roll, a disabled account): `token_revoked` is notified in the change's
 * transaction, so every PostgreSQL instance forgets its verified tokens at the commit. The
 * payload is `<schema>:<subject>`: the instances of another schema in the same database (another
 * deployment, or another test file) let it pass. Call {@link tokensChanged} once the transaction
 * committed, for the caches of this process.
 */
async function announceTokensChanged(transaction: Queryable, subject: string): Promise<void> {
  await transaction.query(`SELECT pg_notify($1, current_schema() || ':' || $2)`, [
    TOKEN_REVOKED_CHANNEL,
    subject,
  ]);
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
  const { tokenCache } = options;
  // When this process last wrote each token's last_used_at, so that a busy token costs one
  // write a minute, not one per request (the row's own value covers other processes).
  const lastUsedWritten = new Map<string, number>();

  async function insertToken(
    transaction: Queryable,
    input: {
      accountId: string;
      ttlSeconds: number | undefined;
      label: string | null;
      actor: AuditActor;
      now: number;
    },
  ): Promise<IssuedToken> {
    const id = newId('tok');
    const secret = generateSecret(random);
    const expiresAt =
      input.ttlSeconds === undefined
        ? null
        : new Date(input.now + input.ttlSeconds * 1000).toISOString();
    const { rows } = await transaction.query<{ disabled_at: string | null }>(
      'SELECT disabled_at FROM service_accounts WHERE id = $1 FOR UPDATE',
      [input.accountId],
    );
    const account = rows[0];
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
    await transaction.query(
      `INSERT INTO tokens (id, account_id, label, secret_sha256, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [id, input.accountId, input.label, hashSecret(secret), new Date(input.now), expiresAt],
    );
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
      audit,
    );
    return { id, token: formatToken(input.accountId, secret), expiresAt, label: input.label };
  }

  async function noteUse(row: TokenRow, now: number): Promise<void> {
    const stored = row.last_used_at === null ? 0 : Date.parse(row.last_used_at);
    await noteUseOf(row.id, stored, now);
  }

  async function noteUseOf(tokenId: string, stored: number, now: number): Promise<void> {
    const written = Math.max(stored, lastUsedWritten.get(tokenId) ?? 0);
    if (now - written < LAST_USED_RESOLUTION_MS) return;
    if (lastUsedWritten.size >= 10_000) lastUsedWritten.clear();
    lastUsedWritten.set(tokenId, now);
    // Conditional, so that instances racing at the minute's turn write one value between them.
    await database.query(
      `UPDATE tokens SET last_used_at = $2
        WHERE id = $1 AND (last_used_at IS NULL OR last_used_at <= $3)`,
      [tokenId, new Date(now), new Date(now - LAST_USED_RESOLUTION_MS)],
    );
  }

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
        disabledAt: null,
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
      const { rows } = await database.query<AccountRow & { active_tokens: number }>(
        `SELECT a.id, a.name, a.role, a.created_at, a.disabled_at,
                (SELECT count(*)::int FROM tokens t
                  WHERE t.account_id = a.id AND t.revoked_at IS NULL
                    AND (t.expires_at IS NULL OR t.expires_at > $1)) AS active_tokens
           FROM service_accounts a ORDER BY a.created_at, a.id LIMIT $2 OFFSET $3`,
        [new Date(clock.now()), limit, offset],
      );
      return rows.map((row) => ({ ...toAccount(row), activeTokens: row.active_tokens }));
    },

    async getAccount(id) {
      const { rows } = await database.query<AccountRow>(
        `SELECT ${accountColumns} FROM service_accounts WHERE id = $1`,
        [id],
      );
      return rows[0] ? toAccount(rows[0]) : undefined;
    },

    async issueToken({ accountId, ttlSeconds, label, actor = operator }) {
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
      const now = clock.now();
      return database.transaction((transaction) =>
        insertToken(transaction, { accountId, ttlSeconds, label: checkedLabel, actor, now }),
      );
    },

    async listTokens(accountId) {
      const { rows } = await database.query<TokenRow>(
        `SELECT ${tokenColumns} FROM tokens WHERE account_id = $1 ORDER BY created_at, id`,
        [accountId],
      );
      const now = clock.now();
      return rows.map((row) => toTokenInfo(row, now));
    },

    async getToken(tokenId) {
      const { rows } = await database.query<TokenRow>(
        `SELECT ${tokenColumns} FROM tokens WHERE id = $1`,
        [tokenId],
      );
      return rows[0] ? toTokenInfo(rows[0], clock.now()) : undefined;
    },

    async revokeToken({ tokenId, actor = operator }) {
      const now = clock.now();
      const result = await database.transaction(async (transaction) => {
        const revoked = await transaction.query<TokenRow>(
          `UPDATE tokens SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL
           RETURNING ${tokenColumns}`,
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
          await announceTokensChanged(transaction, tokenId);
          return toTokenInfo(row, now);
        }
        const existing = await transaction.query<TokenRow>(
          `SELECT ${tokenColumns} FROM tokens WHERE id = $1`,
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
      tokensChanged(database);
      return result;
    },

    async rollToken({ tokenId, graceSeconds, actor = operator }) {
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
      const now = clock.now();
      const result = await database.transaction(async (transaction) => {
        const { rows } = await transaction.query<TokenRow>(
          `SELECT ${tokenColumns} FROM tokens WHERE id = $1 FOR UPDATE`,
          [tokenId],
        );
        const row = rows[0];
        if (!row) {
          throw new FollowUpServerError({
            code: 'token_not_found',
            message: `No token has the id ${tokenId}.`,
          });
        }
        if (stateOf(row, now) !== 'active') {
          throw new FollowUpServerError({
            code: 'token_not_active',
            message: `The token ${tokenId} is ${stateOf(row, now)}: only an active token can be rolled.`,
          });
        }
        const lifetime =
          row.expires_at === null
            ? undefined
            : Math.max(
                1,
                Math.round((Date.parse(row.expires_at) - Date.parse(row.created_at)) / 1000),
              );
        const issued = await insertToken(transaction, {
          accountId: row.account_id,
          ttlSeconds: lifetime,
          label: row.label,
          actor,
          now,
        });
        const graceEnd = now + graceSeconds * 1000;
        const expiresAt =
          row.expires_at !== null && Date.parse(row.expires_at) < graceEnd
            ? row.expires_at
            : new Date(graceEnd).toISOString();
        const updated = await transaction.query<TokenRow>(
          `UPDATE tokens SET expires_at = $2, replaced_by = $3 WHERE id = $1
           RETURNING ${tokenColumns}`,
          [tokenId, expiresAt, issued.id],
        );
        await recordAuditEntry(
          transaction,
          {
            action: 'token.rolled',
            actor,
            target: { type: 'token', id: tokenId },
            metadata: {
              accountId: row.account_id,
              replacedBy: issued.id,
              graceSeconds,
              expiresAt,
            },
          },
          audit,
        );
        await announceTokensChanged(transaction, tokenId);
        return { issued, previous: toTokenInfo(updated.rows[0] as TokenRow, now) };
      });
      tokensChanged(database);
      return result;
    },

    async disableAccount({ accountId, actor = operator }) {
      const now = clock.now();
      const result = await database.transaction(async (transaction) => {
        const { rows } = await transaction.query<AccountRow>(
          `SELECT ${accountColumns} FROM service_accounts WHERE id = $1 FOR UPDATE`,
          [accountId],
        );
        const row = rows[0];
        if (!row) {
          throw new FollowUpServerError({
            code: 'account_not_found',
            message: `No service account has the id ${accountId}.`,
          });
        }
        if (row.disabled_at !== null) return { account: toAccount(row), tokensRevoked: 0 };
        const disabled = await transaction.query<AccountRow>(
          `UPDATE service_accounts SET disabled_at = $2 WHERE id = $1 RETURNING ${accountColumns}`,
          [accountId, new Date(now)],
        );
        // Every token that still works ends now; expired ones are left as they are.
        const revoked = await transaction.query(
          `UPDATE tokens SET revoked_at = $2
            WHERE account_id = $1 AND revoked_at IS NULL
              AND (expires_at IS NULL OR expires_at > $2)`,
          [accountId, new Date(now)],
        );
        const tokensRevoked = revoked.rowCount ?? 0;
        await recordAuditEntry(
          transaction,
          {
            action: 'service_account.disabled',
            actor,
            target: { type: 'service_account', id: accountId },
            metadata: { tokensRevoked },
          },
          audit,
        );
        await announceTokensChanged(transaction, accountId);
        return { account: toAccount(disabled.rows[0] as AccountRow), tokensRevoked };
      });
      tokensChanged(database);
      return result;
    },

    async verifyToken(token) {
      if (token === undefined || token === '') return { ok: false, code: 'token_missing' };
      const parsed = parseToken(token);
      if (!parsed) return { ok: false, code: 'token_invalid' };
      const digest = hashSecret(parsed.secret);
      // Keyed by the secret's digest, never the secret; only tokens that verified are remembered.
      const cacheKey = tokenCache ? `${parsed.accountId}.${digest.toString('base64')}` : '';
      const cached = tokenCache?.get(cacheKey);
      if (cached) {
        await noteUseOf(cached.tokenId, 0, clock.now());
        return { ok: true, tokenId: cached.tokenId, account: cached.account };
      }
      const version = tokenCache?.version() ?? 0;
      const { rows } = await database.query<
        TokenRow & {
          name: string;
          role: Role;
          account_created_at: string;
          account_disabled_at: string | null;
        }
      >(
        `SELECT t.id, t.account_id, t.label, t.secret_sha256, t.created_at, t.expires_at,
                t.revoked_at, t.last_used_at, t.replaced_by,
                a.name, a.role, a.created_at AS account_created_at,
                a.disabled_at AS account_disabled_at
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
      const now = clock.now();
      const state = stateOf(match, now);
      if (state !== 'active') return { ok: false, code: `token_${state}` };
      // Defence in depth: disabling an account revokes its tokens in the same transaction.
      if (match.account_disabled_at !== null) return { ok: false, code: 'token_revoked' };
      await noteUse(match, now);
      const account = toAccount({
        id: match.account_id,
        name: match.name,
        role: match.role,
        created_at: match.account_created_at,
        disabled_at: match.account_disabled_at,
      });
      tokenCache?.set(
        cacheKey,
        {
          tokenId: match.id,
          account,
          expiresAt: match.expires_at === null ? null : Date.parse(match.expires_at),
        },
        version,
      );
      return { ok: true, tokenId: match.id, account };
    },
  };
}
