import { z } from 'zod';
import { timestampSchema } from '../internal/timestamp.js';
import { INPUT_LIMITS } from '../wire/limits.js';
import { boundedText } from './input-limits.js';
import { boundedOpenEnum, openEnum } from './open-enum.js';

/**
 * The campaign statuses FollowUp documents today; the schemas also accept any other string.
 *
 * @example
 * ```ts
 * const running = campaign.status === 'RUNNING';
 * ```
 */
export const CAMPAIGN_STATUS_VALUES = [
  'DRAFT',
  'SCHEDULED',
  'RUNNING',
  'COMPLETED',
  'CANCELLED',
] as const;

/**
 * Schema of a campaign (unknown fields are kept).
 *
 * @example
 * ```ts
 * const campaign = campaignSchema.parse(json);
 * ```
 */
export const campaignSchema = z.looseObject({
  /** The campaign's id. */
  id: z.string().min(1),
  /** Its name. */
  name: z.string(),
  /** `DRAFT`, `SCHEDULED`, `RUNNING`, `COMPLETED`, `CANCELLED` (an open enumeration). */
  status: openEnum(CAMPAIGN_STATUS_VALUES),
  /** When it was created (ISO 8601 UTC). */
  createdAt: timestampSchema,
  /** When it last changed (ISO 8601 UTC). */
  updatedAt: timestampSchema,
});

/**
 * A campaign: `id, name, status, createdAt, updatedAt`.
 *
 * @example
 * ```ts
 * const campaign: Campaign = await client.campaigns.get('cmp_01J…');
 * ```
 */
export type Campaign = z.infer<typeof campaignSchema>;

/**
 * Schema of the body of `POST /api/campaigns`.
 *
 * @example
 * ```ts
 * createCampaignInputSchema.parse({ name: 'Spring check-ups' });
 * ```
 */
export const createCampaignInputSchema = z.strictObject({
  /** Its name, 1 to 200 characters. */
  name: boundedText({ min: 1, max: INPUT_LIMITS.name }),
  /** Defaults to `DRAFT` on the server. */
  status: boundedOpenEnum(CAMPAIGN_STATUS_VALUES).optional(),
});

/**
 * What `client.campaigns.create()` takes.
 *
 * @example
 * ```ts
 * const input: CreateCampaignInput = { name: 'Spring check-ups' };
 * ```
 */
export type CreateCampaignInput = z.input<typeof createCampaignInputSchema>;

/**
 * Schema of the body of `PATCH /api/campaigns/:id`.
 *
 * @example
 * ```ts
 * updateCampaignInputSchema.parse({ status: 'SCHEDULED' });
 * ```
 */
export const updateCampaignInputSchema = z.strictObject({
  /** New name. */
  name: boundedText({ min: 1, max: INPUT_LIMITS.name }).optional(),
  /** New status. */
  status: boundedOpenEnum(CAMPAIGN_STATUS_VALUES).optional(),
});

/**
 * What `client.campaigns.update()` takes.
 *
 * @example
 * ```ts
 * const patch: UpdateCampaignInput = { status: 'CANCELLED' };
 * ```
 */
export type UpdateCampaignInput = z.input<typeof updateCampaignInputSchema>;

/**
 * Schema of a page of `GET /api/campaigns`: `{ "campaigns": [...] }`.
 *
 * @example
 * ```ts
 * const { campaigns } = campaignListSchema.parse(json);
 * ```
 */
export const campaignListSchema = z.looseObject({
  /** The campaigns of the page. */
  campaigns: z.array(campaignSchema),
});

/**
 * A page of campaigns as the service sends it.
 *
 * @example
 * ```ts
 * const body: CampaignList = { campaigns: [] };
 * ```
 */
export type CampaignList = z.infer<typeof campaignListSchema>;
