import { LIST_LIMITS } from '@followup/sdk';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkReceiptFilter } from './receipt-filter.js';
import { receiptVerdicts } from './receipt-verdicts.js';

describe('checkReceiptFilter', () => {
  it('takes every page size and offset within the list limits, and refuses the rest', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: LIST_LIMITS.maxLimit }),
        fc.integer({ min: 0, max: LIST_LIMITS.maxOffset }),
        (limit, offset) => {
          expect(checkReceiptFilter({ limit, offset })).toMatchObject({ limit, offset });
        },
      ),
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ max: 0 }),
          fc.integer({ min: LIST_LIMITS.maxLimit + 1 }),
          fc.double({ noInteger: true }),
        ),
        (limit) => {
          expect(() => checkReceiptFilter({ limit })).toThrow(
            expect.objectContaining({ code: 'invalid_filter' }),
          );
        },
      ),
    );
  });

  it('reads since and until as the instants they write, and refuses anything but ISO 8601', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('1970-01-01'), max: new Date('9999-12-31'), noInvalidDate: true }),
        (date) => {
          const text = date.toISOString();
          const checked = checkReceiptFilter({ since: text, until: text });
          expect(checked.since?.getTime()).toBe(date.getTime());
          expect(checked.until?.getTime()).toBe(date.getTime());
        },
      ),
    );
    for (const since of ['yesterday', '2026-13-45', '1700000000', '']) {
      expect(() => checkReceiptFilter({ since })).toThrow(
        expect.objectContaining({ code: 'invalid_filter' }),
      );
    }
  });

  it('takes the known verdicts only', () => {
    for (const verdict of receiptVerdicts) {
      expect(checkReceiptFilter({ verdict }).verdict).toBe(verdict);
    }
    fc.assert(
      fc.property(
        fc.string().filter((text) => !(receiptVerdicts as readonly string[]).includes(text)),
        (verdict) => {
          expect(() => checkReceiptFilter({ verdict })).toThrow(/outcome/);
        },
      ),
    );
  });
});
