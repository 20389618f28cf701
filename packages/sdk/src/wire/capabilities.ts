import type { Role } from './roles.js';

/**
 * Every capability, in the order of the roles-and-capabilities table of the API contract: what a
 * token or a signed-in user may do. The role fixes the set ({@link ROLE_CAPABILITIES}); there are
 * no per-token scopes. `GET /api/me` lists the caller's, in this order.
 *
 * @example
 * ```ts
 * const me = await client.me();
 * const missing = CAPABILITIES.filter((capability) => !me.capabilities.includes(capability));
 * ```
 */
export const CAPABILITIES = [
  'contacts.read',
  'contacts.write',
  'contacts.delete',
  'deals.read',
  'deals.write',
  'sequences.manage',
  'campaigns.manage',
  'audit.read',
  'users.manage',
  'webhooks.manage',
] as const;

/**
 * A capability this SDK version knows: one of {@link CAPABILITIES}.
 *
 * @example
 * ```ts
 * const needed: Capability = 'contacts.delete';
 * ```
 */
export type Capability = (typeof CAPABILITIES)[number];

/**
 * The capabilities of each role, in the order of {@link CAPABILITIES}: the wire contract, which
 * the server checks every request against.
 *
 * @example
 * ```ts
 * ROLE_CAPABILITIES.MANAGER.includes('audit.read'); // true
 * ROLE_CAPABILITIES.AGENT.includes('contacts.delete'); // false
 * ```
 */
// Frozen, arrays included: the server authorizes every request with it.
export const ROLE_CAPABILITIES: { readonly [role in Role]: readonly Capability[] } = Object.freeze({
  ADMIN: Object.freeze([...CAPABILITIES]),
  MANAGER: Object.freeze([
    'contacts.read',
    'contacts.write',
    'deals.read',
    'deals.write',
    'sequences.manage',
    'campaigns.manage',
    'audit.read',
  ] as const),
  AGENT: Object.freeze(['contacts.read', 'contacts.write', 'deals.read', 'deals.write'] as const),
  READONLY: Object.freeze(['contacts.read', 'deals.read'] as const),
});
