import { z } from 'zod';
import { timestampSchema } from '../internal/timestamp.js';
import { INPUT_LIMITS } from '../wire/limits.js';
import { boundedText } from './input-limits.js';
import { boundedOpenEnum, openEnum } from './open-enum.js';

/**
 * The deal stages FollowUp documents today; {@link DealStage} also accepts any other string.
 *
 * @example
 * ```ts
 * const closed = deal.stage === DEAL_STAGE_VALUES[1] || deal.stage === DEAL_STAGE_VALUES[2];
 * ```
 */
export const DEAL_STAGE_VALUES = ['OPEN', 'WON', 'LOST'] as const;

/**
 * Schema of a deal's stage: `OPEN`, `WON`, `LOST` or any other string (an open enumeration).
 *
 * @example
 * ```ts
 * dealStageSchema.parse('NEGOTIATION'); // accepted: a stage added after this SDK version
 * ```
 */
export const dealStageSchema = openEnum(DEAL_STAGE_VALUES);

/**
 * A deal's stage: `'OPEN' | 'WON' | 'LOST'`, or a value added later.
 *
 * @example
 * ```ts
 * const stage: DealStage = 'WON';
 * ```
 */
export type DealStage = z.infer<typeof dealStageSchema>;

const currencySchema = z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as USD');

/**
 * Schema of a deal as the service returns it (unknown fields are kept).
 *
 * @example
 * ```ts
 * const deal = dealSchema.parse(json);
 * ```
 */
export const dealSchema = z.looseObject({
  /** The deal's id (`deal_…`), an opaque string. */
  id: z.string().min(1),
  /** The contact the deal belongs to. */
  contactId: z.string().min(1),
  /** A short title. */
  title: z.string(),
  /** The stage (an open enumeration). */
  stage: dealStageSchema,
  /** The amount in the currency's minor unit (cents), an integer. */
  amountCents: z.number().int(),
  /** ISO 4217 currency code, e.g. `USD`. */
  currency: currencySchema,
  /** When the deal was created (ISO 8601 UTC). */
  createdAt: timestampSchema,
  /** When the deal last changed (ISO 8601 UTC). */
  updatedAt: timestampSchema,
});

/**
 * A deal: `id, contactId, title, stage, amountCents, currency, createdAt, updatedAt`.
 *
 * @example
 * ```ts
 * const deal: Deal = await client.deals.get('deal_01J…');
 * console.log(deal.amountCents / 100, deal.currency);
 * ```
 */
export type Deal = z.infer<typeof dealSchema>;

/**
 * Schema of the body of `POST /api/deals` (unknown fields refused).
 *
 * @example
 * ```ts
 * createDealInputSchema.parse({ contactId, title: 'Annual plan', amountCents: 120000, currency: 'USD' });
 * ```
 */
export const createDealInputSchema = z.strictObject({
  /** The contact the deal belongs to. */
  contactId: boundedText({ min: 1, max: INPUT_LIMITS.id }),
  /** A short title, 1 to 200 characters. */
  title: boundedText({ min: 1, max: INPUT_LIMITS.name }),
  /** Defaults to `OPEN` on the server. */
  stage: boundedOpenEnum(DEAL_STAGE_VALUES).optional(),
  /** The amount in minor units (cents), a non-negative integer. */
  amountCents: z.number().int().nonnegative(),
  /** ISO 4217 currency code. */
  currency: currencySchema,
});

/**
 * What `client.deals.create()` takes.
 *
 * @example
 * ```ts
 * const input: CreateDealInput = { contactId, title: 'Annual plan', amountCents: 120000, currency: 'USD' };
 * ```
 */
export type CreateDealInput = z.input<typeof createDealInputSchema>;

/**
 * Schema of the body of `PATCH /api/deals/:id`: every field optional.
 *
 * @example
 * ```ts
 * updateDealInputSchema.parse({ stage: 'WON' });
 * ```
 */
export const updateDealInputSchema = z.strictObject({
  /** New title. */
  title: boundedText({ min: 1, max: INPUT_LIMITS.name }).optional(),
  /** New stage. */
  stage: boundedOpenEnum(DEAL_STAGE_VALUES).optional(),
  /** New amount in minor units. */
  amountCents: z.number().int().nonnegative().optional(),
  /** New currency. */
  currency: currencySchema.optional(),
});

/**
 * What `client.deals.update()` takes.
 *
 * @example
 * ```ts
 * await client.deals.update('deal_01J…', { stage: 'WON' } satisfies UpdateDealInput);
 * ```
 */
export type UpdateDealInput = z.input<typeof updateDealInputSchema>;

/**
 * Schema of a page of `GET /api/deals`: `{ "deals": [...] }`.
 *
 * @example
 * ```ts
 * const { deals } = dealListSchema.parse(json);
 * ```
 */
export const dealListSchema = z.looseObject({
  /** The deals of the page, in `createdAt, id` order. */
  deals: z.array(dealSchema),
  /**
   * Pass it back as `cursor` (with the same limit, sort and filters) for the next page; `null`
   * on the last page. Absent from services older than the keyset lists.
   */
  nextCursor: z.string().nullable().optional(),
});

/**
 * A page of deals as the service sends it.
 *
 * @example
 * ```ts
 * const body: DealList = { deals: [] };
 * ```
 */
export type DealList = z.infer<typeof dealListSchema>;
