import { describe, expect, it } from 'vitest';
import type { FetchLike } from '../client-options.js';
import type { RequestEvent } from '../request-options.js';
import type { BuiltRequest } from './build-request.js';
import { type Attempt, createTransport } from './send-once.js';
import { systemClock } from './sleep.js';

const request: BuiltRequest = {
  method: 'POST',
  url: 'https://api.example.com/api/contacts?limit=2',
  headers: {
    accept: 'application/json',
    'x-trace': 'kept',
    'x-drop': 'dropped by the hook',
    authorization: 'Bearer hns_sa_x.c2VjcmV0',
    'content-type': 'application/json',
    'idempotency-key': 'key-1',
  },
  body: '{"firstName":"Ada"}',
  timeout: 1000,
  maxRetries: 0,
  signals: [],
};

function attempt(number = 1): Attempt {
  return { request, number, signal: new AbortController().signal, started: 0 };
}

/** A fetch that records what it was asked to send and answers `status`. */
function recordingFetch(status = 200): { fetch: FetchLike; sent: Request[]; bodies: string[] } {
  const sent: Request[] = [];
  const bodies: string[] = [];
  return {
    sent,
    bodies,
    fetch: async (input, init) => {
      const sentRequest = new Request(input, init);
      sent.push(sentRequest);
      bodies.push(await sentRequest.clone().text());
      return new Response('{}', { status, headers: { 'x-request-id': 'req_1' } });
    },
  };
}

describe('createTransport (ky, one attempt)', () => {
  it('sends the method, URL, headers and body as built, and returns the response unread', async () => {
    const { fetch, sent, bodies } = recordingFetch(503);
    const send = createTransport({
      fetch,
      clock: systemClock,
      onRequest: undefined,
      onResponse: undefined,
    });
    const response = await send(attempt());
    // ky's throwHttpErrors is off: a 503 is a response for the client to judge, not a ky error.
    expect(response.status).toBe(503);
    expect(response.bodyUsed).toBe(false);
    expect(sent[0]?.method).toBe('POST');
    expect(sent[0]?.url).toBe(request.url);
    expect(sent[0]?.headers.get('idempotency-key')).toBe('key-1');
    expect(sent[0]?.headers.get('authorization')).toBe('Bearer hns_sa_x.c2VjcmV0');
    expect(bodies[0]).toBe('{"firstName":"Ada"}');
  });

  it("lets onRequest (ky's beforeRequest) add, change and remove headers but never the client's own", async () => {
    const { fetch, sent } = recordingFetch();
    const seen: RequestEvent[] = [];
    const send = createTransport({
      fetch,
      clock: systemClock,
      onRequest: (event) => {
        seen.push({ ...event, headers: { ...event.headers } });
        event.headers.traceparent = `trace-${event.attempt}`;
        event.headers.authorization = 'Bearer stolen';
        event.headers['Idempotency-Key'] = 'replaced';
        delete event.headers['x-drop'];
      },
      onResponse: undefined,
    });
    await send(attempt(2));
    expect(seen[0]?.attempt).toBe(2);
    expect(seen[0]?.url).toBe(request.url);
    expect(Object.keys(seen[0]?.headers ?? {}).sort()).toEqual(['accept', 'x-drop', 'x-trace']);
    const headers = sent[0]?.headers;
    expect(headers?.get('traceparent')).toBe('trace-2');
    expect(headers?.get('x-trace')).toBe('kept');
    expect(headers?.has('x-drop')).toBe(false);
    expect(headers?.get('authorization')).toBe('Bearer hns_sa_x.c2VjcmV0');
    expect(headers?.get('idempotency-key')).toBe('key-1');
  });

  it("gives onResponse (ky's afterResponse) the status, request id and time by the client's clock", async () => {
    const { fetch } = recordingFetch(201);
    let now = 5_000;
    const clock = { now: () => now, setTimer: () => () => undefined };
    const events: unknown[] = [];
    const send = createTransport({
      fetch: async (input, init) => {
        now += 42;
        return fetch(input, init);
      },
      clock,
      onRequest: undefined,
      onResponse: (event) => events.push(event),
    });
    const response = await send({ ...attempt(), started: now });
    expect(events).toMatchObject([
      {
        method: 'POST',
        url: request.url,
        attempt: 1,
        status: 201,
        requestId: 'req_1',
        durationMs: 42,
      },
    ]);
    // The hook saw a copy: the client can still read the body.
    expect(await response.text()).toBe('{}');
  });

  it("marks a hook's exception, so that the call fails with it as it is", async () => {
    const bug = new TypeError('fetch failed');
    let fetched = 0;
    const send = createTransport({
      fetch: async () => {
        fetched++;
        return new Response('{}');
      },
      clock: systemClock,
      onRequest: () => {
        throw bug;
      },
      onResponse: undefined,
    });
    const failing = attempt();
    await expect(send(failing)).rejects.toBe(bug);
    expect(failing.hookError).toEqual({ error: bug });
    expect(fetched).toBe(0);
  });

  it("gives fetch the call's one signal, so that an abort stops the request in flight", async () => {
    const controller = new AbortController();
    const send = createTransport({
      fetch: (_input, init) =>
        new Promise((_resolve, reject) => {
          expect(init?.signal).toBe(controller.signal);
          init?.signal?.addEventListener('abort', () => reject(init.signal?.reason));
        }),
      clock: systemClock,
      onRequest: undefined,
      onResponse: undefined,
    });
    const pending = send({ ...attempt(), signal: controller.signal });
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort(new Error('stopped'));
    await expect(pending).rejects.toThrow('stopped');
  });

  it("passes on a network failure as the runtime's own error, never ky's NetworkError", async () => {
    const network = new TypeError('fetch failed');
    const bug = new RangeError('a bug in a fetch wrapper');
    for (const thrown of [network, bug]) {
      const send = createTransport({
        fetch: async () => {
          throw thrown;
        },
        clock: systemClock,
        onRequest: undefined,
        onResponse: undefined,
      });
      const failing = attempt();
      await expect(send(failing)).rejects.toBe(thrown);
      expect(failing.hookError).toBeUndefined();
    }
  });
});
