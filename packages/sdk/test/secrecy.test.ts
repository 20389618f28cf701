import { inspect } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigurationError, FollowUp, type FollowUpOptions } from '../src/index.js';
import {
  type Fixture,
  SERVICE_ACCOUNT_ID,
  startFixture,
  TOKEN,
  TOKEN_SECRET,
} from './fixture-server.js';
import { instantSleep, manualClock, seen } from './helpers.js';

let fixture: Fixture;
beforeAll(async () => {
  fixture = await startFixture({ contacts: 3 });
});
afterAll(() => fixture.close());
afterEach(() => {
  expect(fixture.pendingScripts()).toBe(0);
});

function deepInspect(value: unknown): string {
  return inspect(value, { depth: Number.POSITIVE_INFINITY, showHidden: true, getters: true });
}

describe('malformed tokens', () => {
  it.each([
    ['', 'empty'],
    ['hns_sa_1', 'no secret'],
    ['sa_1.secretsecret', 'no prefix'],
    ['Bearer hns_sa_1.secretsecret', 'with Bearer'],
    ['hns_sa_1.secretsecret\n', 'trailing newline'],
  ])('refuses %j (%s) at construction, before any request', (token) => {
    let calls = 0;
    const options: FollowUpOptions = {
      token,
      baseUrl: fixture.baseUrl,
      fetch: async () => {
        calls++;
        return new Response('{}');
      },
    };
    expect(() => new FollowUp(options)).toThrow(ConfigurationError);
    try {
      new FollowUp(options);
    } catch (error) {
      expect((error as Error).message).not.toContain('secretsecret');
    }
    expect(calls).toBe(0);
  });

  it('refuses a bad baseUrl and out-of-range options', () => {
    const base = { token: TOKEN, baseUrl: fixture.baseUrl };
    expect(() => new FollowUp({ ...base, baseUrl: 'followup.example.com' })).toThrow(
      ConfigurationError,
    );
    expect(() => new FollowUp({ ...base, baseUrl: 'ftp://x' })).toThrow(ConfigurationError);
    expect(() => new FollowUp({ ...base, baseUrl: 'https://u:p@x' })).toThrow(ConfigurationError);
    expect(() => new FollowUp({ ...base, timeout: 0 })).toThrow(ConfigurationError);
    expect(() => new FollowUp({ ...base, maxRetries: -1 })).toThrow(ConfigurationError);
    expect(
      () => new FollowUp({ ...base, clock: { now: () => 0 } as FollowUpOptions['clock'] & object }),
    ).toThrow(ConfigurationError);
    expect(
      () =>
        new FollowUp({ ...base, validation: 'loose' as FollowUpOptions['validation'] & string }),
    ).toThrow(ConfigurationError);
  });
});

describe('the token secret never leaks', () => {
  it('is absent from JSON.stringify and util.inspect of the client and its resources', () => {
    const client = new FollowUp({ token: TOKEN, baseUrl: `${fixture.baseUrl}/` });
    const json = JSON.stringify(client);
    expect(JSON.parse(json)).toEqual({
      baseUrl: fixture.baseUrl,
      serviceAccountId: SERVICE_ACCOUNT_ID,
      timeout: 60_000,
      maxRetries: 2,
    });
    for (const value of [client, client.contacts, client.audit, client.inbox, client.webhooks]) {
      expect(deepInspect(value)).not.toContain(TOKEN_SECRET);
      expect(JSON.stringify(value) ?? '').not.toContain(TOKEN_SECRET);
      expect(String(value)).not.toContain(TOKEN_SECRET);
    }
    expect(inspect(client)).toContain('[redacted]');
    expect(inspect(client)).toContain(SERVICE_ACCOUNT_ID);
  });

  it('is absent from every error and every log line', async () => {
    const lines: string[] = [];
    const log = (message: string, fields?: Record<string, unknown>) =>
      lines.push(`${message} ${deepInspect(fields)}`);
    const controller = new AbortController();
    const clock = manualClock();
    const client = new FollowUp({
      token: TOKEN,
      baseUrl: fixture.baseUrl,
      logger: { debug: log, info: log, warn: log, error: log },
      validation: 'warn',
      sleep: instantSleep().sleep,
      clock,
      maxRetries: 1,
    });
    const refused = new FollowUp({ token: TOKEN, baseUrl: 'http://127.0.0.1:9', maxRetries: 0 });
    fixture.script(
      'GET',
      '/api/contacts/con_a',
      { status: 503, body: { code: 'x' } },
      { times: 2 },
    );
    fixture.script('GET', '/api/contacts/con_b', { destroy: true }, { times: 2 });
    fixture.script('GET', '/api/contacts/con_c', { body: { id: 'con_c' } });
    fixture.script('GET', '/api/contacts/con_d', { status: 200, body: 'garbage' });
    fixture.script('GET', '/api/contacts/con_e', { hang: true });
    fixture.script('GET', '/api/contacts/con_f', { hang: true });
    const calls = Promise.allSettled([
      client.contacts.get('con_a'),
      client.contacts.get('con_b'),
      client.contacts.get('con_c'),
      client.contacts.get('con_d'),
      client.contacts.get('con_e', { signal: controller.signal }),
      client.contacts.get('con_f', { timeout: 1 }),
      client.contacts.list({ limit: 2 }).then((page) => page.getNextPage()),
      refused.contacts.get('con_g'),
      client.contacts.get('con_missing'),
    ]);
    // Abort one hanging call and let the other time out, once both have reached the server.
    await seen(fixture, '/api/contacts/con_e');
    await seen(fixture, '/api/contacts/con_f');
    controller.abort();
    clock.advance(1);
    const outcomes = await calls;
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'rejected', // 503 twice
      'rejected', // connection dropped twice
      'fulfilled', // an invalid body, only warned about
      'rejected', // not JSON
      'rejected', // aborted
      'rejected', // timed out
      'fulfilled',
      'rejected', // connection refused
      'rejected', // 404
    ]);
    const errors = outcomes.flatMap((outcome) =>
      outcome.status === 'rejected' ? [outcome.reason as unknown] : [],
    );
    expect(errors.map((error) => (error as Error).name)).toEqual([
      'InternalServerError',
      'APIConnectionError',
      'ResponseValidationError',
      'APIUserAbortError',
      'APITimeoutError',
      'APIConnectionError',
      'NotFoundError',
    ]);
    // The check itself can see a secret where there is one.
    expect(
      deepInspect(new Error('x', { cause: { headers: new Headers({ a: TOKEN }) } })),
    ).toContain(TOKEN_SECRET);
    for (const error of errors) {
      expect(deepInspect(error)).not.toContain(TOKEN_SECRET);
      expect(JSON.stringify(error)).not.toContain(TOKEN_SECRET);
      expect(String((error as Error).stack)).not.toContain(TOKEN_SECRET);
    }
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) expect(line).not.toContain(TOKEN_SECRET);
  });
});
