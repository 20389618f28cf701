import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { signPayload } from '@followup/webhooks';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  DEFAULT_WEBHOOK_DEDUPE_WINDOW_MS,
  type DeliveryStore,
  FollowUp,
  MemoryDeliveryStore,
  type WebhookEvent,
  type WebhookHandlerOptions,
} from '../src/index.js';
import { createWebhookHandler } from '../src/resources/webhook-handler.js';
import { verifyWebhook } from '../src/resources/webhooks.js';
import { TOKEN } from './fixture-server.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const NOW_MS = Date.UTC(2026, 10, 22, 2, 0, 0);
const clock = { now: () => NOW_MS, setTimer: () => () => {} };
const client = new FollowUp({ token: TOKEN, baseUrl: 'http://127.0.0.1:9', clock });

function delivery(id: string, kind = 'contact.created', data: object = contact) {
  return JSON.stringify({ id, event: kind, createdAt: '2026-11-22T01:59:59Z', data });
}
const contact = { id: 'con_1', firstName: 'Ada', lastName: 'Lovelace', lifecycle: 'LEAD' };

function signed(body: string, timestamp = Math.floor(NOW_MS / 1000)) {
  return {
    'content-type': 'application/json',
    'x-service-signature': signPayload(body, { secret: SECRET, timestamp }),
  };
}

/** The Standard Webhooks headers, signed as the specification says (key: base64 after whsec_). */
function standardSigned(id: string, body: string) {
  const timestamp = Math.floor(NOW_MS / 1000);
  const key = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
  const digest = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': `v1,${digest}`,
  };
}

function post(body: string | ReadableStream<Uint8Array>, headers: Record<string, string>) {
  return new Request('https://subscriber.test/webhooks/followup', {
    method: 'POST',
    body,
    headers,
    ...(typeof body === 'string' ? {} : { duplex: 'half' }),
  } as RequestInit);
}

function recorder(options: Partial<WebhookHandlerOptions> = {}) {
  const seen: WebhookEvent[] = [];
  const errors: unknown[] = [];
  const handler = client.webhooks.handler({
    secret: SECRET,
    on: {
      'contact.created': (event) => {
        // Typed per kind: data is a contact.
        seen.push(event);
        expect(event.data.firstName).toBe('Ada');
      },
      '*': (event) => {
        seen.push(event);
      },
    },
    onError: (error) => errors.push(error),
    ...options,
  });
  return { handler, seen, errors };
}

describe('client.webhooks.handler (Web)', () => {
  it('verifies, hands the typed event to its kind, and answers 204', async () => {
    const { handler, seen } = recorder();
    const body = delivery('dlv_1');
    const response = await handler(post(body, signed(body)));
    expect(response.status).toBe(204);
    expect(seen).toEqual([JSON.parse(body)]);
    // .fetch is the same handler.
    const other = delivery('dlv_2');
    expect((await handler.fetch(post(other, signed(other)))).status).toBe(204);
    expect(seen.map((event) => event.id)).toEqual(['dlv_1', 'dlv_2']);
  });

  it('handles a delivery sent again once, and answers the copy 204', async () => {
    const { handler, seen } = recorder();
    const body = delivery('dlv_replay');
    for (let attempt = 0; attempt < 3; attempt++) {
      // A retry is signed again, with a new timestamp; the delivery id stays.
      const response = await handler(post(body, signed(body, Math.floor(NOW_MS / 1000) - attempt)));
      expect(response.status).toBe(204);
    }
    expect(seen).toHaveLength(1);
  });

  it('verifies Standard Webhooks headers when X-Service-Signature is absent', async () => {
    const { handler, seen } = recorder();
    const body = delivery('dlv_std');
    expect((await handler(post(body, standardSigned('dlv_std', body)))).status).toBe(204);
    expect(seen.map((event) => event.id)).toEqual(['dlv_std']);
    // The signed webhook-id must be the body's id.
    const other = delivery('dlv_std_2');
    expect((await handler(post(other, standardSigned('dlv_elsewhere', other)))).status).toBe(400);
    // A tampered body does not verify.
    const headers = standardSigned('dlv_std_3', delivery('dlv_std_3'));
    const response = await handler(post(delivery('dlv_std_3').replace('Ada', 'Eve'), headers));
    expect(response.status).toBe(401);
    expect(seen).toHaveLength(1);
  });

  it('hands contact.erased, id only, to its typed handler, not to "*"', async () => {
    const erased: string[] = [];
    const others: unknown[] = [];
    const handler = client.webhooks.handler({
      secret: SECRET,
      on: {
        'contact.erased': (event) => {
          // Typed per kind: data carries the id.
          erased.push(event.data.id);
        },
        '*': (event) => others.push(event),
      },
    });
    const body = delivery('dlv_e', 'contact.erased', { id: 'con_1' });
    expect((await handler(post(body, signed(body)))).status).toBe(204);
    expect(erased).toEqual(['con_1']);
    expect(others).toEqual([]);
    // An erased event without its id is not a contact.erased event.
    const idless = delivery('dlv_e2', 'contact.erased', {});
    expect((await handler(post(idless, signed(idless)))).status).toBe(400);
    expect(erased).toEqual(['con_1']);
  });

  it('gives kinds without a handler, and kinds it does not know, to "*"; without "*" it acknowledges them', async () => {
    const { handler, seen } = recorder();
    const merged = delivery('dlv_m', 'contact.merged', { id: 'con_1', into: 'con_2' });
    const deleted = delivery('dlv_d', 'deal.deleted', {
      id: 'deal_1',
      contactId: 'con_1',
      title: 'Renewal',
      stage: 'OPEN',
      amountCents: 100,
      currency: 'EUR',
      createdAt: '2026-11-22T01:00:00Z',
      updatedAt: '2026-11-22T01:00:00Z',
    });
    expect((await handler(post(merged, signed(merged)))).status).toBe(204);
    expect((await handler(post(deleted, signed(deleted)))).status).toBe(204);
    expect(seen.map((event) => String(event.event))).toEqual(['contact.merged', 'deal.deleted']);

    const onlyCreated: unknown[] = [];
    const narrow = client.webhooks.handler({
      secret: SECRET,
      on: { 'contact.created': (event) => onlyCreated.push(event.id) },
    });
    expect((await narrow(post(merged, signed(merged)))).status).toBe(204);
    expect(onlyCreated).toEqual([]);
  });

  it('refuses a bad signature with 401 and a body that tells nothing, and runs no handler', async () => {
    const { handler, seen } = recorder();
    const body = delivery('dlv_bad');
    const cases: Record<string, string>[] = [
      {
        'x-service-signature': signPayload(body, {
          secret: 'whsec_other',
          timestamp: NOW_MS / 1000,
        }),
      },
      signed(body, Math.floor(NOW_MS / 1000) - 301),
      { 'x-service-signature': 't=1,v1=zz' },
      {},
    ];
    const bodies = new Set<string>();
    for (const headers of cases) {
      const response = await handler(post(body, headers));
      expect(response.status).toBe(401);
      bodies.add(await response.text());
    }
    expect([...bodies]).toEqual(['The webhook signature did not verify.\n']);
    expect(seen).toEqual([]);
  });

  it('answers 400 to a verified body that is not an event', async () => {
    const { handler, seen } = recorder();
    for (const body of ['not json', JSON.stringify({ id: 'dlv_x', event: 'contact.created' })]) {
      const response = await handler(post(body, signed(body)));
      expect(response.status).toBe(400);
      expect(await response.text()).toBe('The webhook body is not a valid event.\n');
    }
    expect(seen).toEqual([]);
  });

  it('answers 500 and tells onError when the body was already read', async () => {
    const { handler, seen, errors } = recorder();
    const body = delivery('dlv_read');
    const request = post(body, signed(body));
    await request.text();
    expect((await handler(request)).status).toBe(500);
    expect(ConfigurationError.isInstance(errors[0])).toBe(true);
    expect((errors[0] as Error).message).toContain('c.req.raw');
    expect(seen).toEqual([]);
  });

  it('answers 405 with Allow: POST to other methods', async () => {
    const { handler } = recorder();
    const response = await handler(new Request('https://subscriber.test/webhooks/followup'));
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });

  it('answers 413 past maxBodyBytes, by Content-Length or while reading a stream', async () => {
    const { handler, seen } = recorder({ maxBodyBytes: 64 });
    const body = delivery('dlv_big');
    expect((await handler(post(body, signed(body)))).status).toBe(413);
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(32));
      },
    });
    const response = await handler(post(endless, { 'content-type': 'application/json' }));
    expect(response.status).toBe(413);
    expect(pulled).toBeLessThan(10);
    expect(seen).toEqual([]);
  });

  it('answers 500 when a handler throws, tells onError, and handles the retry again', async () => {
    let calls = 0;
    const errors: unknown[] = [];
    const handler = client.webhooks.handler({
      secret: SECRET,
      on: {
        'contact.created': async () => {
          calls++;
          if (calls === 1) throw new Error('database down');
        },
      },
      onError: (error, event) => errors.push([(error as Error).message, event?.id]),
    });
    const body = delivery('dlv_fail');
    const first = await handler(post(body, signed(body)));
    expect(first.status).toBe(500);
    expect(await first.text()).not.toContain('database down');
    expect(errors).toEqual([['database down', 'dlv_fail']]);
    expect((await handler(post(body, signed(body)))).status).toBe(204);
    expect((await handler(post(body, signed(body)))).status).toBe(204);
    expect(calls).toBe(2);
  });

  it('gives a copy that arrives while the first is being handled the first one’s answer', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let calls = 0;
    let verified = 0;
    let copyVerified: () => void = () => {};
    const copyReady = new Promise<void>((resolve) => {
      copyVerified = resolve;
    });
    // The real verifier, wrapped to tell when the copy is verified (and so about to find the
    // first one in flight): the order is fixed, not raced.
    const handler = createWebhookHandler(
      {
        secret: SECRET,
        on: {
          'contact.created': async () => {
            calls++;
            await gate;
            throw new Error('failed after a while');
          },
        },
        onError: () => {},
      },
      {
        clock,
        verify: async (...args) => {
          const event = await verifyWebhook(...args);
          if (++verified === 2) copyVerified();
          return event;
        },
      },
    );
    const body = delivery('dlv_slow');
    const first = handler(post(body, signed(body)));
    const copy = handler(post(body, signed(body)));
    await copyReady;
    // Only microtasks lie between the copy's verification and its look at what is in flight.
    await new Promise((resolve) => setImmediate(resolve));
    release();
    expect((await first).status).toBe(500);
    expect((await copy).status).toBe(500);
    expect(calls).toBe(1);
  });

  it('claims each delivery in the store it is given, for the dedupe window', async () => {
    const calls: string[] = [];
    const claimed = new Set<string>(['dlv_seen_elsewhere']);
    const store: DeliveryStore = {
      claim: async (id, ttlMs) => {
        calls.push(`claim ${id} ${ttlMs}`);
        if (claimed.has(id)) return false;
        claimed.add(id);
        return true;
      },
      release: async (id) => {
        calls.push(`release ${id}`);
        claimed.delete(id);
      },
    };
    const { handler, seen } = recorder({ store, dedupeWindowMs: 60_000 });
    const fresh = delivery('dlv_fresh');
    const old = delivery('dlv_seen_elsewhere');
    expect((await handler(post(fresh, signed(fresh)))).status).toBe(204);
    expect((await handler(post(old, signed(old)))).status).toBe(204);
    expect(seen.map((event) => event.id)).toEqual(['dlv_fresh']);
    expect(calls).toEqual(['claim dlv_fresh 60000', 'claim dlv_seen_elsewhere 60000']);

    // A store that fails: 500, so that the server sends the delivery again.
    const broken = recorder({
      store: { claim: () => Promise.reject(new Error('redis down')), release: () => {} },
    });
    expect((await broken.handler(post(fresh, signed(fresh)))).status).toBe(500);
    expect(broken.seen).toEqual([]);
    expect(broken.errors).toHaveLength(1);
  });

  it('with store: false, handles every verified request', async () => {
    const { handler, seen } = recorder({ store: false });
    const body = delivery('dlv_twice');
    await handler(post(body, signed(body)));
    await handler(post(body, signed(body)));
    expect(seen).toHaveLength(2);
  });

  it('checks the timestamp against the client’s clock', async () => {
    const { handler, seen } = recorder();
    const body = delivery('dlv_clock');
    // Signed at the client clock's time (2026-11-22), which the real clock may be far from.
    expect((await handler(post(body, signed(body, Math.floor(NOW_MS / 1000) + 299)))).status).toBe(
      204,
    );
    expect(seen).toHaveLength(1);
    // A tolerance of its own: 20 s old is too old for 10.
    const strict = recorder({ tolerance: 10 });
    const late = delivery('dlv_late');
    const stale = signed(late, Math.floor(NOW_MS / 1000) - 20);
    expect((await strict.handler(post(late, stale))).status).toBe(401);
    expect((await handler(post(late, stale))).status).toBe(204);
  });

  it('refuses options that cannot work when it is built', () => {
    const on = { 'contact.created': () => {} };
    for (const options of [
      { secret: SECRET, on: undefined },
      { secret: SECRET, on: { 'contact.created': 'not a function' } },
      { secret: SECRET, on, maxBodyBytes: 0 },
      { secret: SECRET, on, dedupeWindowMs: 1.5 },
      { secret: SECRET, on, store: {} },
      { secret: SECRET, on, tolerance: -1 },
      { secret: SECRET, on, tolerance: Number.POSITIVE_INFINITY },
    ]) {
      expect(() => client.webhooks.handler(options as unknown as WebhookHandlerOptions)).toThrow(
        ConfigurationError,
      );
    }
  });
});

describe('MemoryDeliveryStore', () => {
  it('remembers a claim for its time to live, on the injected clock', () => {
    let now = 1_000;
    const store = new MemoryDeliveryStore({ now: () => now });
    expect(store.claim('dlv_1', 500)).toBe(true);
    expect(store.claim('dlv_1', 500)).toBe(false);
    now += 499;
    expect(store.claim('dlv_1', 500)).toBe(false);
    now += 1;
    expect(store.claim('dlv_1', 500)).toBe(true);
    store.release('dlv_1');
    expect(store.claim('dlv_1', 500)).toBe(true);
  });

  it('keeps at most maxEntries, forgetting the oldest claim first', () => {
    const store = new MemoryDeliveryStore({ maxEntries: 3, now: () => 0 });
    for (const id of ['a', 'b', 'c', 'd']) expect(store.claim(id, 1_000)).toBe(true);
    expect(store.size).toBe(3);
    expect(store.claim('a', 1_000)).toBe(true); // forgotten
    expect(store.claim('d', 1_000)).toBe(false);
    for (let index = 0; index < 10_000; index++) store.claim(`dlv_${index}`, 1_000);
    expect(store.size).toBe(3);
  });

  it('sweeps expired claims as new ones come', () => {
    let now = 0;
    const store = new MemoryDeliveryStore({ now: () => now });
    for (let index = 0; index < 100; index++) store.claim(`dlv_${index}`, 10);
    now = 11;
    store.claim('dlv_new', 10);
    expect(store.size).toBe(1);
  });

  it('is the default, with the documented window', () => {
    expect(DEFAULT_WEBHOOK_DEDUPE_WINDOW_MS).toBe(4 * 24 * 60 * 60 * 1000);
    expect(() => new MemoryDeliveryStore({ maxEntries: 0 })).toThrow(RangeError);
  });
});

describe('client.webhooks.handler (Node)', () => {
  let server: Server | undefined;
  afterEach(async () => {
    if (!server) return;
    server.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
  });

  async function listen(
    listener: (request: IncomingMessage, response: ServerResponse) => void,
  ): Promise<string> {
    server = createServer(listener).listen(0, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address();
    if (typeof address !== 'object' || address === null) throw new Error('no address');
    return `http://127.0.0.1:${address.port}/webhooks/followup`;
  }

  it('serves node:http: handles, dedupes, refuses bad signatures and other methods', async () => {
    const { handler, seen } = recorder();
    const url = await listen(handler.node);
    const body = delivery('dlv_node');
    const send = (payload: string, headers: Record<string, string>) =>
      fetch(url, { method: 'POST', body: payload, headers });
    expect((await send(body, signed(body))).status).toBe(204);
    expect((await send(body, signed(body))).status).toBe(204);
    expect(seen.map((event) => event.id)).toEqual(['dlv_node']);
    const forged = await send(body.replace('Ada', 'Eve'), signed(body));
    expect(forged.status).toBe(401);
    expect(await forged.text()).toBe('The webhook signature did not verify.\n');
    const standard = delivery('dlv_node_std');
    expect((await send(standard, standardSigned('dlv_node_std', standard))).status).toBe(204);
    const get = await fetch(url);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect(seen).toHaveLength(2);
  });

  it('answers 413 to a body past the limit, streamed without Content-Length', async () => {
    const { handler, seen } = recorder({ maxBodyBytes: 1024 });
    const url = await listen(handler.node);
    const chunk = new Uint8Array(512);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent++;
        if (sent > 8) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const response = await fetch(url, {
      method: 'POST',
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(seen).toEqual([]);
  });

  it('uses a raw body a framework already read (express.raw), and refuses a parsed one', async () => {
    const { handler, seen, errors } = recorder();
    const body = delivery('dlv_express');
    let parsed = false;
    const url = await listen((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const raw = Buffer.concat(chunks);
        Object.assign(request, { body: parsed ? JSON.parse(raw.toString()) : raw });
        void handler.node(request, response);
      });
    });
    expect((await fetch(url, { method: 'POST', body, headers: signed(body) })).status).toBe(204);
    expect(seen.map((event) => event.id)).toEqual(['dlv_express']);
    parsed = true;
    const other = delivery('dlv_parsed');
    const refused = await fetch(url, { method: 'POST', body: other, headers: signed(other) });
    expect(refused.status).toBe(500);
    expect(ConfigurationError.isInstance(errors[0])).toBe(true);
    expect((errors[0] as Error).message).toContain('express.raw()');
    expect(seen).toHaveLength(1);
  });
});
