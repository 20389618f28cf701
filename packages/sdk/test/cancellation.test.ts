import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { APITimeoutError, APIUserAbortError, FollowUp, type RetryEvent } from '../src/index.js';
import { type Fixture, startFixture, TOKEN } from './fixture-server.js';
import { clientFor, manualClock, seen, until } from './helpers.js';

let fixture: Fixture;
beforeAll(async () => {
  fixture = await startFixture({ contacts: 120, auditEntries: 30 });
});
afterAll(() => fixture.close());
afterEach(() => {
  expect(fixture.pendingScripts()).toBe(0);
});

const PATH = '/api/contacts/con_00000001';

describe('abort', () => {
  it('aborts during the request', async () => {
    const { client } = clientFor(fixture);
    const controller = new AbortController();
    const before = fixture.count(PATH);
    fixture.script('GET', PATH, { hang: true });
    const pending = client.contacts.get('con_00000001', { signal: controller.signal });
    await seen(fixture, PATH, before + 1);
    const reason = new Error('user navigated away');
    controller.abort(reason);
    const error = await pending.catch((caught: unknown) => caught);
    expect(APIUserAbortError.isInstance(error)).toBe(true);
    expect((error as APIUserAbortError).cause).toBe(reason);
    expect(fixture.count(PATH)).toBe(before + 1);
  });

  it('cuts a Retry-After: 30 wait short, and cancels its timer', async () => {
    const controller = new AbortController();
    const events: RetryEvent[] = [];
    const clock = manualClock();
    // No `sleep` option: the SDK's own wait, on the clock's timers.
    const client = new FollowUp({
      token: TOKEN,
      baseUrl: fixture.baseUrl,
      clock,
      onRetry: (event) => events.push(event),
    });
    const before = fixture.count(PATH);
    fixture.script('GET', PATH, {
      status: 429,
      headers: { 'retry-after': '30' },
      body: { code: 'rate_limited' },
    });
    const pending = client.contacts
      .get('con_00000001', { signal: controller.signal })
      .catch((caught: unknown) => caught);
    // The call's deadline (60 s) and the 30 s wait.
    await until(() => clock.pendingTimers().length === 2);
    expect(clock.pendingTimers()).toEqual([60_000, 30_000]);
    controller.abort();
    const error = await pending;
    expect(APIUserAbortError.isInstance(error)).toBe(true);
    expect(events.map((event) => event.delayMs)).toEqual([30_000]);
    expect(fixture.count(PATH)).toBe(before + 1);
    expect(clock.pendingTimers()).toEqual([]);
  });

  it('cuts short an injected sleep that ignores the signal', async () => {
    const controller = new AbortController();
    const { client } = clientFor(fixture, {
      sleep: () => new Promise<void>(() => undefined),
      onRetry: () => queueMicrotask(() => controller.abort()),
    });
    fixture.script('GET', PATH, { status: 503, body: { code: 'unavailable' } });
    const error = await client.contacts
      .get('con_00000001', { signal: controller.signal })
      .catch((caught: unknown) => caught);
    expect(APIUserAbortError.isInstance(error)).toBe(true);
  });

  it('aborts between pages: the walk stops without another request', async () => {
    const { client } = clientFor(fixture);
    const controller = new AbortController();
    const before = fixture.count('/api/contacts');
    const seenIds: string[] = [];
    let caught: unknown;
    try {
      for await (const contact of client.contacts.list(
        { limit: 50 },
        { signal: controller.signal },
      )) {
        seenIds.push(contact.id);
        if (seenIds.length === 50) controller.abort();
      }
    } catch (error) {
      caught = error;
    }
    expect(APIUserAbortError.isInstance(caught)).toBe(true);
    expect((caught as APIUserAbortError).resumeFrom).toEqual({ offset: 50 });
    expect(seenIds).toHaveLength(50);
    expect(fixture.count('/api/contacts') - before).toBe(1);
  });

  it('aborts a cursor walk between pages', async () => {
    const { client } = clientFor(fixture);
    const controller = new AbortController();
    const pages: number[] = [];
    const error = await (async () => {
      for await (const page of client.audit
        .list({ limit: 10 }, { signal: controller.signal })
        .pages()) {
        pages.push(page.items.length);
        controller.abort();
      }
    })().catch((caught: unknown) => caught);
    expect(APIUserAbortError.isInstance(error)).toBe(true);
    expect(pages).toEqual([10]);
    expect((error as APIUserAbortError).resumeFrom).toHaveProperty('cursor');
  });

  it('honours the client-level signal, and refuses to start once it is aborted', async () => {
    const controller = new AbortController();
    const { client } = clientFor(fixture, { signal: controller.signal });
    expect((await client.contacts.get('con_00000001')).id).toBe('con_00000001');
    controller.abort();
    const before = fixture.requests.length;
    const error = await client.contacts.get('con_00000001').catch((caught: unknown) => caught);
    expect(APIUserAbortError.isInstance(error)).toBe(true);
    expect(fixture.requests.length).toBe(before);
  });
});

describe('timeouts', () => {
  it('times out a request that never answers', async () => {
    const clock = manualClock();
    const { client } = clientFor(fixture, { timeout: 50, clock });
    const before = fixture.count(PATH);
    fixture.script('GET', PATH, { hang: true });
    const pending = client.contacts.get('con_00000001').catch((caught: unknown) => caught);
    await seen(fixture, PATH, before + 1);
    clock.advance(49);
    clock.advance(1);
    const error = await pending;
    expect(APITimeoutError.isInstance(error)).toBe(true);
    expect((error as APITimeoutError).method).toBe('GET');
    expect(clock.pendingTimers()).toEqual([]);
  });

  it('counts the waits between retries in the timeout', async () => {
    const clock = manualClock();
    let sleeping = false;
    const { client } = clientFor(fixture, {
      timeout: 200,
      clock,
      // A sleep that never ends: only the call's deadline can stop it.
      sleep: () => {
        sleeping = true;
        return new Promise<void>(() => undefined);
      },
      random: () => 0.1,
    });
    fixture.script('GET', PATH, { status: 503, body: { code: 'unavailable' } });
    const pending = client.contacts.get('con_00000001').catch((caught: unknown) => caught);
    await until(() => sleeping);
    clock.advance(200);
    const error = await pending;
    expect(APITimeoutError.isInstance(error)).toBe(true);
  });

  it('gives a later page its own budget, under the same option', async () => {
    const clock = manualClock();
    // Each answered page uses 1.5 s of the 2 s budget: a budget shared by the walk would run out
    // on the second page at 2 s; a budget per page runs out only 2 s after that page started.
    const { client } = clientFor(fixture, {
      timeout: 2_000,
      clock,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        clock.advance(1_500);
        return response;
      },
    });
    fixture.script(
      'GET',
      '/api/contacts',
      { hang: true },
      { when: (query) => query.offset === '100' },
    );
    const ids: string[] = [];
    let settled = false;
    const pending = (async () => {
      for await (const contact of client.contacts.list({ limit: 100 })) ids.push(contact.id);
    })()
      .catch((caught: unknown) => caught)
      .finally(() => {
        settled = true;
      });
    await until(() => fixture.requests.some((request) => request.query.offset === '100'));
    clock.advance(1_999);
    // Give an abort every chance to surface before checking that none happened.
    for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    clock.advance(1);
    const error = await pending;
    expect(ids).toHaveLength(100);
    expect(APITimeoutError.isInstance(error)).toBe(true);
    expect((error as APITimeoutError).resumeFrom).toEqual({ offset: 100 });
  });

  it('lets a per-call timeout override the client one', async () => {
    const clock = manualClock();
    const { client } = clientFor(fixture, { clock });
    const before = fixture.count(PATH);
    fixture.script('GET', PATH, { hang: true });
    const pending = client.contacts
      .get('con_00000001', { timeout: 30 })
      .catch((caught: unknown) => caught);
    await seen(fixture, PATH, before + 1);
    expect(clock.pendingTimers()).toEqual([30]);
    clock.advance(30);
    const error = await pending;
    expect(APITimeoutError.isInstance(error)).toBe(true);
  });
});
