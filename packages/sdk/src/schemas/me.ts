import { z } from 'zod';
import { timestampSchema } from '../internal/timestamp.js';
import { CAPABILITIES } from '../wire/capabilities.js';
import { ROLE_VALUES } from '../wire/roles.js';
import { openEnum } from './open-enum.js';

/**
 * Schema of the answer of `GET /api/me`: who the caller is (unknown fields are kept; `type` and
 * `role` are open enumerations).
 *
 * @example
 * ```ts
 * const me = meSchema.parse(json);
 * ```
 */
export const meSchema = z.looseObject({
  /** `service_account` for a bearer token, `user` for a person signed in to the web app. */
  type: openEnum(['service_account', 'user']),
  /** The service account's id (`sa_…`) or the user's (`usr_…`). */
  id: z.string().min(1),
  /** The account's or the person's name. */
  name: z.string(),
  /** The user's e-mail address (users only). */
  email: z.string().optional(),
  /** The role, which fixes the capabilities. */
  role: openEnum(ROLE_VALUES),
  /**
   * What the caller may do, such as `contacts.read`, in the order of `CAPABILITIES` (an open
   * enumeration: a capability added later is kept).
   */
  capabilities: z.array(openEnum(CAPABILITIES)),
  /** The bearer token of the call, or `null` for a browser session. */
  token: z
    .looseObject({
      /** The token's id (`tok_…`), never its secret. */
      id: z.string().min(1),
      /** The label given at issuance, or `null`. */
      label: z.string().nullable(),
      /** When the token stops working, or `null` if it has no TTL. */
      expiresAt: timestampSchema.nullable(),
    })
    .nullable(),
});

/**
 * Who the caller is: `{ type, id, name, email?, role, capabilities, token }`.
 *
 * @example
 * ```ts
 * const me: Me = await client.me();
 * if (!me.capabilities.includes('contacts.delete')) console.log('read and write only');
 * ```
 */
export type Me = z.infer<typeof meSchema>;
