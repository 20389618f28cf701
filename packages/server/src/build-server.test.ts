import { describe, expect, it } from 'vitest';
import { addHeldRoute } from '../test/support/held-route.js';
import { useTestServer } from '../test/support/server.js';
import { BODY_LIMIT_BYTES, buildServer } from './build-server.js';
import { ProblemError } from './problem-error.js';

describe('buildServer', () => {
  const server = useTestServer({
    configure(app) {
      // Routes that exist only in this test, to reach the framework's edges.
      app.post('/test/echo', async (request) => ({ size: JSON.stringify(request.body).length }));
      app.get('/test/crash', async () => {
        throw new Error('database password is hunter2');
      });
      // PostgreSQL errors that quote a stored value in their message, detail and hint.
      app.get('/test/database-crash', async () => {
        await server().database.query('SELECT $1::int', ['alice@example.com']);
      });
      app.get('/test/database-detail', async () => {
        await server().database.query(
          `DO $$ BEGIN RAISE EXCEPTION 'duplicate bob@example.com' USING ERRCODE = '23505',
           DETAIL = 'Key (email)=(bob@example.com) already exists.', HINT = 'bob@example.com',
           CONSTRAINT = 'contacts_email_key'; END $$`,
        );
      });
      app.get('/test/slow-down', async () => {
        throw new ProblemError({
          code: 'rate_limited',
          detail: 'Short and stout.',
          headers: { 'Retry-After': '7' },
        });
      });
    },
  });

  it('answers GET /healthz once ready', async () => {
    const response = await server().app.inject({ method: 'GET', url: '/healthz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
  });

  it('sends a fresh X-Request-Id on every response, and ignores one sent by the client', async () => {
    const first = await server().app.inject({ method: 'GET', url: '/healthz' });
    const second = await server().app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'forged\nline' },
    });
    expect(first.headers['x-request-id']).toMatch(/^req_[0-9A-Z]{26}$/);
    expect(second.headers['x-request-id']).toMatch(/^req_[0-9A-Z]{26}$/);
    expect(second.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
  });

  it('answers an unknown route with a problem+json 404 that quotes the request id', async () => {
    const response = await server().app.inject({ method: 'GET', url: '/api/nothing' });
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(response.json()).toEqual({
      type: 'urn:followup:problem:not_found',
      title: 'Not Found',
      status: 404,
      detail: expect.any(String),
      code: 'not_found',
      requestId: response.headers['x-request-id'],
    });
  });

  it('sends a thrown ProblemError with its status, code and headers', async () => {
    const response = await server().app.inject({ method: 'GET', url: '/test/slow-down' });
    expect(response.statusCode).toBe(429);
    expect(response.headers['retry-after']).toBe('7');
    expect(response.headers['x-request-id']).toMatch(/^req_/);
    expect(response.json()).toMatchObject({
      type: 'urn:followup:problem:rate_limited',
      title: 'Too Many Requests',
      status: 429,
      detail: 'Short and stout.',
      code: 'rate_limited',
    });
  });

  it('hides the message of an unexpected error behind a 500 internal_error, and logs it', async () => {
    const response = await server().app.inject({ method: 'GET', url: '/test/crash' });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toMatchObject({ code: 'internal_error', status: 500 });
    expect(response.body).not.toContain('hunter2');
    const logged = server().logs.map((line) => JSON.parse(line));
    expect(
      logged.some(
        (line) => line.level === 50 && line.requestId === response.headers['x-request-id'],
      ),
    ).toBe(true);
  });

  it.each([
    ['/test/database-crash', 'alice@example.com', '22P02'],
    ['/test/database-detail', 'bob@example.com', '23505'],
  ])(
    'logs a database error from %s by its SQLSTATE, never the values it quotes',
    async (url, value, code) => {
      const response = await server().app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(500);
      expect(response.body).not.toContain(value);
      const logged = server().logs.map((line) => JSON.parse(line));
      const failure = logged.find(
        (line) => line.level === 50 && line.requestId === response.headers['x-request-id'],
      );
      expect(failure?.err).toMatchObject({
        type: 'RedactedDatabaseError',
        code,
        severity: 'ERROR',
      });
      expect(failure?.err.stack).toContain('\n    at ');
      expect(server().logs.join('\n')).not.toContain(value);
    },
  );

  it('accepts a body of exactly 1 MiB and refuses one byte more with 413 payload_too_large', async () => {
    const fits = JSON.stringify({ pad: 'x'.repeat(BODY_LIMIT_BYTES - 10) });
    expect(Buffer.byteLength(fits)).toBe(BODY_LIMIT_BYTES);
    const accepted = await server().app.inject({
      method: 'POST',
      url: '/test/echo',
      headers: { 'content-type': 'application/json' },
      payload: fits,
    });
    expect(accepted.statusCode).toBe(200);
    const tooLarge = await server().app.inject({
      method: 'POST',
      url: '/test/echo',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ pad: 'x'.repeat(BODY_LIMIT_BYTES - 9) }),
    });
    expect(tooLarge.statusCode).toBe(413);
    expect(tooLarge.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(tooLarge.headers['x-request-id']).toMatch(/^req_/);
    expect(tooLarge.json()).toMatchObject({ status: 413, code: 'payload_too_large' });
  });

  it('refuses malformed JSON with 400 invalid_json, without quoting the body', async () => {
    const response = await server().app.inject({
      method: 'POST',
      url: '/test/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"note": "private-note-42",',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'invalid_json', status: 400 });
    expect(response.body).not.toContain('private-note-42');
  });

  it('refuses a body that is not JSON with 415', async () => {
    const response = await server().app.inject({
      method: 'POST',
      url: '/test/echo',
      headers: { 'content-type': 'text/plain' },
      payload: 'hello',
    });
    expect(response.statusCode).toBe(415);
    expect(response.json()).toMatchObject({ code: 'unsupported_media_type' });
  });

  it('answers 503 problem+json from /healthz when the database does not answer', async () => {
    const app = buildServer({
      logger: false,
      database: {
        driver: 'postgres',
        query: async () => {
          throw new Error('connection refused');
        },
        transaction: async () => {
          throw new Error('connection refused');
        },
        close: async () => {},
      },
    });
    try {
      const response = await app.inject({ method: 'GET', url: '/healthz' });
      expect(response.statusCode).toBe(503);
      expect(response.json()).toMatchObject({ code: 'unavailable' });
    } finally {
      await app.close();
    }
  });

  it('finishes in-flight requests when closed (graceful shutdown)', async () => {
    const app = buildServer({ database: server().database, logger: false });
    const held = addHeldRoute(app);
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const response = fetch(`${address}/test/hold`);
    await held.entered;
    let closed = false;
    const closing = app.close().then(() => {
      closed = true;
    });
    // Closing waits for the request in flight.
    await Promise.resolve();
    expect(closed).toBe(false);
    held.release();
    const finished = await response;
    expect(finished.status).toBe(200);
    expect(await finished.json()).toEqual({ finished: true });
    await closing;
    expect(closed).toBe(true);
    await expect(fetch(`${address}/healthz`)).rejects.toThrow();
  });
});
