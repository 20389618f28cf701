import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/support/server.js';
import { secretHeaderNames } from '../secret-headers.js';
import { parseToken } from '../tokens/token-format.js';
import { loggableClient, MAX_LOGGED_CLIENT_LENGTH } from './logging.js';

describe('logs', () => {
  const server = useTestServer({
    configure(app) {
      app.post('/test/echo', async (request) => {
        // A careless handler that logs its request's headers: still redacted.
        request.log.info({ headers: request.headers }, 'echo');
        return { ok: true };
      });
    },
  });

  const bodyMarker = 'body-marker-5f1c';
  const inboxSecret = 'inbox-secret-9b2e';
  const signature = 'sha256=0123456789abcdef0123456789abcdef';

  async function exercise(token: string) {
    const headers = {
      authorization: `Bearer ${token}`,
      'x-service-webhook-secret': inboxSecret,
      'x-hub-signature': signature,
      'x-metriport-signature': signature,
      cookie: `session=${bodyMarker}-cookie`,
      'content-type': 'application/json',
    };
    const responses = [
      await server().app.inject({ method: 'GET', url: '/api/audit', headers }),
      await server().app.inject({
        method: 'POST',
        url: '/test/echo',
        headers,
        payload: JSON.stringify({ note: bodyMarker }),
      }),
      await server().app.inject({
        method: 'POST',
        url: '/test/echo',
        headers,
        payload: `{"note": "${bodyMarker}",`,
      }),
      await server().app.inject({
        method: 'GET',
        url: '/api/audit',
        headers: {
          ...headers,
          authorization: `Bearer ${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`,
        },
      }),
    ];
    return responses.map((response) => response.statusCode);
  }

  it('never contain a token, a secret, a signature or a body', async () => {
    const { token } = await server().tokenFor('ADMIN');
    expect(await exercise(token)).toEqual([200, 200, 400, 401]);
    const logs = server().logs.join('');
    // One line per request (four), besides what the handlers and the error handler log.
    const completed = server().logs.filter((line) => line.includes('"msg":"request completed"'));
    expect(completed).toHaveLength(4);
    expect(server().logs.length).toBeGreaterThan(5);
    expect(logs).not.toContain(token);
    expect(logs).not.toContain(parseToken(token)?.secret);
    expect(logs).not.toContain(token.slice(0, -1));
    expect(logs).not.toContain(inboxSecret);
    expect(logs).not.toContain(signature);
    expect(logs).not.toContain(bodyMarker);
  });

  it('logs each request with its id and its headers, credentials redacted', async () => {
    const { token } = await server().tokenFor('ADMIN');
    await exercise(token);
    const lines = server().logs.map((line) => JSON.parse(line));
    const incoming = lines.filter((line) => line.req?.headers);
    expect(incoming.length).toBeGreaterThanOrEqual(4);
    for (const line of incoming) {
      expect(line.requestId).toMatch(/^req_/);
      expect(line.req.headers.authorization).toBe('[redacted]');
      expect(line.req.headers['x-service-webhook-secret']).toBe('[redacted]');
      expect(line.req.headers['x-hub-signature']).toBe('[redacted]');
      expect(line.req.headers.cookie).toBe('[redacted]');
      expect(line.req.headers['content-type']).toBe('application/json');
    }
    const echoed = lines.find((line) => line.msg === 'echo');
    expect(echoed?.headers.authorization).toBe('[redacted]');
    expect(echoed?.headers['x-metriport-signature']).toBe('[redacted]');
  });

  it('redacts every credential header of the interface and the EHR vendors', () => {
    expect(secretHeaderNames()).toEqual(
      expect.arrayContaining([
        'authorization',
        'cookie',
        'x-service-webhook-secret',
        'x-service-signature',
        'x-hub-signature',
        'x-akute-signature',
        'x-metriport-signature',
      ]),
    );
  });

  it("logs the caller's X-FollowUp-Client as a field of its own, bounded and printable", async () => {
    const { token } = await server().tokenFor('ADMIN');
    const sent = [
      '@followup/sdk/0.1.0 node/24.1.0',
      `@followup/sdk/0.1.0 \u001b[31mred\u001b[0m ${'x'.repeat(5000)}`,
      undefined,
    ];
    for (const client of sent) {
      const response = await server().app.inject({
        method: 'GET',
        url: '/api/contacts?limit=1',
        headers: {
          authorization: `Bearer ${token}`,
          ...(client === undefined ? {} : { 'x-followup-client': client }),
        },
      });
      expect(response.statusCode).toBe(200);
    }
    const completed = server()
      .logs.map((line) => JSON.parse(line))
      .filter((line) => line.msg === 'request completed' && line.req.url === '/api/contacts')
      .slice(-3);
    expect(completed.map((line) => line.client)).toEqual([
      '@followup/sdk/0.1.0 node/24.1.0',
      // 33 characters, then x up to the bound; each ESC (U+001B) became '?'.
      `@followup/sdk/0.1.0 ?[31mred?[0m ${'x'.repeat(MAX_LOGGED_CLIENT_LENGTH - 33)}`,
      undefined,
    ]);
  });

  it('loggableClient keeps at most 200 printable ASCII characters of any value', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 600 }), (value) => {
        const logged = loggableClient(value);
        if (value === '') return logged === undefined;
        return (
          logged !== undefined &&
          logged.length === Math.min(value.length, MAX_LOGGED_CLIENT_LENGTH) &&
          /^[\x20-\x7e]*$/.test(logged)
        );
      }),
    );
    expect(loggableClient(['a', 'b'])).toBe('a, b');
    expect(loggableClient(undefined)).toBeUndefined();
  });
});
