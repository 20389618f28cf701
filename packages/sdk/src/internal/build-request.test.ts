import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../follow-up-error.js';
import { buildRequest, buildUrl, type RequestDefaults } from './build-request.js';

const defaults: RequestDefaults = {
  baseUrl: 'https://api.example.com',
  authorization: 'Bearer hns_sa_x.c2VjcmV0',
  timeout: 30_000,
  maxRetries: 2,
  clientHeaders: { 'x-followup-client': '@followup/sdk/1.0.0 node/24.0.0' },
  defaultHeaders: { 'x-tenant': 'default', 'x-app': 'crm' },
  defaultQuery: { region: 'eu' },
  signal: undefined,
};

describe('buildUrl', () => {
  it("puts the client's default query first, then the call's, then the query option", () => {
    expect(
      buildUrl(
        'https://h/api/contacts',
        { region: 'eu', a: '1' },
        { limit: 2, a: '2' },
        { a: '3' },
      ),
    ).toBe('https://h/api/contacts?region=eu&a=3&limit=2');
  });

  it('repeats a list parameter and leaves out undefined ones', () => {
    expect(buildUrl('https://h/x', {}, { stage: ['OPEN', 'WON'], q: undefined, flag: true })).toBe(
      'https://h/x?stage=OPEN&stage=WON&flag=true',
    );
  });

  it('encodes every name and value so that URLSearchParams reads them back unchanged', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1 }), fc.string()), (query) => {
        const url = new URL(buildUrl('https://h/x', {}, query));
        expect(Object.fromEntries(url.searchParams)).toEqual(query);
      }),
    );
  });
});

describe('buildRequest', () => {
  it("layers headers: ours, the client's defaults, the call's, the caller's; the client's own last", () => {
    const built = buildRequest(defaults, {
      method: 'POST',
      path: '/api/contacts',
      body: { firstName: 'Ada' },
      headers: { 'x-app': 'inbox' },
      options: {
        headers: {
          'X-Tenant': 'call',
          Authorization: 'Bearer other',
          'Content-Type': 'text/plain',
        },
        idempotencyKey: 'key-1',
      },
    });
    expect(built.headers).toEqual({
      accept: 'application/json',
      'x-followup-client': '@followup/sdk/1.0.0 node/24.0.0',
      'x-tenant': 'call',
      'x-app': 'inbox',
      authorization: 'Bearer hns_sa_x.c2VjcmV0',
      'content-type': 'application/json',
      'idempotency-key': 'key-1',
    });
    expect(built.body).toBe('{"firstName":"Ada"}');
    expect(built.url).toBe('https://api.example.com/api/contacts?region=eu');
  });

  it('gives every POST an idempotency key, a new one per call, and no other method one', () => {
    const first = buildRequest(defaults, { method: 'POST', path: '/api/contacts', body: {} });
    const second = buildRequest(defaults, { method: 'POST', path: '/api/contacts', body: {} });
    expect(first.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.headers['idempotency-key']).not.toBe(second.headers['idempotency-key']);
    const patch = buildRequest(defaults, { method: 'PATCH', path: '/api/contacts/c', body: {} });
    expect(patch.headers['idempotency-key']).toBeUndefined();
  });

  it('sends no token when the call authenticates otherwise', () => {
    const built = buildRequest(defaults, { method: 'GET', path: '/x', authenticate: false });
    expect(built.headers.authorization).toBeUndefined();
  });

  it("takes the call's timeout, retries and signal over the client's", () => {
    const signal = new AbortController().signal;
    const clientSignal = new AbortController().signal;
    const built = buildRequest(
      { ...defaults, signal: clientSignal },
      { method: 'GET', path: '/x', options: { timeout: 5, maxRetries: 0, signal } },
    );
    expect([built.timeout, built.maxRetries, built.signals]).toEqual([
      5,
      0,
      [clientSignal, signal],
    ]);
  });

  it('refuses an option out of range before anything is sent', () => {
    for (const options of [
      { timeout: 0 },
      { maxRetries: 11 },
      { idempotencyKey: 'has space' },
      { headers: { 'x-a': 'line\nbreak' } },
      { query: 'limit=2' as never },
    ]) {
      expect(() => buildRequest(defaults, { method: 'POST', path: '/x', options })).toThrow(
        ConfigurationError,
      );
    }
  });
});
