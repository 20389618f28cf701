import { describe, expect, it } from 'vitest';
import { ConflictError, NotImplementedError, RateLimitError } from '../api-errors.js';
import type { BuiltRequest } from './build-request.js';
import { classifyResponse } from './classify-response.js';

const request: BuiltRequest = {
  method: 'POST',
  url: 'https://api.example.com/api/contacts',
  headers: {},
  body: '{}',
  timeout: 1000,
  maxRetries: 2,
  signals: [],
};
const NOW = Date.UTC(2026, 0, 1);

function problem(status: number, code: string, headers: Record<string, string> = {}) {
  const body = JSON.stringify({ status, title: 'Problem', code });
  return {
    response: new Response(body, {
      status,
      headers: { 'content-type': 'application/problem+json', ...headers },
    }),
    body,
  };
}

describe('classifyResponse', () => {
  it('retries a 429 after its Retry-After, with the error class of its status', () => {
    const { response, body } = problem(429, 'rate_limited', { 'retry-after': '7' });
    const failed = classifyResponse(response, body, request, NOW);
    expect(failed.retryable).toBe(true);
    expect(failed.retryAfterMs).toBe(7_000);
    expect(failed.error).toBeInstanceOf(RateLimitError);
    expect(failed.error.code).toBe('rate_limited');
  });

  it('retries a 409 only when the first request with the key is still running', () => {
    const inProgress = problem(409, 'idempotency_in_progress', { 'retry-after': '1' });
    const conflict = problem(409, 'idempotency_conflict');
    expect(classifyResponse(inProgress.response, inProgress.body, request, NOW).retryable).toBe(
      true,
    );
    const failed = classifyResponse(conflict.response, conflict.body, request, NOW);
    expect(failed.retryable).toBe(false);
    expect(failed.error).toBeInstanceOf(ConflictError);
  });

  it('does not retry a 501, which no second attempt can change', () => {
    const { response, body } = problem(501, 'vendor_not_supported');
    const failed = classifyResponse(response, body, request, NOW);
    expect(failed.retryable).toBe(false);
    expect(failed.error).toBeInstanceOf(NotImplementedError);
  });

  it('reads a body that is not a problem as a plain status', () => {
    const response = new Response('<html>bad gateway</html>', { status: 502 });
    const failed = classifyResponse(response, '<html>bad gateway</html>', request, NOW);
    expect(failed.retryable).toBe(true);
    expect(failed.error.code).toBe('http_502');
  });
});
