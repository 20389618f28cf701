import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WebhookVerificationError } from '../errors.js';
import {
  MAX_SIGNATURE_HEADER_ENTRIES,
  MAX_SIGNATURE_HEADER_LENGTH,
  parseHexDigestHeader,
  parseSignatureHeader,
} from './parse-signature-header.js';

const HEX = 'a'.repeat(64);
const OTHER = 'b'.repeat(64);

function codeOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (WebhookVerificationError.isInstance(error)) return error.code;
    throw error;
  }
  throw new Error('expected a WebhookVerificationError');
}

const parse = (header: unknown) => parseSignatureHeader(header, 'X-Service-Signature');

describe('parseSignatureHeader', () => {
  it('reads t and every v1, in order', () => {
    expect(parse(`t=1700000000,v1=${HEX},v1=${OTHER}`)).toEqual({
      timestamp: 1700000000,
      signatures: [HEX, OTHER],
    });
  });

  it('allows spaces and tabs around "," and "=", and skips unknown schemes', () => {
    expect(parse(` t = 12 ,\tv0=zzz, v1 =\t${HEX}\t, v2=a=b= `)).toEqual({
      timestamp: 12,
      signatures: [HEX],
    });
  });

  it.each([
    ['no t', `v1=${HEX}`],
    ['t twice', `t=1,t=1,v1=${HEX}`],
    ['t negative', `t=-1,v1=${HEX}`],
    ['t with a sign', `t=+1,v1=${HEX}`],
    ['t fractional', `t=1.5,v1=${HEX}`],
    ['t too long', `t=1234567890123,v1=${HEX}`],
    ['t with inner space', `t=1 2,v1=${HEX}`],
    ['t with a newline', `t=1\n,v1=${HEX}`],
    ['t with full-width digits', `t=１２,v1=${HEX}`],
    ['v1 of 63 characters', `t=1,v1=${HEX.slice(1)}`],
    ['v1 of 65 characters', `t=1,v1=${HEX}a`],
    ['v1 not hex', `t=1,v1=${'z'.repeat(64)}`],
    ['an entry without "="', `t=1,v1=${HEX},oops`],
    ['an empty entry', `t=1,,v1=${HEX}`],
    ['an entry with an empty name', `t=1,=x,v1=${HEX}`],
    ['too many entries', `t=1${`,v1=${HEX}`.repeat(MAX_SIGNATURE_HEADER_ENTRIES)}`],
    ['too long', `t=1,v1=${HEX},x=${'y'.repeat(MAX_SIGNATURE_HEADER_LENGTH)}`],
    ['not a string', 42],
  ])('refuses %s as malformed_header', (_name, header) => {
    expect(codeOf(() => parse(header))).toBe('malformed_header');
  });

  it('tells a missing or empty header apart', () => {
    expect(codeOf(() => parse(undefined))).toBe('missing_header');
    expect(codeOf(() => parse(null))).toBe('missing_header');
    expect(codeOf(() => parse(''))).toBe('missing_header');
    expect(codeOf(() => parse(' \t '))).toBe('missing_header');
  });

  it('says no_matching_signature when only other schemes are present', () => {
    expect(codeOf(() => parse(`t=1,v0=${HEX}`))).toBe('no_matching_signature');
  });

  it('throws nothing but WebhookVerificationError on arbitrary input', () => {
    const headerish = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.string({ unit: 'binary', maxLength: 300 }),
      fc
        .array(
          fc.tuple(
            fc.constantFrom('t', 'v1', 'v0', ' t', 'v1 ', '', 'T', 'V1'),
            fc.oneof(fc.string({ maxLength: 80 }), fc.stringMatching(/^[0-9a-fA-F]{60,66}$/)),
          ),
          { maxLength: 40 },
        )
        .map((entries) => entries.map(([key, value]) => `${key}=${value}`).join(',')),
    );
    fc.assert(
      fc.property(headerish, (header) => {
        try {
          const parsed = parse(header);
          expect(Number.isSafeInteger(parsed.timestamp)).toBe(true);
          expect(parsed.signatures.length).toBeGreaterThan(0);
          for (const signature of parsed.signatures) expect(signature).toMatch(/^[0-9a-f]{64}$/i);
        } catch (error) {
          expect(WebhookVerificationError.isInstance(error)).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('parseHexDigestHeader', () => {
  it('strips the prefix and surrounding whitespace', () => {
    expect(parseHexDigestHeader(` sha256=${HEX} `, 'x-hub-signature', 'sha256=')).toBe(HEX);
    expect(parseHexDigestHeader(HEX, 'x-metriport-signature', '')).toBe(HEX);
  });

  it('refuses a wrong prefix, a short digest or a missing header', () => {
    expect(codeOf(() => parseHexDigestHeader(`sha1=${HEX}`, 'h', 'sha256='))).toBe(
      'malformed_header',
    );
    expect(codeOf(() => parseHexDigestHeader(HEX.slice(2), 'h', ''))).toBe('malformed_header');
    expect(codeOf(() => parseHexDigestHeader(`${HEX}, ${HEX}`, 'h', ''))).toBe('malformed_header');
    expect(codeOf(() => parseHexDigestHeader(undefined, 'h', ''))).toBe('missing_header');
  });
});
