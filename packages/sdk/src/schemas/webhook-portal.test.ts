import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PORTAL_LINK_LIMITS } from '../wire/limits.js';
import { portalLinkInputSchema } from './webhook-portal.js';

function failingPaths(input: unknown): string[] {
  const result = portalLinkInputSchema.safeParse(input);
  return result.success
    ? []
    : [...new Set(result.error.issues.map((issue) => issue.path.join('.')))];
}

const subscriberCharacters = 'abcdefghijklmnopqrstuvwxyz0123456789_-'.split('');
const subscriber = fc
  .array(fc.constantFrom(...subscriberCharacters), { minLength: 1, maxLength: 64 })
  .map((characters) => characters.join(''));

describe("a portal link's input", () => {
  it('accepts any subscriber key of 1 to 64 of a-z0-9_- and refuses any other string, naming it', () => {
    fc.assert(
      fc.property(fc.oneof(subscriber, fc.string({ maxLength: 80 })), (key) => {
        const valid = /^[a-z0-9_-]{1,64}$/.test(key);
        expect(failingPaths({ subscriber: key })).toEqual(valid ? [] : ['subscriber']);
      }),
    );
  });

  it('accepts a whole number of minutes from 1 to 1,440 and refuses any other number, naming it', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: -5_000, max: 5_000 }),
          fc.double({ min: -5_000, max: 5_000, noNaN: true }),
        ),
        (minutes) => {
          const valid =
            Number.isInteger(minutes) &&
            minutes >= PORTAL_LINK_LIMITS.minExpiresInMinutes &&
            minutes <= PORTAL_LINK_LIMITS.maxExpiresInMinutes;
          expect(failingPaths({ subscriber: 'acme', expiresInMinutes: minutes })).toEqual(
            valid ? [] : ['expiresInMinutes'],
          );
        },
      ),
    );
  });

  it('refuses a field it does not know, so a typo is not silently ignored', () => {
    expect(failingPaths({ subscriber: 'acme', expiresIn: 30 })).toEqual(['']);
  });
});
