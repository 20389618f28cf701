import { z } from 'zod';
import { timestampSchema } from '../internal/timestamp.js';
import { PORTAL_LINK_LIMITS } from '../wire/limits.js';
import { subscriberKeySchema } from './webhook-endpoint-input.js';

// What `POST /api/webhook-portal/links` takes and answers: a one-time link into the subscriber
// portal, where one subscriber manages its own endpoints and deliveries.

/**
 * Schema of a portal link's input: the `subscriber` whose endpoints the portal shows, and how
 * long the link stays usable (`expiresInMinutes`, 1 to 1,440, default 60). Unknown fields are
 * refused.
 *
 * @example
 * ```ts
 * portalLinkInputSchema.parse({ subscriber: 'acme', expiresInMinutes: 30 });
 * ```
 */
export const portalLinkInputSchema = z.strictObject({
  /** The subscriber (1 to 64 of `a-z0-9_-`) the portal session acts for. */
  subscriber: subscriberKeySchema,
  /** Minutes the link stays usable, 1 to 1,440; default 60. It works once. */
  expiresInMinutes: z
    .number()
    .int('must be a whole number of minutes')
    .min(PORTAL_LINK_LIMITS.minExpiresInMinutes)
    .max(PORTAL_LINK_LIMITS.maxExpiresInMinutes)
    .optional()
    .describe('Minutes the link stays usable, 1 to 1,440 (default 60); it works once'),
});

/**
 * The input of `client.webhookPortal.createLink()`.
 *
 * @example
 * ```ts
 * const input: PortalLinkInput = { subscriber: 'acme' };
 * ```
 */
export type PortalLinkInput = z.input<typeof portalLinkInputSchema>;

/**
 * Schema of a new portal link: its `url` (shown this once; only its hash is stored) and when it
 * stops working unused.
 *
 * @example
 * ```ts
 * const { url, expiresAt } = portalLinkSchema.parse(json);
 * ```
 */
export const portalLinkSchema = z.looseObject({
  /** The link to give the subscriber: `https://…/portal/…`; it works once. */
  url: z.string(),
  /** When the link stops working if unused (ISO 8601 UTC). */
  expiresAt: timestampSchema,
});

/**
 * A new portal link, as `client.webhookPortal.createLink()` answers it.
 *
 * @example
 * ```ts
 * const link: PortalLink = { url: 'https://followup.example.com/portal/…', expiresAt: '2026-03-01T10:00:00.000Z' };
 * ```
 */
export type PortalLink = z.infer<typeof portalLinkSchema>;
