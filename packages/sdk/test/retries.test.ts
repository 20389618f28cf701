import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  APIConnectionError,
  ConfigurationError,
  InternalServerError,
  RateLimitError,
  type RetryEvent,
} from '../src/index.js';
import { type Fixture, startFixture } from './fixture-server.js';
import { clientFor, manualClock } from './helpers.js';

let fixture: Fixture;
beforeAll(async () => {
  fixture = await startFixture({ contacts: 1 });
});
afterAll(() => fixture.close());
afterEach(() => {
  expect(fixture.pendingScripts()).toBe(0);
});

const PATH = '/api/contacts/con_00000000';

function problemBody(status: number) {
  return { title: 'Failure', status, code: `code_${status}` };
}

describe('retries', () => {
  it.each([408, 429, 500, 502, 503, 504])('retries %i, then succeeds', async (status) => {
    const events: RetryEvent[] = [];
    const { client, waits } = clientFor(fixture, { onRetry: (event) => events.push(event) });
    const before = fixture.count(PATH);
    fixture.script('GET', PATH, { status, body: problemBody(status) });
    const contact = await client.contacts.get('con_00000000');
    expect(contact.id).toBe('con_00000000');
    expect(fixture.count(PATH) - before).toBe(2);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ attempt: 1, reason: 'status', status, method: 'GET' });
    expect(events[0]?.delayMs).toBe(250); // full jitter with random() = 0.5: 0.5 × 500 ms
    expect(waits).toEqual([250]);
  });

  it.each([400, 401, 403, 404, 409, 413, 501, 418])('never retries %i', async (status) => {
    const events: RetryEvent[] = [];
    const { client, waits } = clientFor(fixture, {
      maxRetries: 5,
      onRetry: (event) => events.push(event),
    });
    const before = fixture.count(PATH);
    fixture.script('GET', PATH, { status, body: problemBody(status) }, { times: 6 });
    const error = await client.contacts.get('con_00000000').catch((caught: unknown) => caught);
    expect((error as { status: number }).status).toBe(status);
    expect(fixture.count(PATH) - before).toBe(1);
    expect(events).toEqual([]);
    expect(waits).toEqual([]);
    // Drain the scripted answers this test did not use.
    for (let index = 0; index < 5; index++)
      await client.contacts.get('con_00000000').catch(() => 0);
  });

  it('gives up after maxRetries + 1 attempts with backoff growing exponentially', async () => {
    const { client, waits } = clientFor(fixture, { maxRetries: 3, random: () => 0.999 });
    const before = fixture.count(PATH);
    fixture.script('GET', PATH, { status: 503, body: problemBody(503) }, { times: 4 });
    const error = await client.contacts.get('con_00000000').catch((caught: unknown) => caught);
    expect(InternalServerError.isInstance(error)).toBe(true);
    expect(fixture.count(PATH) - before).toBe(4);
    expect(waits).toEqual([499, 999, 1998]);
  });

  it('honours Retry-After in seconds', async () => {
    const { client, waits } = clientFor(fixture);
    fixture.script('GET', PATH, {
      status: 429,
      headers: { 'retry-after': '3' },
      body: problemBody(429),
    });
    await client.contacts.get('con_00000000');
    expect(waits).toEqual([3000]);
  });

  it('honours Retry-After as an HTTP date', async () => {
    const events: RetryEvent[] = [];
    const clock = manualClock();
    const { client } = clientFor(fixture, { clock, onRetry: (event) => events.push(event) });
    const date = new Date(clock.now() + 20_000).toUTCString();
    fixture.script('GET', PATH, {
      status: 503,
      headers: { 'retry-after': date },
      body: problemBody(503),
    });
    await client.contacts.get('con_00000000');
    // Read against the client's clock: exactly the 20 s the date is ahead of it.
    expect(events[0]?.delayMs).toBe(20_000);
  });

  it('caps Retry-After at 60 s, and keeps the uncapped value on the error', async () => {
    const { client, waits } = clientFor(fixture, { maxRetries: 1, timeout: 120_000 });
    fixture.script(
      'GET',
      PATH,
      { status: 429, headers: { 'retry-after': '3600' }, body: problemBody(429) },
      { times: 2 },
    );
    const error = await client.contacts.get('con_00000000').catch((caught: unknown) => caught);
    expect(waits).toEqual([60_000]);
    expect(RateLimitError.isInstance(error)).toBe(true);
    expect((error as RateLimitError).retryAfterMs).toBe(3_600_000);
  });

  it('does not wait past the timeout: it throws the error it has', async () => {
    const { client, waits } = clientFor(fixture, { timeout: 5_000 });
    const before = fixture.count(PATH);
    fixture.script('GET', PATH, {
      status: 429,
      headers: { 'retry-after': '30' },
      body: problemBody(429),
    });
    const error = await client.contacts.get('con_00000000').catch((caught: unknown) => caught);
    expect(RateLimitError.isInstance(error)).toBe(true);
    expect(waits).toEqual([]);
    expect(fixture.count(PATH) - before).toBe(1);
  });

  it('retries a dropped connection, and reports APIConnectionError when it keeps failing', async () => {
    const events: RetryEvent[] = [];
    const { client } = clientFor(fixture, { onRetry: (event) => events.push(event) });
    fixture.script('GET', PATH, { destroy: true });
    expect((await client.contacts.get('con_00000000')).id).toBe('con_00000000');
    expect(events.map((event) => event.reason)).toEqual(['connection']);

    fixture.script('GET', PATH, { destroy: true }, { times: 3 });
    const error = await client.contacts.get('con_00000000').catch((caught: unknown) => caught);
    expect(APIConnectionError.isInstance(error)).toBe(true);
    expect((error as APIConnectionError).url).toBe(`${fixture.baseUrl}${PATH}`);
  });

  it('surfaces a non-network failure of a custom fetch at once, without retrying it', async () => {
    let calls = 0;
    const bug = new RangeError('a bug in a fetch wrapper');
    const { client } = clientFor(fixture, {
      fetch: async () => {
        calls++;
        throw bug;
      },
    });
    await expect(client.contacts.get('con_00000000')).rejects.toBe(bug);
    expect(calls).toBe(1);
  });

  it('surfaces a TypeError that is not a network failure at once, without retrying it', async () => {
    let calls = 0;
    const refused = new TypeError('Headers.append: "a\nb" is an invalid header value.');
    const { client } = clientFor(fixture, {
      fetch: async () => {
        calls++;
        throw refused;
      },
    });
    await expect(client.contacts.get('con_00000000')).rejects.toBe(refused);
    expect(calls).toBe(1);
  });

  it('calls a custom fetch as a plain function, as an unbound browser fetch requires', async () => {
    const { client } = clientFor(fixture, {
      fetch(this: unknown, input, init) {
        // A browser's own fetch throws "Illegal invocation" for any `this` but the window.
        if (this !== undefined) throw new TypeError('Illegal invocation');
        return fetch(input, init);
      },
    });
    expect((await client.contacts.get('con_00000000')).id).toBe('con_00000000');
  });

  it('retries what the custom fetch reports as a network failure', async () => {
    let calls = 0;
    const { client } = clientFor(fixture, {
      fetch: async (input, init) => {
        calls++;
        if (calls === 1) throw new TypeError('fetch failed');
        return fetch(input, init);
      },
    });
    expect((await client.contacts.get('con_00000000')).id).toBe('con_00000000');
    expect(calls).toBe(2);
  });

  it('refuses a malformed Idempotency-Key before any request', async () => {
    const { client } = clientFor(fixture);
    const before = fixture.requests.length;
    for (const idempotencyKey of ['', 'has space', 'line\nbreak', 'x'.repeat(256)]) {
      const error = await client.contacts
        .create({ firstName: 'A', lastName: 'B' }, { idempotencyKey })
        .catch((caught: unknown) => caught);
      expect(ConfigurationError.isInstance(error)).toBe(true);
    }
    expect(fixture.requests.length).toBe(before);
  });

  it('retries a POST with the same Idempotency-Key, so it creates once', async () => {
    const { client } = clientFor(fixture);
    fixture.script('POST', '/api/contacts', { status: 503, body: problemBody(503) });
    const before = fixture.collections.contacts?.length ?? 0;
    const created = await client.contacts.create({ firstName: 'Ada', lastName: 'Lovelace' });
    const posts = fixture.requests.filter((request) => request.method === 'POST').slice(-2);
    expect(posts).toHaveLength(2);
    const [first, second] = posts.map((request) => request.headers['idempotency-key']);
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    expect(second).toBe(first);
    expect(fixture.collections.contacts?.length).toBe(before + 1);
    await client.contacts.delete(created.id);
  });

  it('retries 409 idempotency_in_progress with the same key after Retry-After, so it creates once', async () => {
    const events: RetryEvent[] = [];
    const { client, waits } = clientFor(fixture, { onRetry: (event) => events.push(event) });
    fixture.script('POST', '/api/contacts', {
      status: 409,
      headers: { 'retry-after': '1' },
      body: { title: 'Conflict', status: 409, code: 'idempotency_in_progress' },
    });
    const before = fixture.collections.contacts?.length ?? 0;
    const created = await client.contacts.create({ firstName: 'Ada', lastName: 'Lovelace' });
    const posts = fixture.requests.filter((request) => request.method === 'POST').slice(-2);
    const [first, second] = posts.map((request) => request.headers['idempotency-key']);
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    expect(second).toBe(first);
    expect(events).toMatchObject([{ attempt: 1, reason: 'status', status: 409 }]);
    expect(waits).toEqual([1000]);
    expect(fixture.collections.contacts?.length).toBe(before + 1);
    await client.contacts.delete(created.id);
  });

  it('never retries another 409, such as idempotency_conflict', async () => {
    const { client, waits } = clientFor(fixture);
    fixture.script('POST', '/api/contacts', {
      status: 409,
      body: { title: 'Conflict', status: 409, code: 'idempotency_conflict' },
    });
    const error = await client.contacts
      .create({ firstName: 'Ada', lastName: 'Lovelace' })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 409, code: 'idempotency_conflict' });
    expect(waits).toEqual([]);
  });

  it('logs requests and retries through the logger', async () => {
    const lines: Array<[string, string, Record<string, unknown> | undefined]> = [];
    const logger = {
      debug: (message: string, fields?: Record<string, unknown>) =>
        lines.push(['debug', message, fields]),
      info: (message: string, fields?: Record<string, unknown>) =>
        lines.push(['info', message, fields]),
    };
    const { client } = clientFor(fixture, { logger });
    fixture.script('GET', PATH, { status: 500, body: problemBody(500) });
    await client.contacts.get('con_00000000');
    expect(lines.map(([level, message]) => `${level} ${message}`)).toEqual([
      'debug followup: request',
      'debug followup: response',
      'info followup: retrying',
      'debug followup: request',
      'debug followup: response',
    ]);
    expect(lines[2]?.[2]).toMatchObject({
      attempt: 1,
      delayMs: 250,
      reason: 'status',
      status: 500,
    });
  });
});
