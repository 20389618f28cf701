import { LIST_LIMITS } from '@followup/sdk';
import { FollowUpServerError } from '../errors.js';
import { receiptVerdicts } from './receipt-verdicts.js';

/** @internal Filters of the console's receipt list (`listReceipts`), as given. */
export interface ReceiptFilter {
  vendor?: string;
  verdict?: string;
  /** ISO 8601: received at or after. */
  since?: string;
  /** ISO 8601: received before. */
  until?: string;
  /** 1 to 200, default 50. */
  limit?: number;
  /** Rows to skip, 0 to 100,000. */
  offset?: number;
}

/** @internal A {@link ReceiptFilter} checked: `null` where no filter applies. */
export interface CheckedReceiptFilter {
  vendor: string | null;
  verdict: string | null;
  since: Date | null;
  until: Date | null;
  limit: number;
  offset: number;
}

function invalid(message: string): FollowUpServerError {
  return new FollowUpServerError({ code: 'invalid_filter', message });
}

function instant(value: string | undefined, name: string): Date | null {
  if (value === undefined) return null;
  const time = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2})?)?$/.test(value) || Number.isNaN(time)) {
    throw invalid(`${name} is an ISO 8601 date or time.`);
  }
  return new Date(time);
}

/**
 * @internal Checks a receipt filter: `limit` 1 to 200 (default 50), `offset` 0 to 100,000, a
 * verdict of {@link receiptVerdicts}, `since` and `until` ISO 8601 dates or times. Anything else
 * throws `invalid_filter`.
 */
export function checkReceiptFilter(filter: ReceiptFilter): CheckedReceiptFilter {
  const { defaultLimit, maxLimit, maxOffset } = LIST_LIMITS;
  const limit = filter.limit ?? defaultLimit;
  const offset = filter.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 1 || limit > maxLimit) {
    throw invalid(`limit is 1 to ${maxLimit}.`);
  }
  if (!Number.isInteger(offset) || offset < 0 || offset > maxOffset) {
    throw invalid(`offset is 0 to ${maxOffset}.`);
  }
  if (
    filter.verdict !== undefined &&
    !(receiptVerdicts as readonly string[]).includes(filter.verdict)
  ) {
    throw invalid(`The outcome is one of ${receiptVerdicts.join(', ')}.`);
  }
  return {
    vendor: filter.vendor ?? null,
    verdict: filter.verdict ?? null,
    since: instant(filter.since, 'since'),
    until: instant(filter.until, 'until'),
    limit,
    offset,
  };
}
