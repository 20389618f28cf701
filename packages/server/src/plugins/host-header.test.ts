import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../test/support/database.js';
import { openRawConnection, type RawConnection } from '../../test/support/raw-http.js';
import { useTestServer } from '../../test/support/server.js';
import { buildServer } from '../build-server.js';
import { publicHosts } from './host-header.js';

describe('the Host header', () => {
  const database = useTestDatabase();
  let connection: RawConnection | undefined;
  afterEach(() => connection?.socket.destroy());

  it('answers an HTTP/1.1 request without Host 400 bad_request as problem+json with X-Request-Id, and accepts HTTP/1.0 without it', async () => {
    const app = buildServer({ database: database(), logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const { port } = app.server.address() as { port: number };
      connection = await openRawConnection(port);
      connection.write('GET /healthz HTTP/1.1\r\n\r\n');
      const refused = await connection.next();
      expect(refused.status).toBe(400);
      expect(refused.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(refused.headers.connection).toBe('close');
      const problem = JSON.parse(refused.body);
      expect(problem).toMatchObject({ code: 'bad_request', status: 400 });
      expect(refused.headers['x-request-id']).toBe(problem.requestId);
      await connection.closed;

      connection = await openRawConnection(port);
      connection.write('GET /healthz HTTP/1.0\r\n\r\n');
      expect((await connection.next()).status).toBe(200);
    } finally {
      await app.close();
    }
  });
});

describe('the Host header, with a public URL', () => {
  const server = useTestServer({ publicUrl: 'https://followup.example.org' });
  const onLoopback = useTestServer({ publicUrl: 'http://127.0.0.1:3000' });
  const proxied = useTestServer({
    publicUrl: 'https://followup.example.org',
    trustProxy: '127.0.0.1',
  });

  const count = async (table: string) =>
    (await server().database.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))
      .rows[0]?.n;

  // A DNS-rebinding page: its own name now points at this server, so the browser sends it as
  // the host, and treats the answer as same-origin. The open inbox (no secret) is the example.
  it('answers a request for another host 421 misdirected_request, and stores nothing', async () => {
    const stored = await count('messages');
    const posted = await server().app.inject({
      method: 'POST',
      url: '/api/inbox/webhook',
      headers: { host: 'rebind.attacker.example', 'content-type': 'application/json' },
      payload: { from: 'a@example.com', subject: 'hello' },
    });
    expect(posted.statusCode).toBe(421);
    expect(posted.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    const problem = posted.json();
    expect(problem).toMatchObject({
      type: 'urn:followup:problem:misdirected_request',
      code: 'misdirected_request',
      status: 421,
      detail: expect.stringContaining('followup.example.org'),
    });
    expect(posted.headers['x-request-id']).toBe(problem.requestId);
    expect(await count('messages')).toBe(stored);
    for (const url of [
      '/api/contacts',
      '/openapi.json',
      '/docs',
      '/signin',
      '/',
      '/no-such-route',
    ]) {
      const read = await server().app.inject({
        method: 'GET',
        url,
        headers: { host: 'rebind.attacker.example' },
      });
      expect(read.statusCode, url).toBe(421);
    }
  });

  it("accepts the public URL's host in any case, with its default port implied or written", async () => {
    for (const host of [
      'followup.example.org',
      'FollowUp.Example.ORG',
      'followup.example.org:443',
    ]) {
      const answer = await server().app.inject({
        method: 'GET',
        url: '/openapi.json',
        headers: { host },
      });
      expect(answer.statusCode, host).toBe(200);
    }
    const posted = await server().app.inject({
      method: 'POST',
      url: '/api/inbox/webhook',
      headers: { host: 'followup.example.org', 'content-type': 'application/json' },
      payload: { from: 'a@example.com', subject: 'hello' },
    });
    expect(posted.statusCode).toBe(201);
    for (const host of [
      'followup.example.org:80',
      'followup.example.org:8443',
      'followup.example.org.',
      'example.org',
      'followup.example.org.attacker.example',
    ]) {
      const answer = await server().app.inject({
        method: 'GET',
        url: '/openapi.json',
        headers: { host },
      });
      expect(answer.statusCode, host).toBe(421);
    }
  });

  it('requires the port of a public URL that names one, and nothing else on loopback', async () => {
    const get = (host: string) =>
      onLoopback().app.inject({ method: 'GET', url: '/openapi.json', headers: { host } });
    expect((await get('127.0.0.1:3000')).statusCode).toBe(200);
    for (const host of [
      '127.0.0.1',
      '127.0.0.1:80',
      '127.0.0.1:3001',
      'localhost:3000',
      '[::1]:3000',
    ]) {
      expect((await get(host)).statusCode, host).toBe(421);
    }
  });

  it('answers GET /healthz whatever the host, for load balancers probing each instance', async () => {
    for (const host of ['10.0.3.7:3000', 'rebind.attacker.example']) {
      const health = await server().app.inject({
        method: 'GET',
        url: '/healthz',
        headers: { host },
      });
      expect(health.statusCode, host).toBe(200);
      expect(health.json()).toEqual({ status: 'ok' });
    }
  });

  it('reads the host from X-Forwarded-Host only from a trusted proxy', async () => {
    const get = (app: typeof proxied, headers: Record<string, string>) =>
      app().app.inject({ method: 'GET', url: '/openapi.json', headers });
    // inject() comes from 127.0.0.1: the trusted proxy of `proxied`.
    expect(
      (await get(proxied, { host: '10.0.3.7:3000', 'x-forwarded-host': 'followup.example.org' }))
        .statusCode,
    ).toBe(200);
    expect(
      (
        await get(proxied, {
          host: 'followup.example.org',
          'x-forwarded-host': 'rebind.attacker.example',
        })
      ).statusCode,
    ).toBe(421);
    // Not trusted: the header is anybody's, and the Host decides.
    expect(
      (await get(server, { host: '10.0.3.7:3000', 'x-forwarded-host': 'followup.example.org' }))
        .statusCode,
    ).toBe(421);
  });
});

describe('the hosts of a public URL', () => {
  it('are its host, and with a default port the host alone and with the port written out', () => {
    expect([...publicHosts('https://Followup.Example.org')]).toEqual([
      'followup.example.org',
      'followup.example.org:443',
    ]);
    expect([...publicHosts('http://followup.example.org')]).toEqual([
      'followup.example.org',
      'followup.example.org:80',
    ]);
    expect([...publicHosts('http://[::1]:3000')]).toEqual(['[::1]:3000']);
  });

  it('accept no Host header that names another origin than the URL', () => {
    const origin = fc
      .record({
        scheme: fc.constantFrom('http:', 'https:'),
        host: fc.oneof(
          fc.domain(),
          fc.ipV4(),
          fc.ipV6().map((ip) => `[${ip}]`),
        ),
        port: fc.option(fc.integer({ min: 1, max: 65_535 }), { nil: undefined }),
      })
      .map(
        ({ scheme, host, port }) =>
          new URL(`${scheme}//${host}${port === undefined ? '' : `:${port}`}`),
      );
    // A Host header as anyone may write it: this origin's host, altered, or anything.
    const header = (url: URL) =>
      fc.oneof(
        fc.constant(url.host),
        fc.constant(url.host.toUpperCase()),
        fc.constant(`${url.hostname}:${url.port || (url.protocol === 'https:' ? 443 : 80)}`),
        fc.integer({ min: 0, max: 65_535 }).map((port) => `${url.hostname}:${port}`),
        fc.domain(),
        fc.string({ maxLength: 40 }),
      );
    fc.assert(
      fc.property(
        origin.chain((url) => fc.tuple(fc.constant(url), header(url))),
        ([url, host]) => {
          const accepted = publicHosts(url.origin).has(host.toLowerCase());
          // What the browser's URL parser reads as this very origin, and nothing more.
          let sameOrigin = false;
          try {
            const named = new URL(`${url.protocol}//${host}`);
            sameOrigin =
              named.origin === url.origin && `${named.host}` !== '' && !/[/?#@\\]/.test(host);
          } catch {
            sameOrigin = false;
          }
          if (accepted) expect(sameOrigin).toBe(true);
          if (host === url.host || host === url.host.toUpperCase()) expect(accepted).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
