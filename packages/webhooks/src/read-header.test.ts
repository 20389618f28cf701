import { describe, expect, it } from 'vitest';
import { codeOfSync } from '../test/entries.js';
import { readHeader } from './read-header.js';

const codeOf = codeOfSync;

describe('readHeader', () => {
  it('reads a fetch Headers case-insensitively', () => {
    const headers = new Headers({ 'X-Service-Signature': 't=1,v1=aa' });
    expect(readHeader(headers, 'x-service-signature')).toBe('t=1,v1=aa');
    expect(readHeader(headers, 'X-SERVICE-SIGNATURE')).toBe('t=1,v1=aa');
    expect(readHeader(headers, 'x-other')).toBeUndefined();
  });

  it("reads Node's IncomingHttpHeaders (lower-case keys, arrays for repeated headers)", () => {
    expect(readHeader({ 'x-service-signature': 'v' }, 'X-Service-Signature')).toBe('v');
    expect(readHeader({ 'x-service-signature': ['v'] }, 'X-Service-Signature')).toBe('v');
    expect(readHeader({ 'x-service-signature': [] }, 'X-Service-Signature')).toBeUndefined();
    expect(readHeader({ 'x-service-signature': undefined }, 'X-Service-Signature')).toBeUndefined();
  });

  it('reads a plain record whatever the case of its keys', () => {
    expect(readHeader({ 'X-Service-Signature': 'v' }, 'x-service-signature')).toBe('v');
    expect(readHeader({ 'x-SERVICE-signature': 'v' }, 'X-Service-Signature')).toBe('v');
  });

  it('refuses a header given twice', () => {
    expect(codeOf(() => readHeader({ 'X-Sig': 'a', 'x-sig': 'b' }, 'x-sig'))).toBe(
      'malformed_header',
    );
    expect(codeOf(() => readHeader({ 'x-sig': ['a', 'b'] }, 'x-sig'))).toBe('malformed_header');
  });

  it('refuses values that are not strings, and a missing headers object', () => {
    expect(codeOf(() => readHeader({ 'x-sig': 42 } as never, 'x-sig'))).toBe('malformed_header');
    expect(codeOf(() => readHeader({ 'x-sig': [42] } as never, 'x-sig'))).toBe('malformed_header');
    expect(codeOf(() => readHeader(undefined as never, 'x-sig'))).toBe('missing_header');
    expect(codeOf(() => readHeader(null as never, 'x-sig'))).toBe('missing_header');
  });

  it('does not find inherited properties', () => {
    expect(readHeader({}, 'constructor')).toBeUndefined();
    expect(readHeader({}, '__proto__')).toBeUndefined();
  });
});
