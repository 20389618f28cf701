import { ERASED_VALUE } from '@followup/sdk';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { comparableValue, eraseFields, eraseKnownValues, eraseRecordsOf } from './erased-values.js';

const contactFields = ['firstName', 'lastName', 'lifecycle', 'email', 'phone'];
const records = { contactId: 'con_1', contactFields, dealFields: ['title'] };

// Any JSON value, strings drawn from a small alphabet so that they meet the known values.
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom('Ada', ' ADA ', 'ada@example.com', 'Lovelace', 'other', 'con_1'),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(
      fc.constantFrom('id', 'contactId', 'firstName', 'title', 'email', 'note', 'createdAt'),
      tie('value'),
      { maxKeys: 5 },
    ),
  ),
})).value;

function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(strings);
  return [];
}

function keysOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(keysOf);
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([key, item]) => [key, ...keysOf(item)]);
  }
  return [];
}

describe('eraseFields', () => {
  it('erases the fields that hold a value, keeps null, absent fields, ids and times', () => {
    const contact = {
      id: 'con_1',
      firstName: 'Ada',
      lastName: 'Lovelace',
      lifecycle: 'PATIENT',
      email: 'ada@example.com',
      createdAt: '2026-03-01T09:00:00.000Z',
      updatedAt: '2026-03-01T09:00:01.000Z',
    };
    expect(eraseFields(contact, contactFields)).toEqual({
      id: 'con_1',
      firstName: ERASED_VALUE,
      lastName: ERASED_VALUE,
      lifecycle: ERASED_VALUE,
      email: ERASED_VALUE,
      createdAt: '2026-03-01T09:00:00.000Z',
      updatedAt: '2026-03-01T09:00:01.000Z',
    });
    // previousAttributes: a field that had no value keeps saying so.
    expect(eraseFields({ email: null, firstName: 'Ada' }, contactFields)).toEqual({
      email: null,
      firstName: ERASED_VALUE,
    });
    expect(contact.firstName).toBe('Ada');
  });
});

describe('eraseKnownValues', () => {
  it('erases every string equal to a known value, case and surrounding spaces aside', () => {
    const known = new Set(['ada', 'ada@example.com'].map(comparableValue));
    fc.assert(
      fc.property(json, (value) => {
        const erased = eraseKnownValues(value, known);
        // None of the known values is left; every other string and every key stays.
        for (const text of strings(erased)) expect(known.has(comparableValue(text))).toBe(false);
        expect(keysOf(erased)).toEqual(keysOf(value));
        const kept = strings(value).filter((text) => !known.has(comparableValue(text)));
        expect(strings(erased).filter((text) => text !== ERASED_VALUE)).toEqual(
          kept.filter((text) => text !== ERASED_VALUE),
        );
        // Erasing again changes nothing.
        expect(eraseKnownValues(erased, known)).toEqual(erased);
      }),
    );
  });

  it('keeps strings that only contain a known value', () => {
    const known = new Set(['ada']);
    expect(eraseKnownValues({ fields: ['lastName'], note: 'Adam' }, known)).toEqual({
      fields: ['lastName'],
      note: 'Adam',
    });
  });
});

describe('eraseRecordsOf', () => {
  it("erases the contact's fields and its deals' titles at any depth, nothing else", () => {
    fc.assert(
      fc.property(json, (value) => {
        const erased = eraseRecordsOf(value, records);
        // Every key and item stays where it was, but under an erased field: its whole value,
        // whatever it held, is the one string.
        const check = (before: unknown, after: unknown) => {
          if (Array.isArray(before)) {
            expect(after).toHaveLength(before.length);
            for (const [index, item] of before.entries()) check(item, (after as unknown[])[index]);
            return;
          }
          if (typeof before !== 'object' || before === null) {
            expect(after).toEqual(before);
            return;
          }
          const object = before as Record<string, unknown>;
          const result = after as Record<string, unknown>;
          expect(Object.keys(result)).toEqual(Object.keys(object));
          const erasedFields = [
            ...(object.id === 'con_1' ? contactFields : []),
            ...(object.contactId === 'con_1' ? ['title'] : []),
          ];
          for (const [key, item] of Object.entries(object)) {
            if (erasedFields.includes(key) && item !== null) {
              expect(result[key]).toBe(ERASED_VALUE);
            } else {
              check(item, result[key]);
            }
          }
        };
        check(value, erased);
      }),
    );
  });

  it("leaves an erasure's own answer as it is", () => {
    const answer = { id: 'con_1', erased: { events: 2 }, kept: { ehrReceipts: [] } };
    expect(eraseRecordsOf(answer, records)).toEqual(answer);
  });

  it('erases a batch answer and a deal answer', () => {
    expect(
      eraseRecordsOf(
        {
          results: [
            { index: 0, result: 'updated', contact: { id: 'con_1', firstName: 'Ada' } },
            { index: 1, result: 'created', contact: { id: 'con_2', firstName: 'Bea' } },
          ],
        },
        records,
      ),
    ).toEqual({
      results: [
        { index: 0, result: 'updated', contact: { id: 'con_1', firstName: ERASED_VALUE } },
        { index: 1, result: 'created', contact: { id: 'con_2', firstName: 'Bea' } },
      ],
    });
    expect(
      eraseRecordsOf({ id: 'deal_1', contactId: 'con_1', title: 'Knee', amountCents: 5 }, records),
    ).toEqual({ id: 'deal_1', contactId: 'con_1', title: ERASED_VALUE, amountCents: 5 });
  });
});

describe('comparableValue (what comparableValueSql folds in the database)', () => {
  const space = fc.constantFrom('', ' ', '  ', '\t', '\n');

  it('agrees with comparableValue on ASCII', () => {
    fc.assert(
      fc.property(fc.emailAddress(), space, (address, around) => {
        expect(comparableValue(`${around}${address.toUpperCase()}${around}`)).toBe(
          address.toLowerCase(),
        );
      }),
    );
  });
});
