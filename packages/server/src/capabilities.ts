import {
  CAPABILITIES,
  ROLE_CAPABILITIES,
  type Role,
  type Capability as WireCapability,
} from '@followup/sdk';

/** What a token may do (the SDK's `Capability`). The role fixes the set; no per-token scopes. */
export type Capability = WireCapability;

/** Every capability, in the order of the API contract's table: the SDK's `CAPABILITIES`. */
export const capabilities: readonly Capability[] = CAPABILITIES;

/** The capabilities of each role, as sets: the SDK's `ROLE_CAPABILITIES`, the wire contract's. */
export const roleCapabilities: Readonly<Record<Role, ReadonlySet<Capability>>> = {
  ADMIN: new Set(ROLE_CAPABILITIES.ADMIN),
  MANAGER: new Set(ROLE_CAPABILITIES.MANAGER),
  AGENT: new Set(ROLE_CAPABILITIES.AGENT),
  READONLY: new Set(ROLE_CAPABILITIES.READONLY),
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
