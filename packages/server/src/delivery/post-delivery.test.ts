import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { guardedLookup } from './endpoint-address.js';
import { postDelivery } from './post-delivery.js';

type ResolveCallback = (error: null, addresses: { address: string; family: number }[]) => void;

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;

const servers: Server[] = [];

async function subscriber(handler: Handler) {
  const received: { headers: IncomingMessage['headers']; body: string }[] = [];
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    received.push({ headers: request.headers, body });
    handler(request, body, response);
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hooks`, port, received };
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const body = '{"id":"dlv_1","event":"contact.created","data":{"id":"con_1"}}';
const headers = {
  'X-Service-Event': 'contact.created',
  'X-Service-Delivery': 'dlv_1',
  'X-Service-Signature': 't=1700000000,v1=00',
};
const attempt = (url: string, extra: Partial<Parameters<typeof postDelivery>[0]> = {}) =>
  postDelivery({ url, body, headers, timeoutMs: 2_000, allowPrivate: true, ...extra });

describe('postDelivery', () => {
  it('delivers on a 2xx and sends the body and headers as they are', async () => {
    const { url, received } = await subscriber((_request, _body, response) => {
      response.writeHead(204).end();
    });
    const result = await attempt(url);
    expect(result).toMatchObject({ outcome: 'delivered', status: 204, error: undefined });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    expect(received).toHaveLength(1);
    expect(received[0]?.body).toBe(body);
    expect(received[0]?.headers).toMatchObject({
      'content-type': 'application/json',
      'x-service-event': 'contact.created',
      'x-service-delivery': 'dlv_1',
      'x-service-signature': 't=1700000000,v1=00',
    });
  });

  it.each([500, 404, 410, 429])('fails on %i, keeping the status', async (status) => {
    const { url } = await subscriber((_request, _body, response) => {
      response.writeHead(status).end('nope');
    });
    expect(await attempt(url)).toMatchObject({ outcome: 'failed', status, error: undefined });
  });

  it('does not follow a redirect', async () => {
    const target = await subscriber((_request, _body, response) => response.writeHead(200).end());
    const { url } = await subscriber((_request, _body, response) => {
      response.writeHead(307, { location: target.url }).end();
    });
    expect(await attempt(url)).toMatchObject({ outcome: 'failed', status: 307 });
    expect(target.received).toHaveLength(0);
  });

  it('gives up on an endpoint that never answers, at the timeout', async () => {
    const { url } = await subscriber(() => {
      // never answers
    });
    expect(await attempt(url, { timeoutMs: 100 })).toMatchObject({
      outcome: 'failed',
      status: undefined,
      error: 'timeout',
    });
  });

  it('fails when the endpoint drops the connection', async () => {
    const { url } = await subscriber((request) => request.socket.destroy());
    const result = await attempt(url);
    expect(result.outcome).toBe('failed');
    expect(result.status).toBeUndefined();
    expect(result.error).toEqual(expect.any(String));
  });

  it('fails when nothing listens', async () => {
    const { url } = await subscriber((_request, _body, response) => response.writeHead(200).end());
    const closed = servers.pop() as Server;
    closed.closeAllConnections();
    await new Promise((resolve) => closed.close(resolve));
    expect(await attempt(url)).toMatchObject({ outcome: 'failed', error: 'ECONNREFUSED' });
  });

  it('refuses loopback and private endpoints unless allowed, before connecting', async () => {
    const { url, port, received } = await subscriber((_request, _body, response) =>
      response.writeHead(200).end(),
    );
    for (const target of [
      url,
      `http://localhost:${port}/hooks`,
      `http://[::ffff:127.0.0.1]:${port}/`,
    ]) {
      expect(await attempt(target, { allowPrivate: false })).toMatchObject({
        outcome: 'failed',
        error: 'endpoint_address_private',
      });
    }
    expect(received).toHaveLength(0);
  });

  it('connects to the address the name was checked at', async () => {
    const { port, received } = await subscriber((_request, _body, response) =>
      response.writeHead(200).end(),
    );
    // hooks.example.test resolves, by this test's resolver, to the subscriber on loopback.
    const resolve = ((_host: string, _options: unknown, callback: ResolveCallback) =>
      callback(null, [{ address: '127.0.0.1', family: 4 }])) as never;
    const target = `http://hooks.example.test:${port}/hooks`;
    const allowed = await attempt(target, {
      lookup: guardedLookup(
        { allowPrivate: true, allowInsecure: false, protocol: 'http:' },
        resolve,
      ),
    });
    expect(allowed).toMatchObject({ outcome: 'delivered', status: 200 });
    expect(received[0]?.headers.host).toBe(`hooks.example.test:${port}`);
    const refused = await attempt(target, {
      allowPrivate: false,
      lookup: guardedLookup(
        { allowPrivate: false, allowInsecure: false, protocol: 'http:' },
        resolve,
      ),
    });
    expect(refused).toMatchObject({ outcome: 'failed', error: 'endpoint_address_private' });
    expect(received).toHaveLength(1);
  });

  it('refuses http: to a public address unless insecure endpoints are allowed', async () => {
    const { port, received } = await subscriber((_request, _body, response) =>
      response.writeHead(200).end(),
    );
    // The name is public by the resolver's answer; the connection goes to loopback only when the
    // policy lets the answer through (a resolver that lies stands in for a real public host).
    let answer = '93.184.216.34';
    const resolve = ((_host: string, _options: unknown, callback: ResolveCallback) =>
      callback(null, [{ address: answer, family: 4 }])) as never;
    const target = `http://hooks.example.test:${port}/hooks`;
    for (const allowPrivate of [false, true]) {
      const refused = await attempt(target, {
        allowPrivate,
        lookup: guardedLookup({ allowPrivate, allowInsecure: false, protocol: 'http:' }, resolve),
      });
      expect(refused).toMatchObject({ outcome: 'failed', error: 'endpoint_insecure' });
    }
    // A literal public address over http: is refused before any connection is tried.
    expect(await attempt('http://93.184.216.34/hooks', { allowPrivate: false })).toMatchObject({
      outcome: 'failed',
      error: 'endpoint_insecure',
    });
    expect(received).toHaveLength(0);
    // http: to a private address stays allowed where private endpoints are (local development).
    answer = '127.0.0.1';
    const local = await attempt(target, {
      lookup: guardedLookup(
        { allowPrivate: true, allowInsecure: false, protocol: 'http:' },
        resolve,
      ),
    });
    expect(local).toMatchObject({ outcome: 'delivered', status: 200 });
  });
});
