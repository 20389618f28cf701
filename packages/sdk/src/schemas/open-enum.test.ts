import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createContactInputSchema, LIFECYCLE_VALUES } from './contact.js';
import { boundedOpenEnum, caseVariantOf } from './open-enum.js';

const stage = boundedOpenEnum(['OPEN', 'WON', 'LOST']);

/** Strings near the known values: each of them in any mix of cases, and anything else. */
const nearKnown = fc.oneof(
  fc
    .tuple(
      fc.constantFrom('OPEN', 'WON', 'LOST'),
      fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
    )
    .map(([value, upper]) =>
      [...value].map((char, at) => (upper[at] ? char : char.toLowerCase())).join(''),
    ),
  fc.string({ minLength: 1, maxLength: 64 }),
);

describe('boundedOpenEnum', () => {
  it('takes the known values and any other value, but a known one spelled in another case', () => {
    fc.assert(
      fc.property(nearKnown, (value) => {
        const miscased = ['OPEN', 'WON', 'LOST'].find(
          (known) => known !== value && known.toLowerCase() === value.toLowerCase(),
        );
        const result = stage.safeParse(value);
        if (miscased === undefined && !value.includes('\u0000') && value.isWellFormed()) {
          expect(result.success).toBe(true);
        }
        if (miscased !== undefined) {
          expect(result.success).toBe(false);
          expect(result.error?.issues[0]?.message).toBe(
            `must be written ${miscased}: values are case-sensitive (known values: OPEN, WON, LOST; others are allowed)`,
          );
        }
      }),
    );
  });

  it('refuses lifecycle patient in a new contact, naming PATIENT', () => {
    const result = createContactInputSchema.safeParse({
      firstName: 'Ada',
      lastName: 'L',
      lifecycle: 'patient',
    });
    expect(result.error?.issues).toMatchObject([
      { path: ['lifecycle'], message: expect.stringContaining('must be written PATIENT') },
    ]);
    expect(
      createContactInputSchema.safeParse({ firstName: 'A', lastName: 'L', lifecycle: 'ALUMNI' })
        .success,
    ).toBe(true);
  });
});

describe('caseVariantOf', () => {
  it('finds the known value a case variant spells, and nothing for a known or unrelated value', () => {
    expect(caseVariantOf(LIFECYCLE_VALUES, 'Patient')).toBe('PATIENT');
    expect(caseVariantOf(LIFECYCLE_VALUES, 'PATIENT')).toBeUndefined();
    expect(caseVariantOf(LIFECYCLE_VALUES, 'ALUMNI')).toBeUndefined();
    // Only a case change: a dotted capital I (U+0130) lower-cases to two code points, not "i".
    expect(caseVariantOf(LIFECYCLE_VALUES, 'PATİENT'.toLowerCase())).toBeUndefined();
  });
});
