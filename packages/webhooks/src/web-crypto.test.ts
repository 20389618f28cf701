import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { outcomeOf, verificationCall } from '../test/fast-path-cases.js';
import {
  signPayload,
  verifyCanonicalSignature,
  verifySignature,
  verifySignatureGeneralPath,
} from './web-crypto.js';

const T = 1_700_000_000;
const SECRET = 'whsec_web_fast_path_0123456789abcdef';
const BODY = '{"id":"dlv_1","event":"contact.created"}';

describe('the fast path of the Web Crypto verifySignature', () => {
  it('takes the canonical form once the key is imported, and declines everything else', async () => {
    const header = await signPayload(BODY, { secret: SECRET, timestamp: T });
    const bytes = new TextEncoder().encode(BODY);
    for (const payload of [BODY, bytes, bytes.buffer]) {
      expect(await verifyCanonicalSignature(payload, header, { secret: SECRET, now: T })).toEqual({
        timestamp: T,
        secretIndex: 0,
      });
    }
    expect(
      await verifyCanonicalSignature(BODY, new Headers({ 'X-Service-Signature': header }), {
        secret: SECRET,
        now: T - 300,
      }),
    ).toEqual({ timestamp: T, secretIndex: 0 });
    expect(
      verifyCanonicalSignature(BODY, header, { secret: SECRET, now: T + 301 }),
    ).toBeUndefined();
    expect(
      verifyCanonicalSignature(BODY, header, { secret: SECRET, now: T - 301 }),
    ).toBeUndefined();
    expect(verifyCanonicalSignature(BODY, header, { secret: [SECRET], now: T })).toBeUndefined();
    // Options the general path refuses with a RangeError are left to it, at their edges too.
    const late = await signPayload(BODY, { secret: SECRET, timestamp: 99_999_999_999 });
    for (const now of [1e11, Number.NaN, -1, new Date(T * 1000)]) {
      expect(verifyCanonicalSignature(BODY, late, { secret: SECRET, now })).toBeUndefined();
    }
    expect(
      verifyCanonicalSignature(BODY, late, { secret: SECRET, now: 99_999_999_999.5 }),
    ).toBeDefined();
    for (const tolerance of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(
        verifyCanonicalSignature(BODY, header, { secret: SECRET, now: T, tolerance }),
      ).toBeUndefined();
    }
    expect(
      verifyCanonicalSignature(BODY, header, { secret: 'whsec_never_imported', now: T }),
    ).toBeUndefined();
    // A signature that does not match is handed to the general path, which rejects.
    await expect(
      verifyCanonicalSignature(`${BODY} `, header, { secret: SECRET, now: T }),
    ).rejects.toMatchObject({ code: 'no_matching_signature' });
  });

  it('gives the same outcome as the general path, for arbitrary and near-miss input', async () => {
    let fastHits = 0;
    await fc.assert(
      fc.asyncProperty(verificationCall, async (args) => {
        // The general path goes first: it imports the key, as a first verification would.
        const general = await outcomeOf(verifySignatureGeneralPath(...args));
        const fast = verifyCanonicalSignature(...args);
        if (fast !== undefined) {
          fastHits++;
          expect(await outcomeOf(fast)).toEqual(general);
        }
        expect(await outcomeOf(verifySignature(...args))).toEqual(general);
      }),
      { numRuns: 2000 },
    );
    // The property is only worth something if the fast path was taken often.
    expect(fastHits).toBeGreaterThan(150);
  });

  it('rejects rather than throws, whatever the input', async () => {
    const throwing = {
      get secret(): string {
        throw new Error('getter');
      },
    };
    const result = verifySignature(BODY, 't=1,v1=00', throwing);
    expect(result).toBeInstanceOf(Promise);
    await expect(result).rejects.toThrow('getter');
  });
});
