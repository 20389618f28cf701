import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { isNetworkError } from './network-error.js';

describe('isNetworkError', () => {
  it.each([
    'fetch failed',
    'terminated',
    'Failed to fetch',
    'Failed to fetch (api.example.com)',
    'NetworkError when attempting to fetch resource.',
    'Load failed',
    'Network connection lost',
    'error sending request for url (http://127.0.0.1:1/api/contacts): client error (Connect)',
  ])('recognises %j from a runtime fetch', (message) => {
    expect(isNetworkError(new TypeError(message))).toBe(true);
  });

  it('recognises a TypeError from another realm', () => {
    const foreign = runInNewContext('new TypeError("fetch failed")');
    expect(foreign instanceof TypeError).toBe(false);
    expect(isNetworkError(foreign)).toBe(true);
  });

  it.each([
    ['a TypeError fetch raises for a request it refuses to build', new TypeError('Invalid URL')],
    [
      'a header value fetch refuses',
      new TypeError('Headers.append: "a\nb" is an invalid header value.'),
    ],
    ['an Error with a network message', new Error('fetch failed')],
    ['an abort', new DOMException('This operation was aborted', 'AbortError')],
    ['a string', 'fetch failed'],
    ['null', null],
    ['a look-alike object', { name: 'TypeError', message: 'fetch failed' }],
  ])('refuses %s', (_label, error) => {
    expect(isNetworkError(error)).toBe(false);
  });
});
