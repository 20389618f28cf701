import fc from 'fast-check';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { codeOf, entries } from './entries.js';

// Stripe's own helpers, from the `stripe` package (a dev dependency only). No request is made.
const stripe = new Stripe('sk_test_compatibility_only');

const jsonBody = fc
  .dictionary(fc.string({ maxLength: 10 }), fc.oneof(fc.string(), fc.integer(), fc.boolean()))
  .map((object) => JSON.stringify({ id: 'evt_1', object: 'event', ...object }));
const secret = fc.string({ minLength: 1, maxLength: 40 }).map((value) => `whsec_${value}`);

describe.each(entries)('Stripe compatibility, $name entry', (entry) => {
  it("verifies headers made by Stripe's generateTestHeaderString", async () => {
    await fc.assert(
      fc.asyncProperty(
        jsonBody,
        secret,
        fc.integer({ min: 1, max: 4_000_000_000 }),
        async (payload, key, timestamp) => {
          fc.pre(key.isWellFormed() && payload.isWellFormed());
          const header = stripe.webhooks.generateTestHeaderString({
            payload,
            secret: key,
            timestamp,
          });
          await expect(
            entry.verifySignature(payload, header, { secret: key, now: timestamp }),
          ).resolves.toEqual({ timestamp, secretIndex: 0 });
          expect(
            await codeOf(
              entry.verifySignature(payload, header, { secret: `${key}x`, now: timestamp }),
            ),
          ).toBe('no_matching_signature');
        },
      ),
      { numRuns: 100 },
    );
  });

  it("produces headers that Stripe's constructEvent accepts", async () => {
    await fc.assert(
      fc.asyncProperty(jsonBody, secret, async (payload, key) => {
        fc.pre(key.isWellFormed() && payload.isWellFormed());
        const header = await entry.signPayload(payload, { secret: key });
        const event = stripe.webhooks.constructEvent(payload, header, key);
        expect(event).toEqual(JSON.parse(payload));
        expect(() => stripe.webhooks.constructEvent(payload, header, `${key}x`)).toThrow();
      }),
      { numRuns: 100 },
    );
  });

  it('is accepted by Stripe with bytes, and with several v1 entries (rotation)', async () => {
    const payload = Buffer.from('{"id":"evt_2","object":"event"}');
    const header = await entry.signPayload(payload, { secret: ['whsec_new', 'whsec_old'] });
    expect(stripe.webhooks.constructEvent(payload, header, 'whsec_new').id).toBe('evt_2');
    expect(stripe.webhooks.constructEvent(payload, header, 'whsec_old').id).toBe('evt_2');
  });
});
