import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { declaredLength, readWebBody } from './webhook-body.js';

describe('declaredLength', () => {
  it('reads every Content-Length of up to 16 digits as its number, spaces around aside', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), fc.boolean(), (n, pad) => {
        const header = pad ? ` ${n} ` : String(n);
        expect(declaredLength(header)).toBe(n);
      }),
    );
  });

  it('gives undefined for a header that is not a plain byte count', () => {
    fc.assert(
      fc.property(
        fc.string().filter((value) => !/^\d{1,16}$/.test(value.trim())),
        (value) => {
          expect(declaredLength(value)).toBeUndefined();
        },
      ),
    );
    expect(declaredLength(null)).toBeUndefined();
    expect(declaredLength(undefined)).toBeUndefined();
    expect(declaredLength('-1')).toBeUndefined();
    expect(declaredLength('1e3')).toBeUndefined();
  });
});

describe('readWebBody', () => {
  it('returns the bytes of a body at the limit, and too_large one byte past it', async () => {
    const body = (length: number) =>
      new Request('https://receiver.example/hook', { method: 'POST', body: 'x'.repeat(length) });
    expect(await readWebBody(body(8), 8)).toEqual(new TextEncoder().encode('x'.repeat(8)));
    expect(await readWebBody(body(9), 8)).toBe('too_large');
  });
});
