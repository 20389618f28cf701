import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  APIError,
  AuthenticationError,
  ConflictError,
  FollowUp,
  InternalServerError,
  NotFoundError,
  NotImplementedError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitError,
  ValidationError,
} from '../src/index.js';
import { type Fixture, SERVICE_ACCOUNT_ID, startFixture } from './fixture-server.js';
import { clientFor } from './helpers.js';

let fixture: Fixture;
beforeAll(async () => {
  fixture = await startFixture({ contacts: 1 });
});
afterAll(() => fixture.close());
afterEach(() => {
  expect(fixture.pendingScripts()).toBe(0);
});

const cases = [
  [400, 'validation_failed', ValidationError],
  [401, 'token_expired', AuthenticationError],
  [403, 'forbidden', PermissionDeniedError],
  [404, 'not_found', NotFoundError],
  [409, 'idempotency_conflict', ConflictError],
  [413, 'payload_too_large', PayloadTooLargeError],
  [429, 'rate_limited', RateLimitError],
  [501, 'vendor_not_supported', NotImplementedError],
  [500, 'internal', InternalServerError],
  [502, 'bad_gateway', InternalServerError],
  [503, 'unavailable', InternalServerError],
  [504, 'gateway_timeout', InternalServerError],
  [418, 'teapot', APIError],
  [405, 'method_not_allowed', APIError],
] as const;

describe('every status maps to its error class', () => {
  it.each(cases)('%i %s', async (status, code, ErrorClass) => {
    const { client } = clientFor(fixture, { maxRetries: 0 });
    fixture.script('GET', '/api/contacts/con_x', {
      status,
      headers: { 'retry-after': '7' },
      body: {
        type: `https://followup.example.com/problems/${code}`,
        title: 'Title',
        status,
        detail: 'What went wrong',
        code,
        requestId: 'req_from_body',
        ...(code === 'validation_failed'
          ? { errors: [{ path: 'firstName', message: 'Required' }] }
          : {}),
      },
    });
    const error = await client.contacts.get('con_x').catch((caught: unknown) => caught);
    expect(ErrorClass.isInstance(error)).toBe(true);
    expect((error as object).constructor).toBe(ErrorClass);
    const apiError = error as APIError;
    expect(apiError).toMatchObject({
      status,
      code,
      method: 'GET',
      url: `${fixture.baseUrl}/api/contacts/con_x`,
      body: { detail: 'What went wrong', code },
    });
    expect(apiError.requestId).toMatch(/^req_/);
    expect(apiError.requestId).toBe(apiError.headers.get('x-request-id'));
    expect(apiError.message).toContain(`${status} Title: What went wrong (${code}`);
    if (ErrorClass === ValidationError) {
      expect((error as ValidationError).errors).toEqual([
        { path: 'firstName', message: 'Required' },
      ]);
    }
    if (ErrorClass === RateLimitError) expect((error as RateLimitError).retryAfterMs).toBe(7000);
  });

  it('uses http_<status> and the status text when the body is not problem+json', async () => {
    const { client } = clientFor(fixture, { maxRetries: 0 });
    fixture.script('GET', '/api/contacts/con_x', {
      status: 502,
      headers: { 'content-type': 'text/html' },
      body: '<html>Bad gateway</html>',
    });
    const error = (await client.contacts
      .get('con_x')
      .catch((caught: unknown) => caught)) as APIError;
    expect(InternalServerError.isInstance(error)).toBe(true);
    expect(error.code).toBe('http_502');
    expect(error.body).toBeUndefined();
    expect(error.message).toContain('502 Bad Gateway');
  });

  it('reports the real server answers: token_missing and token_invalid', async () => {
    const wrong = new FollowUp({
      token: `hns_${SERVICE_ACCOUNT_ID}.wrongsecret`,
      baseUrl: fixture.baseUrl,
      maxRetries: 0,
    });
    const error = (await wrong.contacts.list().catch((caught: unknown) => caught)) as APIError;
    expect(AuthenticationError.isInstance(error)).toBe(true);
    expect(error.code).toBe('token_invalid');

    const { client } = clientFor(fixture);
    const anonymous = await fetch(`${fixture.baseUrl}/api/contacts?limit=1`);
    expect(anonymous.status).toBe(401);
    const body = (await anonymous.json()) as { code: string };
    expect(body.code).toBe('token_missing');
    await expect(client.contacts.list({ limit: 1 })).resolves.toBeDefined();
  });
});
