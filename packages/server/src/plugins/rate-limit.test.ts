import { describe, expect, it } from 'vitest';
import { manualClock } from '../../test/support/clock.js';
import { useTestServer } from '../../test/support/server.js';
import { createRateLimiter } from './rate-limit.js';

describe('createRateLimiter', () => {
  it('allows a burst of limit, then refills continuously over the window', () => {
    const clock = manualClock();
    const limiter = createRateLimiter({ limit: 3, windowSeconds: 60 }, clock);
    expect([1, 2, 3].map(() => limiter.take('tok_a'))).toEqual([
      { allowed: true },
      { allowed: true },
      { allowed: true },
    ]);
    // One request comes back every 20 s.
    expect(limiter.take('tok_a')).toEqual({ allowed: false, retryAfterSeconds: 20 });
    clock.advance(15_000);
    expect(limiter.take('tok_a')).toEqual({ allowed: false, retryAfterSeconds: 5 });
    clock.advance(4_001);
    expect(limiter.take('tok_a')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    clock.advance(999);
    expect(limiter.take('tok_a')).toEqual({ allowed: true });
    expect(limiter.take('tok_a').allowed).toBe(false);
  });

  it('never holds more than limit, however long the key was idle', () => {
    const clock = manualClock();
    const limiter = createRateLimiter({ limit: 2, windowSeconds: 1 }, clock);
    limiter.take('tok_a');
    clock.advance(3_600_000);
    expect([1, 2, 3].map(() => limiter.take('tok_a').allowed)).toEqual([true, true, false]);
  });

  it('counts each key on its own', () => {
    const limiter = createRateLimiter({ limit: 1, windowSeconds: 60 }, manualClock());
    expect(limiter.take('tok_a').allowed).toBe(true);
    expect(limiter.take('tok_a').allowed).toBe(false);
    expect(limiter.take('tok_b').allowed).toBe(true);
  });

  it('is not fooled by a clock that steps back', () => {
    const clock = manualClock();
    const limiter = createRateLimiter({ limit: 1, windowSeconds: 60 }, clock);
    limiter.take('tok_a');
    clock.advance(-30_000);
    expect(limiter.take('tok_a').allowed).toBe(false);
  });

  it('refuses a limit that is not a positive whole number or a window that is not positive', () => {
    for (const options of [
      { limit: 0, windowSeconds: 60 },
      { limit: 1.5, windowSeconds: 60 },
      { limit: 10, windowSeconds: 0 },
    ]) {
      expect(() => createRateLimiter(options, manualClock())).toThrow(RangeError);
    }
  });
});

describe('rate limit on the routes', () => {
  const server = useTestServer({ rateLimit: { limit: 3, windowSeconds: 60 } });

  function audit(token?: string) {
    return server().app.inject({
      method: 'GET',
      url: '/api/audit',
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
  }

  it('answers 429 rate_limited with Retry-After past the limit of a token', async () => {
    const { token } = await server().tokenFor('ADMIN');
    for (let index = 0; index < 3; index++) expect((await audit(token)).statusCode).toBe(200);
    const limited = await audit(token);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('20');
    expect(limited.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(limited.json()).toMatchObject({
      status: 429,
      code: 'rate_limited',
      title: 'Too Many Requests',
    });
    server().clock.advance(20_000);
    expect((await audit(token)).statusCode).toBe(200);
  });

  it('limits each token on its own, and never counts unauthenticated requests', async () => {
    const first = await server().tokenFor('ADMIN');
    const second = await server().tokenFor('ADMIN');
    for (let index = 0; index < 5; index++) expect((await audit()).statusCode).toBe(401);
    for (let index = 0; index < 3; index++) await audit(first.token);
    expect((await audit(first.token)).statusCode).toBe(429);
    expect((await audit(second.token)).statusCode).toBe(200);
  });
});

describe('RateLimit headers on authenticated responses', () => {
  const server = useTestServer({ rateLimit: { limit: 3, windowSeconds: 60 } });

  it('answers RateLimit-Policy and RateLimit (remaining, seconds until whole) on every authenticated answer', async () => {
    const { token } = await server().tokenFor('READONLY');
    const headers = { authorization: `Bearer ${token}` };
    const first = await server().app.inject({ method: 'GET', url: '/api/contacts', headers });
    expect(first.headers['ratelimit-policy']).toBe('"per-token";q=3;w=60');
    expect(first.headers.ratelimit).toBe('"per-token";r=2;t=20');
    // A 403 is an authenticated answer too.
    const forbidden = await server().app.inject({ method: 'GET', url: '/api/audit', headers });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.headers.ratelimit).toBe('"per-token";r=1;t=40');
    server().clock.advance(10_000);
    await server().app.inject({ method: 'GET', url: '/api/contacts', headers });
    const limited = await server().app.inject({ method: 'GET', url: '/api/contacts', headers });
    expect(limited.statusCode).toBe(429);
    expect(limited.headers.ratelimit).toBe('"per-token";r=0;t=50');
    expect(limited.headers['ratelimit-policy']).toBe('"per-token";q=3;w=60');
    expect(limited.headers['retry-after']).toBe('10');
  });
});
