import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WEBHOOK_ENDPOINT_LIMITS } from '../wire/limits.js';
import { isReservedWebhookHeader } from '../wire/webhook-headers.js';
import {
  createWebhookEndpointInputSchema,
  webhookHeaderNameRefusal,
  webhookHeadersInputSchema,
  webhookHeaderValueRefusal,
} from './webhook-endpoint-input.js';

const tokenCharacters =
  "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const headerName = fc
  .array(fc.constantFrom(...tokenCharacters), { minLength: 1, maxLength: 100 })
  .map((characters) => characters.join(''));

describe("an endpoint's static headers", () => {
  it('accepts every HTTP field name FollowUp does not set, and refuses the rest, whatever the case', () => {
    fc.assert(
      fc.property(headerName, (name) => {
        expect(webhookHeaderNameRefusal(name) === undefined).toBe(!isReservedWebhookHeader(name));
      }),
    );
    for (const name of [
      'X-Service-Signature',
      'x-service-event',
      'X-SERVICE-DELIVERY',
      'Content-Type',
      'Webhook-Id',
      'webhook-signature',
      'webhook-anything',
      'Host',
      'Transfer-Encoding',
    ]) {
      expect(webhookHeaderNameRefusal(name), name).toContain('set by FollowUp');
    }
  });

  it('refuses any name with a character outside the token grammar, and any over 100', () => {
    fc.assert(
      fc.property(
        headerName,
        fc.constantFrom(' ', ':', '\r', '\n', '\u0000', '"', '(', 'é', '/'),
        (name, bad) => {
          expect(webhookHeaderNameRefusal(`${name}${bad}`)).toMatch(/^must be a header name/);
        },
      ),
    );
    expect(webhookHeaderNameRefusal('')).toMatch(/^must be a header name/);
    expect(webhookHeaderNameRefusal('x'.repeat(101))).toMatch(/^must be a header name/);
  });

  it('accepts values of visible ASCII, spaces and tabs up to 1,000, and nothing with a line break', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 1000 }), (value) => {
        const plain = /^[\t\x20-\x7e]*$/.test(value);
        expect(webhookHeaderValueRefusal(value) === undefined).toBe(plain);
      }),
    );
    fc.assert(
      fc.property(fc.string(), fc.constantFrom('\r', '\n', '\r\n'), fc.string(), (a, eol, b) => {
        expect(webhookHeaderValueRefusal(`${a}${eol}${b}`)).toBeDefined();
      }),
    );
    expect(webhookHeaderValueRefusal('v'.repeat(1001))).toBeDefined();
  });

  it('takes at most 10 headers, no name twice in any case, naming the one refused', () => {
    const eleven = Object.fromEntries(Array.from({ length: 11 }, (_, n) => [`X-H${n}`, 'v']));
    expect(webhookHeadersInputSchema.safeParse(eleven).success).toBe(false);
    const ten = Object.fromEntries(Array.from({ length: 10 }, (_, n) => [`X-H${n}`, 'v']));
    expect(webhookHeadersInputSchema.safeParse(ten).success).toBe(true);
    const twice = webhookHeadersInputSchema.safeParse({ 'X-A': '1', 'x-a': '2' });
    expect(twice.error?.issues.map((issue) => issue.path)).toEqual([['x-a']]);
  });
});

describe('the create body of an endpoint', () => {
  it('holds rateLimit, timeoutSeconds and subscriber to their bounds', () => {
    const parse = (fields: Record<string, unknown>) =>
      createWebhookEndpointInputSchema.safeParse({ url: 'https://x.example/', ...fields }).success;
    const { minRateLimit, maxRateLimit, minTimeoutSeconds, maxTimeoutSeconds } =
      WEBHOOK_ENDPOINT_LIMITS;
    fc.assert(
      fc.property(fc.integer({ min: -5000, max: 5000 }), (n) => {
        expect(parse({ rateLimit: n })).toBe(n >= minRateLimit && n <= maxRateLimit);
        expect(parse({ timeoutSeconds: n })).toBe(n >= minTimeoutSeconds && n <= maxTimeoutSeconds);
      }),
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (subscriber) => {
        expect(parse({ subscriber })).toBe(/^[a-z0-9_-]{1,64}$/.test(subscriber));
      }),
    );
  });
});
