import type { Role } from './tokens/account-store.js';

/** What a token may do. The role of its service account fixes the set; no per-token scopes. */
export type Capability =
  | 'contacts.read'
  | 'contacts.write'
  | 'contacts.delete'
  | 'deals.read'
  | 'deals.write'
  | 'sequences.manage'
  | 'campaigns.manage'
  | 'audit.read'
  | 'users.manage';

/** Every capability, in the order of the service interface's table. */
export const capabilities: readonly Capability[] = [
  'contacts.read',
  'contacts.write',
  'contacts.delete',
  'deals.read',
  'deals.write',
  'sequences.manage',
  'campaigns.manage',
  'audit.read',
  'users.manage',
];

/** The service interface's role matrix: the capabilities of each role. */
export const roleCapabilities: Readonly<Record<Role, ReadonlySet<Capability>>> = {
  ADMIN: new Set(capabilities),
  MANAGER: new Set<Capability>([
    'contacts.read',
    'contacts.write',
    'deals.read',
    'deals.write',
    'sequences.manage',
    'campaigns.manage',
    'audit.read',
  ]),
  AGENT: new Set<Capability>(['contacts.read', 'contacts.write', 'deals.read', 'deals.write']),
  READONLY: new Set<Capability>(['contacts.read', 'deals.read']),
};

/**
 * Whether a role holds a capability.
 *
 * @example
 * ```ts
 * hasCapability('MANAGER', 'audit.read'); // true
 * hasCapability('AGENT', 'contacts.delete'); // false
 * ```
 */
export function hasCapability(role: Role, capability: Capability): boolean {
  return roleCapabilities[role]?.has(capability) ?? false;
}
