import { describe, expect, it } from 'vitest';
import * as web from '../src/web.js';

describe('Web Crypto scratch buffer', () => {
  it('relies on crypto.subtle.sign copying its data before it returns', async () => {
    const key = await crypto.subtle.importKey(
      'raw',
      new TextEncoder().encode('k'),
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign'],
    );
    const data = new Uint8Array(4096).fill(7);
    const expected = new Uint8Array(await crypto.subtle.sign('HMAC', key, data.slice()));
    const pending = crypto.subtle.sign('HMAC', key, data);
    data.fill(9);
    expect(new Uint8Array(await pending)).toEqual(expected);
  });

  it('relies on crypto.subtle.verify copying its signature and data before it returns', async () => {
    const key = await crypto.subtle.importKey(
      'raw',
      new TextEncoder().encode('k'),
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign', 'verify'],
    );
    const data = new Uint8Array(4096).fill(7);
    const signature = new Uint8Array(await crypto.subtle.sign('HMAC', key, data));
    const pending = crypto.subtle.verify('HMAC', key, signature, data);
    data.fill(9);
    signature.fill(0);
    expect(await pending).toBe(true);
  });

  it('keeps concurrent verifications of different bodies apart', async () => {
    const now = 1_700_000_000;
    const secrets = ['whsec_a', 'whsec_b', new Uint8Array([1, 2, 3])];
    const cases = await Promise.all(
      Array.from({ length: 300 }, async (_, index) => {
        const body = new TextEncoder().encode(`{"n":${index},"pad":"${'x'.repeat(index * 37)}"}`);
        const secret = secrets[index % secrets.length] as string | Uint8Array;
        const header = await web.signPayload(body, { secret, timestamp: now });
        return { index, body, header, secret };
      }),
    );
    // Every body is verified against its own header (must pass) and its neighbour's (must fail),
    // all at once, with strings and bytes mixed.
    const outcomes = await Promise.all(
      cases.flatMap(({ index, body, header, secret }) => {
        const neighbour = cases[(index + 1) % cases.length]?.header as string;
        const payload = index % 2 ? new TextDecoder().decode(body) : body;
        return [
          web.safeVerifySignature(payload, header, { secret, now }).then((result) => result.ok),
          web
            .safeVerifySignature(payload, neighbour, { secret: secrets, now })
            .then((result) => !result.ok),
        ];
      }),
    );
    expect(outcomes.every(Boolean)).toBe(true);
  });
});
