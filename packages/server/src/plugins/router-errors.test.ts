import { connect } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/support/server.js';
import { buildServer } from '../build-server.js';
import { MAX_PARAM_LENGTH } from './router-errors.js';

const problemType = 'application/problem+json; charset=utf-8';

/** Sends raw bytes to a listening server and reads everything it answers until it closes. */
function rawExchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.write(request);
  });
}

function parseRawResponse(text: string) {
  const [head = '', body = ''] = text.split('\r\n\r\n');
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const headers = Object.fromEntries(
    headerLines.map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
    }),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) };
}

describe('router and parser errors', () => {
  const server = useTestServer();

  it('answers an over-long path parameter 414 uri_too_long as problem+json with X-Request-Id', async () => {
    const response = await server().app.inject({
      method: 'GET',
      url: `/api/contacts/${'a'.repeat(MAX_PARAM_LENGTH + 1)}`,
    });
    expect(response.statusCode).toBe(414);
    expect(response.headers['content-type']).toBe(problemType);
    expect(response.headers['x-request-id']).toMatch(/^req_/);
    expect(response.json()).toMatchObject({
      type: 'urn:followup:problem:uri_too_long',
      status: 414,
      code: 'uri_too_long',
      requestId: response.headers['x-request-id'],
    });
  });

  it('lets a 255-character id reach the route (schemas allow it), not the router’s 414', async () => {
    const { token } = await server().tokenFor('ADMIN');
    const response = await server().app.inject({
      method: 'GET',
      url: `/api/contacts/${'a'.repeat(255)}`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: 'not_found' });
  });

  it('answers a malformed percent-encoding 400 malformed_url as problem+json with X-Request-Id', async () => {
    for (const url of [
      '/api/contacts/%',
      '/api/contacts/%E0%A4%A',
      '/%c0%af',
      '/api/ehr/webhooks/%zz',
    ]) {
      const response = await server().app.inject({ method: 'POST', url });
      expect(response.statusCode, url).toBe(400);
      expect(response.headers['content-type']).toBe(problemType);
      expect(response.headers['x-request-id']).toMatch(/^req_/);
      expect(response.json()).toMatchObject({
        code: 'malformed_url',
        requestId: response.headers['x-request-id'],
      });
    }
  });

  it('answers any odd URL with problem+json and X-Request-Id, never a 5xx (property)', async () => {
    const segment = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.constantFrom('%', '%%', '%0', '%zz', '%00', '%ff', '%c0%af', '..', '.', '', ';', '%2F'),
      fc.string({ minLength: 90, maxLength: 700, unit: fc.constantFrom('a', '%41', 'é', '~') }),
    );
    const prefix = fc.constantFrom(
      '/api/contacts/',
      '/api/deals/',
      '/api/ehr/webhooks/',
      '/api/users/',
      '/',
      '//',
      '/api/',
    );
    const suffix = fc.constantFrom(
      '',
      '?',
      '?limit=%',
      '?offset=%zz&limit=1',
      '#x',
      '/x',
      '?a=1&a=2',
    );
    await fc.assert(
      fc.asyncProperty(
        prefix,
        segment,
        suffix,
        fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE'),
        async (start, middle, end, method) => {
          // What a client can put on the request line: no spaces or controls.
          const url = [...`${start}${middle}${end}`]
            .map((character) => (character <= ' ' || character === '\u007f' ? '_' : character))
            .join('');
          const response = await server().app.inject({ method: method as 'GET', url });
          expect(response.statusCode).toBeLessThan(500);
          expect(response.headers['x-request-id']).toMatch(/^req_/);
          // Some odd URLs are pages (GET / redirects); every refusal is a problem.
          if (response.statusCode >= 400) {
            expect(response.headers['content-type']).toBe(problemType);
            expect(response.json().requestId).toBe(response.headers['x-request-id']);
          }
        },
      ),
      { numRuns: 300, seed: 1206 },
    );
  });

  it('answers the HTTP parser’s refusals with problem+json and X-Request-Id, then closes', async () => {
    const app = buildServer({ database: server().database, logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const port = (app.server.address() as { port: number }).port;
      const garbage = parseRawResponse(await rawExchange(port, 'NOT HTTP AT ALL\r\n\r\n'));
      expect(garbage.status).toBe(400);
      expect(garbage.headers['content-type']).toBe(problemType);
      expect(garbage.headers['x-request-id']).toMatch(/^req_/);
      expect(garbage.body).toMatchObject({
        code: 'bad_request',
        requestId: garbage.headers['x-request-id'],
      });

      const huge = parseRawResponse(
        await rawExchange(
          port,
          `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
        ),
      );
      expect(huge.status).toBe(431);
      expect(huge.headers['x-request-id']).toMatch(/^req_/);
      expect(huge.body).toMatchObject({ code: 'headers_too_large' });
    } finally {
      await app.close();
    }
  });
});
