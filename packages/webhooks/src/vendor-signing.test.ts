import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codeOf, entries } from '../test/entries.js';
import { vendorProfiles } from './vendor-profiles.js';

const signedProfiles = [
  vendorProfiles.athenahealth,
  vendorProfiles.akute,
  vendorProfiles.metriport,
];

const secret = fc.oneof(
  fc.string({ minLength: 1, maxLength: 64 }).filter((text) => text.isWellFormed()),
  fc.uint8Array({ minLength: 1, maxLength: 64 }),
);
const payload = fc.oneof(
  fc.string({ maxLength: 512 }).filter((text) => text.isWellFormed()),
  fc.uint8Array({ maxLength: 512 }),
);

describe.each(entries)('signVendorPayload, $name entry', (entry) => {
  it('signs what verifyVendorSignature accepts, for every scheme, body, secret and time', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...signedProfiles),
        payload,
        secret,
        fc.integer({ min: 0, max: 99_999_999_999 }),
        async (profile, body, key, timestamp) => {
          const header = await entry.signVendorPayload(profile, body, { secret: key, timestamp });
          const verified = await entry.verifyVendorSignature(
            profile,
            body,
            { [profile.header]: header },
            { secret: key, now: timestamp },
          );
          expect(verified).toEqual({
            secretIndex: 0,
            timestamp: profile.scheme === 'hmac-sha256-timestamped' ? timestamp : undefined,
          });
        },
      ),
      { numRuns: 200 },
    );
  });

  it('signs a body that another secret or a changed byte does not verify', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...signedProfiles),
        fc.string({ minLength: 1, maxLength: 256 }).filter((text) => text.isWellFormed()),
        async (profile, body) => {
          const header = await entry.signVendorPayload(profile, body, { secret: 'vendor-secret' });
          const headers = { [profile.header]: header };
          expect(
            await codeOf(entry.verifyVendorSignature(profile, body, headers, { secret: 'other' })),
          ).toBe('no_matching_signature');
          expect(
            await codeOf(
              entry.verifyVendorSignature(profile, `${body} `, headers, {
                secret: 'vendor-secret',
              }),
            ),
          ).toBe('no_matching_signature');
        },
      ),
      { numRuns: 50 },
    );
  });

  it('refuses a list of secrets, an empty secret and a profile without a scheme', async () => {
    const body = '{}';
    expect(
      await codeOf(
        entry.signVendorPayload(vendorProfiles.athenahealth, body, {
          secret: ['a', 'b'] as unknown as string,
        }),
      ),
    ).toBe('invalid_secret');
    expect(await codeOf(entry.signVendorPayload(vendorProfiles.akute, body, { secret: '' }))).toBe(
      'invalid_secret',
    );
    await expect(
      entry.signVendorPayload(vendorProfiles.epic as never, body, { secret: 's' }),
    ).rejects.toThrow(TypeError);
  });
});
