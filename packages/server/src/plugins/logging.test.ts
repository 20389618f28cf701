import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/support/server.js';
import { webSessionFor } from '../../test/support/web.js';
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

/** The log lines a test server wrote, parsed. */
function parsedLines(logs: readonly string[]) {
  return logs.map((line) => JSON.parse(line));
}

describe('logs at info', () => {
  const server = useTestServer({
    logLevel: 'info',
    configure(app) {
      app.get('/test/fails', async () => {
        throw new Error('the handler failed');
      });
    },
  });

  it('write one line per request: id, method, path, route, status, duration, actor, client; no headers', async () => {
    const { token, accountId } = await server().tokenFor('ADMIN');
    const session = await webSessionFor(server(), 'AGENT');
    server().logs.length = 0;
    const sent = [
      {
        url: '/api/contacts/con_unknown?email=ada%40example.com',
        headers: { authorization: `Bearer ${token}`, 'x-followup-client': '@followup/sdk/0.1.0' },
      },
      { url: '/api/contacts?limit=1', headers: { cookie: session.cookie } },
      { url: '/livez', headers: {} },
      { url: '/no/such/route', headers: { authorization: `Bearer ${token}` } },
      { url: '/api/contacts', headers: { authorization: 'Bearer hns_not_a_token' } },
    ];
    const answers = [];
    for (const { url, headers } of sent) {
      answers.push(await server().app.inject({ method: 'GET', url, headers }));
    }
    expect(answers.map((answer) => answer.statusCode)).toEqual([404, 200, 200, 404, 401]);
    const lines = parsedLines(server().logs);
    expect(lines.map((line) => line.msg)).toEqual(sent.map(() => 'request completed'));
    expect(
      lines.map(({ level, requestId, req, res, actor, code, client }) => ({
        level,
        requestId,
        req,
        res,
        actor,
        code,
        client,
      })),
    ).toEqual([
      {
        level: 30,
        requestId: answers[0]?.headers['x-request-id'],
        req: {
          method: 'GET',
          url: '/api/contacts/con_unknown',
          route: '/api/contacts/:id',
          remoteAddress: '127.0.0.1',
        },
        res: { statusCode: 404 },
        actor: accountId,
        code: 'not_found',
        client: '@followup/sdk/0.1.0',
      },
      {
        level: 30,
        requestId: answers[1]?.headers['x-request-id'],
        req: {
          method: 'GET',
          url: '/api/contacts',
          route: '/api/contacts',
          remoteAddress: '127.0.0.1',
        },
        res: { statusCode: 200 },
        actor: session.userId,
        code: undefined,
        client: undefined,
      },
      {
        level: 30,
        requestId: answers[2]?.headers['x-request-id'],
        req: { method: 'GET', url: '/livez', route: '/livez', remoteAddress: '127.0.0.1' },
        res: { statusCode: 200 },
        actor: undefined,
        code: undefined,
        client: undefined,
      },
      {
        level: 30,
        requestId: answers[3]?.headers['x-request-id'],
        req: {
          method: 'GET',
          url: '/no/such/route',
          route: 'unmatched',
          remoteAddress: '127.0.0.1',
        },
        res: { statusCode: 404 },
        actor: undefined,
        code: 'not_found',
        client: undefined,
      },
      {
        level: 30,
        requestId: answers[4]?.headers['x-request-id'],
        req: {
          method: 'GET',
          url: '/api/contacts',
          route: '/api/contacts',
          remoteAddress: '127.0.0.1',
        },
        res: { statusCode: 401 },
        actor: undefined,
        code: 'token_invalid',
        client: undefined,
      },
    ]);
    for (const line of lines) {
      expect(line.time).toEqual(expect.any(Number));
      expect(line.responseTime).toEqual(expect.any(Number));
      expect(line).not.toHaveProperty('headers');
    }
    const written = server().logs.join('');
    expect(written).not.toContain('authorization');
    expect(written).not.toContain(session.cookieValue);
    expect(written).not.toContain('ada%40example.com');
  });

  it('log a request that fails with a 5xx once more, with its error, and only once', async () => {
    const answer = await server().app.inject({ method: 'GET', url: '/test/fails' });
    expect(answer.statusCode).toBe(500);
    const lines = parsedLines(server().logs);
    expect(lines.map((line) => [line.level, line.msg])).toEqual([
      [50, 'request failed'],
      [30, 'request completed'],
    ]);
    const [failed, completed] = lines;
    expect(failed?.requestId).toBe(answer.headers['x-request-id']);
    expect(failed?.err.message).toBe('the handler failed');
    expect(failed?.err.stack).toContain('logging.test.ts');
    expect(completed).toMatchObject({
      requestId: answer.headers['x-request-id'],
      res: { statusCode: 500 },
      code: 'internal_error',
    });
  });
});

describe('logs at debug', () => {
  const server = useTestServer({ logLevel: 'debug' });

  it("add each request's headers, with its bearer token and cookie redacted", async () => {
    const { token } = await server().tokenFor('ADMIN');
    const session = await webSessionFor(server(), 'AGENT');
    server().logs.length = 0;
    for (const headers of [
      { authorization: `Bearer ${token}`, 'accept-language': 'en' },
      { cookie: session.cookie, 'accept-language': 'en' },
    ]) {
      const answer = await server().app.inject({ method: 'GET', url: '/api/contacts', headers });
      expect(answer.statusCode).toBe(200);
    }
    const completed = parsedLines(server().logs).filter((line) => line.msg === 'request completed');
    expect(completed.map((line) => line.req.headers)).toEqual([
      expect.objectContaining({ authorization: '[redacted]', 'accept-language': 'en' }),
      expect.objectContaining({ cookie: '[redacted]', 'accept-language': 'en' }),
    ]);
    const written = server().logs.join('');
    expect(written).not.toContain(token);
    expect(written).not.toContain(parseToken(token)?.secret);
    expect(written).not.toContain(session.cookieValue);
  });
});

describe('logs at warn', () => {
  const server = useTestServer({
    logLevel: 'warn',
    configure(app) {
      app.get('/test/fails', async () => {
        throw new Error('the handler failed');
      });
    },
  });

  it('write no request line, and still the error of a 5xx', async () => {
    const { token } = await server().tokenFor('ADMIN');
    for (const url of ['/api/contacts', '/livez', '/no/such/route', '/test/fails']) {
      await server().app.inject({
        method: 'GET',
        url,
        headers: { authorization: `Bearer ${token}` },
      });
    }
    expect(parsedLines(server().logs).map((line) => [line.level, line.msg])).toEqual([
      [50, 'request failed'],
    ]);
  });
});
