import { describe, expect, it } from 'vitest';
import { boundedMemo } from './bounded-memo.js';

describe('boundedMemo', () => {
  it('computes a key once while it is remembered, and never holds more than its bound', () => {
    const computed: string[] = [];
    const upper = boundedMemo((key) => {
      computed.push(key);
      return key.toUpperCase();
    }, 2);
    expect(upper('a')).toBe('A');
    expect(upper('a')).toBe('A');
    expect(upper('b')).toBe('B');
    expect(computed).toEqual(['a', 'b']);
    // A third key starts the memory anew: 'a' is computed again afterwards, with the same answer.
    expect(upper('c')).toBe('C');
    expect(upper('a')).toBe('A');
    expect(computed).toEqual(['a', 'b', 'c', 'a']);
  });
});
