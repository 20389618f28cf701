import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_PAGE_OFFSET,
  offsetField,
  PAGE_SIZE,
  paging,
  textField,
  when,
} from './page-helpers.js';

describe('page helpers', () => {
  it('reads a text field as a trimmed string of at most max characters, whatever the input', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.array(fc.string()), fc.integer())),
          fc.constant(null),
          fc.string(),
        ),
        fc.string(),
        fc.integer({ min: 0, max: 300 }),
        (source, name, max) => {
          const text = textField(source, name, max);
          expect(typeof text).toBe('string');
          expect(text.length).toBeLessThanOrEqual(max);
          expect(text).toBe(text.trim());
        },
      ),
    );
    expect(textField({ name: ['a', 'b'] }, 'name')).toBe('a');
    expect(textField({ name: '  x  ' }, 'name')).toBe('x');
    expect(textField({ toString: 'x' }, 'constructor')).toBe('');
  });

  it('reads an offset as a whole number from 0 to the maximum, and anything else as 0', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.nat().map(String), fc.integer().map(String)), (text) => {
        const offset = offsetField({ offset: text });
        expect(Number.isSafeInteger(offset)).toBe(true);
        expect(offset).toBeGreaterThanOrEqual(0);
        expect(offset).toBeLessThanOrEqual(MAX_PAGE_OFFSET);
        if (!/^\d{1,6}$/.test(text)) expect(offset).toBe(0);
      }),
    );
    expect(offsetField({ offset: '50' })).toBe(50);
    expect(offsetField({ offset: '999999' })).toBe(MAX_PAGE_OFFSET);
    expect(offsetField({ offset: '-5' })).toBe(0);
  });

  it('links the pages before and after, keeping the filters, never past the maximum', () => {
    expect(paging('/deliveries', { state: 'dead', endpoint: '' }, 0, PAGE_SIZE)).toEqual({
      previous: null,
      next: `/deliveries?state=dead&offset=${PAGE_SIZE}`,
    });
    expect(paging('/deliveries', {}, PAGE_SIZE, 3)).toEqual({
      previous: '/deliveries',
      next: null,
    });
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: MAX_PAGE_OFFSET }),
        fc.integer({ min: 0, max: PAGE_SIZE }),
        fc.dictionary(fc.string(), fc.string()),
        (offset, count, filters) => {
          const links = paging('/x', filters, offset, count);
          for (const link of [links.previous, links.next]) {
            if (link === null) continue;
            expect(link.startsWith('/x')).toBe(true);
            const at = Number(new URL(link, 'http://h').searchParams.get('offset') ?? '0');
            expect(at).toBeLessThanOrEqual(MAX_PAGE_OFFSET);
          }
        },
      ),
    );
  });

  it('writes times as people read them', () => {
    expect(when('2026-03-01T09:00:05.123Z')).toBe('2026-03-01 09:00:05 UTC');
    expect(when(null)).toBe('—');
  });
});
