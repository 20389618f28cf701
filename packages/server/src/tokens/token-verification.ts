import { timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { Queryable } from '../storage/database.js';
import { listTokensWithAccount, type TokenWithAccountRow } from '../stores/token-store.js';
import type { TokenVerification } from './account-types.js';
import type { LastUsedRecorder } from './last-used-recorder.js';
import type { TokenCache } from './token-cache.js';
import { hashSecret, parseToken } from './token-format.js';
import { tokenStateOf, toServiceAccount } from './token-state.js';

// Compared against when the account does not exist, so that both refusals cost the same work.
const decoyDigest = Buffer.alloc(32);

/** @internal What {@link verifyToken} reads and writes. */
export interface TokenVerificationContext {
  /** Where tokens are looked up. */
  database: Queryable;
  /** Decides expiry. */
  clock: Clock;
  /** Writes `last_used_at` of the tokens that verify. */
  lastUsed: LastUsedRecorder;
  /** Where verified tokens are remembered; without it every verification is a lookup. */
  tokenCache: TokenCache | undefined;
}

/**
 * @internal Checks a token: the account is looked up by the id embedded in it, then the secret's
 * digest is compared in constant time against every token of the account (or a decoy), never
 * stopping early. An unknown account and a wrong secret are both `token_invalid`;
 * `token_expired` and `token_revoked` are only told once the secret matched.
 */
export async function verifyToken(
  context: TokenVerificationContext,
  token: string | undefined,
): Promise<TokenVerification> {
  const { clock, tokenCache } = context;
  if (token === undefined || token === '') return { ok: false, code: 'token_missing' };
  const parsed = parseToken(token);
  if (!parsed) return { ok: false, code: 'token_invalid' };
  const digest = hashSecret(parsed.secret);
  // Keyed by the secret's digest, never the secret; only tokens that verified are remembered.
  const cacheKey = tokenCache ? `${parsed.accountId}.${digest.toString('base64')}` : '';
  const cached = tokenCache?.get(cacheKey);
  if (cached) {
    await context.lastUsed.noteUse(cached.tokenId, { stored: 0, now: clock.now() });
    return { ok: true, tokenId: cached.tokenId, account: cached.account };
  }
  const version = tokenCache?.version() ?? 0;
  const rows = await listTokensWithAccount(context.database, parsed.accountId);
  let match: TokenWithAccountRow | undefined;
  for (const row of rows.length > 0 ? rows : [undefined]) {
    const stored = row?.secret_sha256 ?? decoyDigest;
    const equal = stored.length === digest.length && timingSafeEqual(stored, digest);
    if (equal && row) match = row;
  }
  if (!match) return { ok: false, code: 'token_invalid' };
  const now = clock.now();
  const state = tokenStateOf(match, now);
  if (state !== 'active') return { ok: false, code: `token_${state}` };
  // Defence in depth: disabling an account revokes its tokens in the same transaction.
  if (match.account_disabled_at !== null) return { ok: false, code: 'token_revoked' };
  const stored = match.last_used_at === null ? 0 : Date.parse(match.last_used_at);
  await context.lastUsed.noteUse(match.id, { stored, now });
  const account = toServiceAccount({
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
}
