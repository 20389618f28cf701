import { describe, expect, it } from 'vitest';
import { APIError, AuthenticationError, NotFoundError } from './api-errors.js';
import { ConfigurationError, FollowUpError } from './follow-up-error.js';
import { APIConnectionError, ResponseValidationError } from './request-errors.js';

function apiOptions(status: number) {
  return {
    message: 'm',
    status,
    code: 'c',
    requestId: 'req_1',
    method: 'GET',
    url: 'http://x/api',
    body: undefined,
    headers: new Headers(),
  };
}

describe('FollowUpError.isInstance', () => {
  it('recognises each class and its ancestors, and nothing else', () => {
    const notFound = new NotFoundError(apiOptions(404));
    expect(NotFoundError.isInstance(notFound)).toBe(true);
    expect(APIError.isInstance(notFound)).toBe(true);
    expect(FollowUpError.isInstance(notFound)).toBe(true);
    expect(AuthenticationError.isInstance(notFound)).toBe(false);
    expect(ConfigurationError.isInstance(notFound)).toBe(false);

    const configuration = new ConfigurationError({ message: 'bad' });
    expect(FollowUpError.isInstance(configuration)).toBe(true);
    expect(APIError.isInstance(configuration)).toBe(false);
    expect(configuration.code).toBe('configuration_invalid');
  });

  it('works unbound, as a callback', () => {
    const errors = [
      new NotFoundError(apiOptions(404)),
      new APIConnectionError({ message: 'm', method: 'GET', url: 'u' }),
      new Error('plain'),
    ];
    expect(errors.filter(NotFoundError.isInstance)).toHaveLength(1);
    expect(errors.filter(FollowUpError.isInstance)).toHaveLength(2);
  });

  it('says no to look-alikes and non-objects', () => {
    for (const value of [
      null,
      undefined,
      'FollowUpError',
      42,
      new Error('x'),
      { name: 'NotFoundError', status: 404 },
    ]) {
      expect(FollowUpError.isInstance(value)).toBe(false);
      expect(NotFoundError.isInstance(value)).toBe(false);
    }
  });

  it('recognises a brand made by another copy (same Symbol.for key)', () => {
    const foreign = new Error('from another copy');
    Object.defineProperty(foreign, Symbol.for('@followup/sdk.error'), {
      value: ['NotFoundError', 'APIError', 'FollowUpError'],
    });
    expect(NotFoundError.isInstance(foreign)).toBe(true);
    expect(FollowUpError.isInstance(foreign)).toBe(true);
    expect(ResponseValidationError.isInstance(foreign)).toBe(false);
  });

  it('keeps the brand out of enumerable properties and JSON', () => {
    const error = new NotFoundError(apiOptions(404));
    expect(Object.keys(error)).not.toContain(Symbol.for('@followup/sdk.error'));
    expect(JSON.stringify(error)).not.toContain('FollowUpError');
    expect(error.name).toBe('NotFoundError');
    expect(error.resumeFrom).toBeUndefined();
    expect(Object.hasOwn(error, 'resumeFrom')).toBe(false);
  });
});
