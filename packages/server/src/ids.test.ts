import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createIdGenerator } from './ids.js';

const ulidPattern = /^[0-9A-HJKMNP-TV-Z]{26}$/;

function fixedRandom(byte: number) {
  return (bytes: Uint8Array) => bytes.fill(byte);
}

describe('createIdGenerator', () => {
  it('writes the prefix, then the time and the randomness in Crockford base32', () => {
    const newId = createIdGenerator({ now: () => 0, randomFill: fixedRandom(0) });
    expect(newId('con')).toBe('con_00000000000000000000000000');
    // The ULID specification's own example time.
    const later = createIdGenerator({ now: () => 1469918176385, randomFill: fixedRandom(255) });
    const id = later('tok');
    expect(id).toBe('tok_01ARYZ6S41ZZZZZZZZZZZZZZZZ');
    expect(id.slice(4)).toMatch(ulidPattern);
  });

  it('writes the random part as the 80 bits of its bytes in base32, whatever they are', () => {
    // The reference: the bytes as one 80-bit number, 5 bits a digit, most significant first.
    const reference = (bytes: Uint8Array) => {
      let bits = 0n;
      for (const byte of bytes) bits = (bits << 8n) | BigInt(byte);
      return bits.toString(32).toUpperCase().padStart(16, '0');
    };
    const crockford = (text: string) =>
      [...text].map((digit) => '0123456789ABCDEFGHJKMNPQRSTVWXYZ'[parseInt(digit, 32)]).join('');
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 10, maxLength: 10 }), (random) => {
        const newId = createIdGenerator({ now: () => 0, randomFill: (bytes) => bytes.set(random) });
        expect(newId('con').slice(-16)).toBe(crockford(reference(random)));
      }),
    );
  });

  it('increases strictly within one millisecond and when the clock steps back', () => {
    const times = [1000, 1000, 1000, 999, 1001];
    let call = 0;
    const newId = createIdGenerator({
      now: () => times[call++] ?? 1001,
      randomFill: fixedRandom(7),
    });
    const ids = times.map(() => newId('aud'));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('carries into the time when the random part overflows', () => {
    const newId = createIdGenerator({ now: () => 5, randomFill: fixedRandom(255) });
    const first = newId('aud');
    const second = newId('aud');
    expect(second > first).toBe(true);
    expect(second.slice(4, 14)).toBe('0000000006');
  });

  it('sorts by time whatever the randomness', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 48 - 2 }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.uint8Array({ minLength: 10, maxLength: 10 }),
        fc.uint8Array({ minLength: 10, maxLength: 10 }),
        (time, step, a, b) => {
          const earlier = createIdGenerator({ now: () => time, randomFill: (x) => x.set(a) });
          const later = createIdGenerator({
            now: () => Math.min(time + step, 2 ** 48 - 1),
            randomFill: (x) => x.set(b),
          });
          return earlier('con') < later('con');
        },
      ),
    );
  });

  it('is unique over many ids with real randomness', () => {
    const newId = createIdGenerator({ now: () => 1 });
    const ids = Array.from({ length: 10_000 }, () => newId('msg'));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('refuses a clock outside what a ULID can hold', () => {
    expect(() => createIdGenerator({ now: () => -1 })('con')).toThrow(RangeError);
    expect(() => createIdGenerator({ now: () => 2 ** 48 })('con')).toThrow(RangeError);
  });

  it('draws fresh random bytes for every new millisecond, across refills of its pool', () => {
    // The default source hands out 1 KB of random bytes 10 at a time; none may be given twice.
    let time = 1_700_000_000_000;
    const newId = createIdGenerator({ now: () => time++ });
    const randomParts = new Set<string>();
    for (let index = 0; index < 1_000; index++) randomParts.add(newId('con').slice(-16));
    expect(randomParts.size).toBe(1_000);
  });
});
