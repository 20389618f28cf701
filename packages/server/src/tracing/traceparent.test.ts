import { TraceFlags } from '@opentelemetry/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatTraceparent, parseTraceparent } from './traceparent.js';

const hex = (length: number) =>
  fc
    .array(fc.constantFrom(...'0123456789abcdef'), { minLength: length, maxLength: length })
    .map((digits) => digits.join(''));
const validId = (length: number) => hex(length).filter((id) => /[^0]/.test(id));

describe('traceparent', () => {
  it('reads back every span context it writes, with its sampled flag', () => {
    fc.assert(
      fc.property(validId(32), validId(16), fc.boolean(), (traceId, spanId, sampled) => {
        const traceFlags = sampled ? TraceFlags.SAMPLED : TraceFlags.NONE;
        const text = formatTraceparent({ traceId, spanId, traceFlags });
        expect(text).toBe(`00-${traceId}-${spanId}-${sampled ? '01' : '00'}`);
        expect(parseTraceparent(text)).toEqual({ traceId, spanId, traceFlags, isRemote: true });
      }),
    );
  });

  it('never throws, and accepts only the lower-case version-00 grammar with non-zero ids', () => {
    const traceparentLike = fc
      .tuple(
        fc.constantFrom('00', '01', 'ff', '0'),
        fc.oneof(
          hex(32),
          hex(32).map((id) => id.toUpperCase()),
          hex(31),
        ),
        fc.oneof(hex(16), fc.constant('0'.repeat(16)), hex(17)),
        hex(2),
      )
      .map((parts) => parts.join('-'));
    fc.assert(
      fc.property(fc.oneof(fc.string(), traceparentLike), (text) => {
        const parsed = parseTraceparent(text);
        if (parsed === undefined) return;
        expect(text).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/);
        expect(text.slice(3, 35)).not.toBe('0'.repeat(32));
        expect(text.slice(36, 52)).not.toBe('0'.repeat(16));
        const sampled = Number.parseInt(text.slice(53), 16) & 1;
        expect(formatTraceparent(parsed)).toBe(`${text.slice(0, 53)}0${sampled}`);
      }),
    );
    for (const text of [
      '',
      '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
      '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01',
      '00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01',
      '01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra',
      ' 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    ]) {
      expect(parseTraceparent(text)).toBeUndefined();
    }
    expect(parseTraceparent(null)).toBeUndefined();
  });

  it('writes nothing for the invalid context of the no-op tracer', () => {
    expect(
      formatTraceparent({ traceId: '0'.repeat(32), spanId: '0'.repeat(16), traceFlags: 0 }),
    ).toBeUndefined();
  });
});
