import type { ServiceAccountRow } from '../stores/service-account-store.js';
import type { TokenRow } from '../stores/token-store.js';
import type { ServiceAccount, TokenInfo, TokenState } from './account-types.js';

/** @internal A stored service account as the store answers it. */
export function toServiceAccount(row: ServiceAccountRow): ServiceAccount {
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    createdAt: row.created_at,
    disabledAt: row.disabled_at,
  };
}

/** @internal Where a stored token is in its life at `now` (Unix ms): revoked wins over expired. */
export function tokenStateOf(row: TokenRow, now: number): TokenState {
  if (row.revoked_at !== null) return 'revoked';
  if (row.expires_at !== null && Date.parse(row.expires_at) <= now) return 'expired';
  return 'active';
}

/** @internal A stored token as the store answers it at `now`: never its secret's digest. */
export function toTokenInfo(row: TokenRow, now: number): TokenInfo {
  return {
    id: row.id,
    accountId: row.account_id,
    label: row.label,
    state: tokenStateOf(row, now),
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
    replacedBy: row.replaced_by,
  };
}
