import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codeOfSync } from '../test/entries.js';
import { WebhookVerificationError } from './errors.js';
import {
  MAX_SIGNATURE_HEADER_ENTRIES,
  MAX_SIGNATURE_HEADER_LENGTH,
  parseHexDigestHeader,
  parseSignatureHeader,
} from './signature-header.js';

const HEX = 'a'.repeat(64);
const OTHER = 'b'.repeat(64);
const bytes = (hex: string) => new Uint8Array(Buffer.from(hex, 'hex'));

const codeOf = codeOfSync;

const parse = (header: unknown) => parseSignatureHeader(header, 'X-Service-Signature');

describe('parseSignatureHeader', () => {
  it('reads t and every v1, in order', () => {
    expect(parse(`t=1700000000,v1=${HEX},v1=${OTHER}`)).toEqual({
      timestamp: 1700000000,
      signatures: [bytes(HEX), bytes(OTHER)],
    });
  });

  it('allows spaces and tabs around "," and "=", and skips unknown schemes', () => {
    expect(parse(` t = 12 ,\tv0=zzz, v1 =\t${HEX}\t, v2=a=b= `)).toEqual({
      timestamp: 12,
      signatures: [bytes(HEX)],
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
    ['v1 with control characters that fold onto digits', `t=1,v1=${'\u0011'.repeat(64)}`],
    ['v1 with "@" and "`" beside the letter ranges', `t=1,v1=${'@'.repeat(32)}${'`'.repeat(32)}`],
    ['an entry without "="', `t=1,v1=${HEX},oops`],
    ['an empty entry', `t=1,,v1=${HEX}`],
    ['an entry with an empty name', `t=1,=x,v1=${HEX}`],
    ['too many entries', `t=1${`,v1=${HEX}`.repeat(MAX_SIGNATURE_HEADER_ENTRIES)}`],
    ['too long', `t=1,v1=${HEX},x=${'y'.repeat(MAX_SIGNATURE_HEADER_LENGTH)}`],
    ['not a string', 42],
  ])('refuses %s as malformed_header', (_name, header) => {
    expect(codeOf(() => parse(header))).toBe('malformed_header');
  });

  it('accepts exactly the 22 hexadecimal characters in a digest', () => {
    for (let code = 0; code < 0x3000; code++) {
      const character = String.fromCharCode(code);
      const header = `t=1,v1=${character.repeat(64)}`;
      const accepted = /^[0-9a-fA-F]$/.test(character);
      expect(
        codeOf(() => {
          parse(header);
          throw new WebhookVerificationError({ code: 'missing_header', message: 'ok' });
        }),
      ).toBe(accepted ? 'missing_header' : 'malformed_header');
    }
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

  it('reads the canonical form alike on the fast and the general path', () => {
    const general = (header: unknown) =>
      parseSignatureHeader(header, 'X-Service-Signature', { canonicalFastPath: false });
    const outcome = (run: () => unknown) => {
      try {
        return run();
      } catch (error) {
        return (error as { code?: string }).code;
      }
    };
    const nearCanonical = fc
      .tuple(
        fc.oneof(
          fc.integer({ min: 0, max: 999_999_999_999 }).map(String),
          fc.string({ maxLength: 14 }),
        ),
        fc.oneof(fc.stringMatching(/^[0-9a-fA-F]{62,66}$/), fc.string({ maxLength: 70 })),
        fc.constantFrom(',v1=', ',v1 =', ', v1=', ',v2=', 'v1='),
      )
      .map(([t, hex, separator]) => `t=${t}${separator}${hex}`);
    fc.assert(
      fc.property(nearCanonical, (header) => {
        expect(outcome(() => parse(header))).toEqual(outcome(() => general(header)));
      }),
      { numRuns: 3000 },
    );
    expect(parse(`t=0012,v1=${HEX}`)).toEqual(general(`t=0012,v1=${HEX}`));
    const mixed = '0123456789abcdefABCDEF'.repeat(3).slice(0, 64);
    expect(parse(`t=7,v1=${mixed}`)).toEqual({ timestamp: 7, signatures: [bytes(mixed)] });
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
          for (const signature of parsed.signatures) expect(signature).toHaveLength(32);
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
    expect(parseHexDigestHeader(` sha256=${HEX} `, 'x-hub-signature', 'sha256=')).toEqual(
      bytes(HEX),
    );
    expect(parseHexDigestHeader(OTHER.toUpperCase(), 'x-metriport-signature', '')).toEqual(
      bytes(OTHER),
    );
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
