import { webhookHeaderNameRefusal, webhookHeaderValueRefusal } from '@followup/sdk';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withStaticHeaders } from './static-headers.js';

const delivery = {
  'X-Service-Event': 'contact.created',
  'X-Service-Delivery': 'dlv_1',
  'X-Service-Signature': 't=1,v1=abc',
  'webhook-id': 'dlv_1',
  'webhook-timestamp': '1',
  'webhook-signature': 'v1,abc',
};

// A name that may collide with one of ours in any case, or be any other string.
const caseOf = (name: string) =>
  fc
    .array(fc.boolean(), { minLength: name.length, maxLength: name.length })
    .map((upper) =>
      [...name].map((char, index) => (upper[index] ? char.toUpperCase() : char)).join(''),
    );
const headerName = fc.oneof(
  fc.constantFrom(...Object.keys(delivery), 'Content-Type', 'Host', 'X-Tenant').chain(caseOf),
  fc.string({ maxLength: 20 }),
);
const headerValue = fc.oneof(fc.string({ maxLength: 40 }), fc.constant('a\r\nX-Smuggled: 1'));

describe('withStaticHeaders', () => {
  it("keeps the delivery's headers whatever the static ones, and only static ones the API accepts", () => {
    fc.assert(
      fc.property(fc.dictionary(headerName, headerValue, { maxKeys: 12 }), (statics) => {
        const merged = withStaticHeaders(statics, delivery);
        expect(merged).toMatchObject(delivery);
        const ours = new Set(Object.keys(delivery).map((name) => name.toLowerCase()));
        for (const [name, value] of Object.entries(merged)) {
          if (name in delivery) continue;
          expect(ours.has(name.toLowerCase())).toBe(false);
          expect(webhookHeaderNameRefusal(name)).toBeUndefined();
          expect(webhookHeaderValueRefusal(value)).toBeUndefined();
          expect(statics[name]).toBe(value);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('sends a valid static header as given, and tolerates a row with none', () => {
    expect(withStaticHeaders({ 'X-Tenant': 'north', 'X-Count': 3 }, delivery)).toEqual({
      'X-Tenant': 'north',
      ...delivery,
    });
    expect(withStaticHeaders(null, delivery)).toEqual(delivery);
  });
});
