/**
 * The roles of service accounts and users, most powerful first: the wire contract, which the
 * server imports. A role fixes what its holder may do ({@link ROLE_CAPABILITIES}); the schemas of
 * what the service answers also accept any other string, a role added later.
 *
 * @example
 * ```ts
 * const isAdmin = user.role === ROLE_VALUES[0];
 * ```
 */
export const ROLE_VALUES = ['ADMIN', 'MANAGER', 'AGENT', 'READONLY'] as const;

/**
 * A role this SDK version knows: one of {@link ROLE_VALUES}.
 *
 * @example
 * ```ts
 * const role: Role = 'AGENT';
 * await client.users.create({ email: 'ada@example.com', name: 'Ada', role });
 * ```
 */
export type Role = (typeof ROLE_VALUES)[number];
