import type { ProblemCode } from '@followup/sdk';
import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import type { Database } from '../storage/database.js';
import type { AuditActor } from '../stores/audit-store.js';
import type { Role } from './role.js';

// What the account store answers and takes; the store itself is `account-store.ts`.

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

/** @internal What the account store's changes share: storage, time, ids and randomness. */
export interface AccountStoreContext {
  /** Where accounts, tokens and audit entries live. */
  database: Database;
  /** Decides expiry and timestamps. */
  clock: Clock;
  /** Makes ids. */
  newId: IdGenerator;
  /** Random bytes for secrets. */
  random: (size: number) => Uint8Array;
}
