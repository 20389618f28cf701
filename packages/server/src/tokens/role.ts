import { ROLE_VALUES, type Role as WireRole } from '@followup/sdk';

/** The role of a service account; it fixes the account's capabilities (the SDK's `Role`). */
export type Role = WireRole;

/** Every role, most powerful first: the SDK's `ROLE_VALUES`, the wire contract's list. */
export const roles: readonly Role[] = ROLE_VALUES;
