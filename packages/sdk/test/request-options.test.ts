import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  type ContactListParams,
  FollowUp,
  type FollowUpOptions,
  type RequestEvent,
  type ResponseEvent,
} from '../src/index.js';
import { clientHeaders, detectRuntime, SDK_VERSION } from '../src/internal/client-header.js';
import { type Fixture, SERVICE_ACCOUNT_ID, startFixture, TOKEN } from './fixture-server.js';
import { clientFor } from './helpers.js';

let fixture: Fixture;
beforeAll(async () => {
  fixture = await startFixture({ contacts: 5 });
});
afterAll(() => fixture.close());
beforeEach(() => {
  fixture.requests.length = 0;
});
const last = () => fixture.requests.at(-1);

describe('request options and client defaults', () => {
  it('sends defaultHeaders and defaultQuery on every call, a call adding and winning', async () => {
    const { client } = clientFor(fixture, {
      defaultHeaders: { 'X-Tenant': 'north', 'x-trace': 'client' },
      defaultQuery: { debug: 'timing', tag: ['a', 'b'] },
    });
    await client.contacts.get('con_00000001', {
      headers: { 'x-trace': 'call', 'x-extra': '1' },
      query: { debug: 'off' },
    });
    const request = last();
    expect(request?.headers['x-tenant']).toBe('north');
    expect(request?.headers['x-trace']).toBe('call');
    expect(request?.headers['x-extra']).toBe('1');
    expect(request?.query.debug).toBe('off');
    expect(request?.repeated.tag).toEqual(['a', 'b']);
  });

  it('keeps a defaultQuery parameter that a call leaves undefined', async () => {
    const { client } = clientFor(fixture, {
      defaultQuery: { sort: 'createdAt', debug: 'timing' },
    });
    // contacts.list sends sort only when given: the default must reach the server.
    await client.contacts.list({ limit: 2 });
    expect(last()?.query).toMatchObject({ sort: 'createdAt', limit: '2' });
    // As a JavaScript caller passes a value it may not have (`exactOptionalPropertyTypes` would
    // refuse the undefined here).
    const unset = { limit: 2, sort: undefined } as unknown as ContactListParams;
    await client.contacts.list(unset, { query: { debug: undefined } });
    expect(last()?.query).toMatchObject({ sort: 'createdAt', debug: 'timing' });
    // A value given still wins.
    await client.contacts.list({ limit: 2, sort: '-createdAt' }, { query: { debug: 'off' } });
    expect(last()?.query).toMatchObject({ sort: '-createdAt', debug: 'off' });
  });

  it('never lets a header option replace the token, the content type or the idempotency key', async () => {
    const { client } = clientFor(fixture, { defaultHeaders: { authorization: 'Bearer stolen' } });
    await client.contacts.create(
      { firstName: 'Ada', lastName: 'Lovelace' },
      {
        headers: { 'Content-Type': 'text/plain', 'Idempotency-Key': 'mine' },
        idempotencyKey: 'the-key',
      },
    );
    const request = last();
    expect(request?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['idempotency-key']).toBe('the-key');
  });

  it('refuses a header name or value that cannot be sent, before any request', async () => {
    expect(() => clientFor(fixture, { defaultHeaders: { 'bad name': 'x' } })).toThrow(
      ConfigurationError,
    );
    const { client } = clientFor(fixture);
    await expect(
      client.contacts.get('con_1', { headers: { 'x-a': 'line\r\nbreak' } }),
    ).rejects.toBeInstanceOf(ConfigurationError);
    expect(fixture.requests).toHaveLength(0);
  });

  it('names itself in X-FollowUp-Client and User-Agent: SDK version and runtime', async () => {
    const { client } = clientFor(fixture);
    await client.contacts.count();
    const expected = `@followup/sdk/${SDK_VERSION} node/${process.versions.node}`;
    expect(SDK_VERSION).toMatch(/^\d+\.\d+\.\d+/);
    expect(last()?.headers['x-followup-client']).toBe(expected);
    expect(last()?.headers['user-agent']).toBe(expected);
  });

  it('tells runtimes apart, and leaves User-Agent to a browser', () => {
    expect(detectRuntime({ Deno: { version: { deno: '2.4.0' } } })).toEqual({
      runtime: 'deno/2.4.0',
      userAgentAllowed: true,
    });
    expect(
      detectRuntime({ Bun: { version: '1.2.0' }, process: { versions: { node: '22' } } }),
    ).toMatchObject({ runtime: 'bun/1.2.0' });
    expect(detectRuntime({ navigator: { userAgent: 'Cloudflare-Workers' } }).runtime).toBe(
      'workerd/unknown',
    );
    expect(detectRuntime({ document: {}, navigator: { userAgent: 'Mozilla/5.0' } })).toEqual({
      runtime: 'browser/unknown',
      userAgentAllowed: false,
    });
    expect(detectRuntime({})).toEqual({ runtime: 'unknown/unknown', userAgentAllowed: false });
  });

  it('always writes <runtime>/<version>, with unknown for a version that is not a plain token', () => {
    const format = /^@followup\/sdk\/\S+ [a-z]+\/[0-9A-Za-z][0-9A-Za-z.+_-]*$/;
    for (const globals of [
      {},
      { document: {} },
      { navigator: { userAgent: 'Cloudflare-Workers' } },
      { process: { versions: { node: '24.1.0' } } },
      { Deno: { version: { deno: '2.4.0' } } },
      { Bun: { version: '1.2.0' } },
      { Bun: { version: '' } },
      { Deno: { version: { deno: '2.4\r\nx-injected: 1' } } },
      { process: { versions: { node: '24 beta' } } },
    ]) {
      expect(clientHeaders(globals)['x-followup-client']).toMatch(format);
    }
    expect(clientHeaders({ Bun: { version: '' } })['x-followup-client']).toBe(
      `@followup/sdk/${SDK_VERSION} bun/unknown`,
    );
    expect(clientHeaders({ document: {} })).toEqual({
      'x-followup-client': `@followup/sdk/${SDK_VERSION} browser/unknown`,
    });
    expect(clientHeaders({ navigator: { userAgent: 'Cloudflare-Workers' } })).toEqual({
      'x-followup-client': `@followup/sdk/${SDK_VERSION} workerd/unknown`,
      'user-agent': `@followup/sdk/${SDK_VERSION} workerd/unknown`,
    });
  });

  it('calls onRequest before and onResponse after each attempt, without the token', async () => {
    const requests: RequestEvent[] = [];
    const responses: ResponseEvent[] = [];
    fixture.script('GET', '/api/contacts/con_00000002', { status: 503 }, { times: 1 });
    const { client } = clientFor(fixture, {
      onRequest: (event) => {
        requests.push({ ...event, headers: { ...event.headers } });
        event.headers.traceparent = `trace-${event.attempt}`;
      },
      onResponse: (event) => responses.push(event),
    });
    await client.contacts.get('con_00000002');
    expect(requests.map((event) => [event.method, event.attempt])).toEqual([
      ['GET', 1],
      ['GET', 2],
    ]);
    expect(JSON.stringify(requests)).not.toContain(TOKEN);
    expect(requests.every((event) => event.headers.authorization === undefined)).toBe(true);
    expect(fixture.requests.map((request) => request.headers.traceparent)).toEqual([
      'trace-1',
      'trace-2',
    ]);
    expect(
      fixture.requests.every((request) => request.headers.authorization === `Bearer ${TOKEN}`),
    ).toBe(true);
    expect(responses.map((event) => event.status)).toEqual([503, 200]);
    expect(responses[1]?.requestId).toMatch(/^req_/);
    expect(responses[1]?.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('fails the call with a hook exception as it is, never retrying it', async () => {
    const { client } = clientFor(fixture, {
      onResponse: () => {
        throw new TypeError('a bug in the hook');
      },
    });
    await expect(client.contacts.get('con_00000001')).rejects.toThrow('a bug in the hook');
    expect(fixture.requests).toHaveLength(1);
  });

  it('gives the request id with withResponse(), for calls and pages', async () => {
    const { client } = clientFor(fixture);
    const one = await client.contacts.get('con_00000001').withResponse();
    expect(one.requestId).toMatch(/^req_/);
    expect(one.requestId).toBe(one.response.headers.get('x-request-id'));
    const page = await client.contacts.list({ limit: 2 }).withResponse();
    expect(page.requestId).toMatch(/^req_/);
    expect(page.requestId).toBe(page.response.headers.get('x-request-id'));
    expect(page.data.response).toBe(page.response);
  });

  it('derives a client with withOptions, sharing the rest and adding headers', async () => {
    const { client } = clientFor(fixture, { defaultHeaders: { 'x-tenant': 'north' } });
    const derived = client.withOptions({ maxRetries: 0, defaultHeaders: { 'x-team': 'blue' } });
    expect(derived).not.toBe(client);
    expect(derived.toJSON()).toMatchObject({ maxRetries: 0, serviceAccountId: SERVICE_ACCOUNT_ID });
    expect(client.toJSON().maxRetries).not.toBe(0);
    await derived.contacts.count();
    expect(last()?.headers['x-tenant']).toBe('north');
    expect(last()?.headers['x-team']).toBe('blue');
    expect(JSON.stringify(derived)).not.toContain(TOKEN);
  });

  it('derives a client with withOptions whose undefined options keep the settings they name', async () => {
    const { client } = clientFor(fixture, {
      timeout: 12_345,
      maxRetries: 1,
      defaultQuery: { sort: 'createdAt' },
      defaultHeaders: { 'x-tenant': 'north' },
    });
    const derived = client.withOptions({
      timeout: undefined,
      maxRetries: undefined,
      token: undefined,
      baseUrl: undefined,
      defaultQuery: { sort: undefined, debug: 'timing' },
    } as unknown as Partial<FollowUpOptions>);
    expect(derived.toJSON()).toMatchObject({ timeout: 12_345, maxRetries: 1 });
    expect(derived.baseUrl).toBe(fixture.baseUrl);
    await derived.contacts.list({ limit: 2 });
    expect(last()?.query).toMatchObject({ sort: 'createdAt', debug: 'timing' });
    expect(last()?.headers['x-tenant']).toBe('north');
  });

  it('reads FOLLOWUP_TOKEN and FOLLOWUP_BASE_URL when they are not given', async () => {
    const saved = { token: process.env.FOLLOWUP_TOKEN, baseUrl: process.env.FOLLOWUP_BASE_URL };
    process.env.FOLLOWUP_TOKEN = TOKEN;
    process.env.FOLLOWUP_BASE_URL = fixture.baseUrl;
    try {
      const client = new FollowUp({ maxRetries: 0 });
      expect(client.baseUrl).toBe(fixture.baseUrl);
      await expect(client.contacts.count()).resolves.toBeTypeOf('number');
      // Given options win over the environment.
      expect(() => new FollowUp({ token: 'not-a-token' })).toThrow(ConfigurationError);
      delete process.env.FOLLOWUP_BASE_URL;
      expect(() => new FollowUp()).toThrow(/FOLLOWUP_BASE_URL/);
    } finally {
      if (saved.token === undefined) delete process.env.FOLLOWUP_TOKEN;
      else process.env.FOLLOWUP_TOKEN = saved.token;
      if (saved.baseUrl === undefined) delete process.env.FOLLOWUP_BASE_URL;
      else process.env.FOLLOWUP_BASE_URL = saved.baseUrl;
    }
  });
});
