import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { outcome, verificationCall } from '../test/fast-path-cases.js';
import {
  signPayload,
  verifyCanonicalSignature,
  verifySignature,
  verifySignatureGeneralPath,
} from './node-crypto.js';
import {
  canonicalPrefixLength,
  parseSignatureHeader,
  readCanonicalSignatureHeader,
} from './signature-header.js';

const T = 1_700_000_000;
const SECRET = 'whsec_fast_path_0123456789abcdef';
const BODY = '{"id":"dlv_1","event":"contact.created"}';

describe('the fast path of verifySignature', () => {
  it('reads the canonical header as the general parser does, or declines', () => {
    const digest = new Uint8Array(32);
    const prefix = new Uint8Array(13);
    const headerish = fc.oneof(
      fc
        .tuple(
          fc.oneof(
            fc.integer({ min: 0, max: 999_999_999_999 }).map(String),
            fc.stringMatching(/^[0-9]{1,13}$/),
            fc.string({ maxLength: 14 }),
          ),
          fc.oneof(fc.stringMatching(/^[0-9a-fA-F]{62,66}$/), fc.string({ maxLength: 70 })),
          fc.constantFrom(',v1=', ',v1 =', ', v1=', ',v2=', 'v1=', ',V1='),
        )
        .map(([t, hex, separator]) => `t=${t}${separator}${hex}`),
      fc.string({ maxLength: 90 }),
    );
    fc.assert(
      fc.property(headerish, (header) => {
        const timestamp = readCanonicalSignatureHeader(header, digest, prefix);
        if (timestamp === -1) return;
        const parsed = parseSignatureHeader(header, 'X-Service-Signature', {
          canonicalFastPath: false,
        });
        expect(parsed).toEqual({ timestamp, signatures: [digest] });
        const prefixText = Buffer.from(prefix.subarray(0, canonicalPrefixLength(header))).toString(
          'latin1',
        );
        expect(prefixText).toBe(`${timestamp}.`);
      }),
      { numRuns: 5000 },
    );
  });

  it('takes the canonical form with a cached secret, and declines everything else', () => {
    const header = signPayload(BODY, { secret: SECRET, timestamp: T });
    expect(verifyCanonicalSignature(BODY, header, { secret: SECRET, now: T })).toEqual({
      timestamp: T,
      secretIndex: 0,
    });
    expect(
      verifyCanonicalSignature(
        Buffer.from(BODY),
        { 'x-service-signature': header },
        {
          secret: SECRET,
          now: T + 300,
        },
      ),
    ).toEqual({ timestamp: T, secretIndex: 0 });
    // Failures, rotations and never-seen secrets are left to the general path.
    expect(
      verifyCanonicalSignature(`${BODY} `, header, { secret: SECRET, now: T }),
    ).toBeUndefined();
    expect(verifyCanonicalSignature(BODY, header, { secret: SECRET, now: T - 300 })).toBeDefined();
    expect(
      verifyCanonicalSignature(BODY, header, { secret: SECRET, now: T + 301 }),
    ).toBeUndefined();
    expect(
      verifyCanonicalSignature(BODY, header, { secret: SECRET, now: T - 301 }),
    ).toBeUndefined();
    expect(
      verifyCanonicalSignature(BODY, header, {
        secret: SECRET,
        now: T + 301,
        ignoreTimestamp: true,
      }),
    ).toBeDefined();
    expect(verifyCanonicalSignature(BODY, header, { secret: [SECRET], now: T })).toBeUndefined();
    // Options the general path refuses with a RangeError are left to it, at their edges too.
    const late = signPayload(BODY, { secret: SECRET, timestamp: 99_999_999_999 });
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
      verifyCanonicalSignature(BODY, header, { secret: 'whsec_never_seen_before', now: T }),
    ).toBeUndefined();
    expect(
      verifyCanonicalSignature(
        BODY,
        header.toUpperCase().replace('T=', 't=').replace('V1=', 'v1='),
        {
          secret: SECRET,
          now: T,
        },
      ),
    ).toBeUndefined();
  });

  it('gives the same outcome as the general path, for arbitrary and near-miss input', () => {
    let fastHits = 0;
    fc.assert(
      fc.property(verificationCall, (args) => {
        const general = outcome(() => verifySignatureGeneralPath(...args));
        const fast = verifyCanonicalSignature(...args);
        if (fast !== undefined) {
          fastHits++;
          expect({ ok: fast }).toEqual(general);
        }
        expect(outcome(() => verifySignature(...args))).toEqual(general);
      }),
      { numRuns: 4000 },
    );
    // The property is only worth something if the fast path was taken often.
    expect(fastHits).toBeGreaterThan(250);
  });
});
