import { webhookEndpointSchema } from '@followup/sdk';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/support/server.js';
import { fanOutEvents } from '../delivery/fan-out.js';
import { signingSecrets } from '../delivery/signing-secrets.js';
import { createIdGenerator } from '../ids.js';
import { recordOutboxEvent } from '../stores/outbox-store.js';
import { roles } from '../tokens/role.js';

describe('the webhook endpoints API', () => {
  const server = useTestServer();

  async function call(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    payload?: unknown,
    role: (typeof roles)[number] = 'ADMIN',
  ) {
    const { token } = await server().tokenFor(role);
    return server().app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}` },
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
  }

  async function create(body: Record<string, unknown> = {}) {
    const response = await call('POST', '/api/webhook-endpoints', {
      url: 'https://hooks.example.com/followup',
      ...body,
    });
    expect(response.statusCode, response.body).toBe(201);
    return response.json();
  }

  async function auditActions() {
    const { rows } = await server().database.query<{ action: string }>(
      "SELECT action FROM audit_entries WHERE action LIKE 'endpoint.%' ORDER BY seq",
    );
    return rows.map((row) => row.action);
  }

  it('creates an endpoint with every field, answering its whsec_ secret only then', async () => {
    const created = await create({
      events: ['contact.created', 'deal.updated'],
      description: 'CRM sync',
      subscriber: 'acme-1',
      headers: { 'X-Tenant': 'north' },
      rateLimit: 50,
      timeoutSeconds: 5,
      payload: 'thin',
    });
    expect(created).toEqual({
      id: expect.stringMatching(/^we_/),
      url: 'https://hooks.example.com/followup',
      events: ['contact.created', 'deal.updated'],
      description: 'CRM sync',
      subscriber: 'acme-1',
      headers: { 'X-Tenant': 'north' },
      rateLimit: 50,
      timeoutSeconds: 5,
      payload: 'thin',
      state: 'active',
      disabledReason: null,
      failingSince: null,
      createdAt: '2026-03-01T09:00:00.000Z',
      updatedAt: '2026-03-01T09:00:00.000Z',
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const read = await call('GET', `/api/webhook-endpoints/${created.id}`);
    expect(read.statusCode).toBe(200);
    const { secret, ...endpoint } = created;
    expect(read.json()).toEqual(endpoint);
    expect(read.body).not.toContain(secret);
    expect(webhookEndpointSchema.parse(read.json())).toEqual(endpoint);
    // Not in the audit log nor any log line either.
    const { rows } = await server().database.query('SELECT * FROM audit_entries');
    expect(JSON.stringify(rows)).not.toContain(secret);
    expect(server().logs.join('\n')).not.toContain(secret);
  });

  it('gives an endpoint every kind, the default timeout and full payloads by default', async () => {
    const created = await create();
    expect(created).toMatchObject({
      events: ['*'],
      description: null,
      subscriber: null,
      headers: {},
      rateLimit: null,
      timeoutSeconds: 15,
      payload: 'full',
    });
    expect(await auditActions()).toEqual(['endpoint.created']);
    const { rows } = await server().database.query<{ actor_type: string }>(
      "SELECT actor_type FROM audit_entries WHERE action = 'endpoint.created'",
    );
    expect(rows).toEqual([{ actor_type: 'service_account' }]);
  });

  it.each([
    [{ url: 'ftp://hooks.example.com/' }, 'must use http or https'],
    [{ url: 'https://user:pass@hooks.example.com/' }, 'must not carry a user name or password'],
    [{ url: 'not a url' }, 'is not a valid URL'],
  ])(
    'answers 422 invalid_endpoint_url for a URL the address policy refuses: %j',
    async (body, why) => {
      const response = await call('POST', '/api/webhook-endpoints', body);
      expect(response.statusCode).toBe(422);
      expect(response.headers['content-type']).toContain('application/problem+json');
      expect(response.json()).toMatchObject({ code: 'invalid_endpoint_url' });
      expect(response.json().detail).toContain(why);
      const { rows } = await server().database.query('SELECT id FROM webhook_endpoints');
      expect(rows).toEqual([]);
    },
  );

  it.each([
    'http://127.0.0.1:8080/hooks',
    'http://2130706433/hooks',
    'http://[::ffff:7f00:1]/hooks',
    'http://[::1]/hooks',
    'http://169.254.169.254/latest/meta-data/',
    'https://localhost/hooks',
  ])(
    'answers 422 invalid_endpoint_url to POST and PATCH of the private address %s',
    async (url) => {
      const response = await call('POST', '/api/webhook-endpoints', { url });
      expect(response.statusCode).toBe(422);
      expect(response.headers['content-type']).toContain('application/problem+json');
      expect(response.json()).toMatchObject({ code: 'invalid_endpoint_url' });
      expect(response.json().detail).toContain('--allow-private-endpoints');
      const { id } = await create();
      const patched = await call('PATCH', `/api/webhook-endpoints/${id}`, { url });
      expect(patched.statusCode).toBe(422);
      expect(patched.json()).toMatchObject({ code: 'invalid_endpoint_url' });
      const { rows } = await server().database.query<{ url: string }>(
        'SELECT url FROM webhook_endpoints',
      );
      expect(rows).toEqual([{ url: 'https://hooks.example.com/followup' }]);
    },
  );

  it.each([
    [{ rateLimit: 0 }, 'rateLimit'],
    [{ rateLimit: 1001 }, 'rateLimit'],
    [{ rateLimit: 1.5 }, 'rateLimit'],
    [{ timeoutSeconds: 0 }, 'timeoutSeconds'],
    [{ timeoutSeconds: 31 }, 'timeoutSeconds'],
    [{ payload: 'partial' }, 'payload'],
    [{ subscriber: 'Acme' }, 'subscriber'],
    [{ subscriber: 'a'.repeat(65) }, 'subscriber'],
    [{ events: ['contact.exploded'] }, 'events.0'],
    [{ events: [] }, 'events'],
    [{ headers: { 'X-Service-Signature': 'forged' } }, 'headers.X-Service-Signature'],
    [{ headers: { 'webhook-id': 'x' } }, 'headers.webhook-id'],
    [{ headers: { 'Content-Type': 'text/plain' } }, 'headers.Content-Type'],
    [{ headers: { 'Bad Name': 'x' } }, 'headers.Bad Name'],
    [{ headers: { 'X-A': 'line\r\nX-Injected: 1' } }, 'headers.X-A'],
    [{ headers: { 'X-A': '1', 'x-a': '2' } }, 'headers.x-a'],
    [
      { headers: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`X-H${i}`, 'v'])) },
      'headers',
    ],
    [{ url: 'https://a.example/'.padEnd(2049, 'x') }, 'url'],
    [{ secret: 'whsec_mine' }, 'secret'],
  ])('answers 400 validation_failed naming the field for %j', async (body, path) => {
    const response = await call('POST', '/api/webhook-endpoints', {
      url: 'https://hooks.example.com/',
      ...body,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'validation_failed' });
    expect(response.json().errors.map((error: { path: string }) => error.path)).toContain(path);
    const { rows } = await server().database.query('SELECT id FROM webhook_endpoints');
    expect(rows).toEqual([]);
  });

  it('lists endpoints oldest first in cursor pages, by subscriber and by state', async () => {
    const ids: string[] = [];
    for (const subscriber of ['acme', 'globex', 'acme', null, 'acme']) {
      server().clock.advance(1000);
      ids.push((await create(subscriber ? { subscriber } : {})).id);
    }
    await call('PATCH', `/api/webhook-endpoints/${ids[2]}`, { state: 'disabled' });
    await server().database.query('UPDATE webhook_endpoints SET failing_since = $2 WHERE id = $1', [
      ids[4],
      new Date('2026-03-01T08:00:00Z'),
    ]);

    const first = await call('GET', '/api/webhook-endpoints?limit=2');
    expect(first.json().webhookEndpoints.map((e: { id: string }) => e.id)).toEqual(ids.slice(0, 2));
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? '' : `&cursor=${cursor}`;
      const page = (await call('GET', `/api/webhook-endpoints?limit=2${query}`)).json();
      seen.push(...page.webhookEndpoints.map((e: { id: string }) => e.id));
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(seen).toEqual(ids);

    const acme = (await call('GET', '/api/webhook-endpoints?subscriber=acme')).json();
    expect(acme.webhookEndpoints.map((e: { id: string }) => e.id)).toEqual([
      ids[0],
      ids[2],
      ids[4],
    ]);
    const states = async (state: string) =>
      (await call('GET', `/api/webhook-endpoints?state=${state}`))
        .json()
        .webhookEndpoints.map((e: { id: string; state: string }) => [e.id, e.state]);
    expect(await states('disabled')).toEqual([[ids[2], 'disabled']]);
    expect(await states('failing')).toEqual([[ids[4], 'failing']]);
    expect((await states('active')).map(([id]: string[]) => id)).toEqual([ids[0], ids[1], ids[3]]);

    // A cursor of another query, or none of ours, names cursor.
    const other = await call(
      'GET',
      `/api/webhook-endpoints?limit=2&subscriber=acme&cursor=${first.json().nextCursor}`,
    );
    expect(other.statusCode).toBe(400);
    expect(other.json().errors[0].path).toBe('cursor');
    const bad = await call('GET', '/api/webhook-endpoints?cursor=abc&state=sleeping');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors.map((error: { path: string }) => error.path)).toContain('state');
  });

  it('changes fields and disables and enables with PATCH, auditing each without values', async () => {
    const { id } = await create();
    server().clock.advance(60_000);
    const changed = await call('PATCH', `/api/webhook-endpoints/${id}`, {
      description: 'renamed',
      headers: { Authorization: 'Bearer subscriber-key' },
      rateLimit: null,
      events: ['contact.deleted'],
    });
    expect(changed.statusCode).toBe(200);
    expect(changed.json()).toMatchObject({
      description: 'renamed',
      headers: { Authorization: 'Bearer subscriber-key' },
      events: ['contact.deleted'],
      updatedAt: '2026-03-01T09:01:00.000Z',
    });
    const disabled = await call('PATCH', `/api/webhook-endpoints/${id}`, { state: 'disabled' });
    expect(disabled.json()).toMatchObject({ state: 'disabled', disabledReason: null });
    const enabled = await call('PATCH', `/api/webhook-endpoints/${id}`, { state: 'active' });
    expect(enabled.json()).toMatchObject({ state: 'active' });
    expect(await auditActions()).toEqual([
      'endpoint.created',
      'endpoint.updated',
      'endpoint.disabled',
      'endpoint.enabled',
    ]);
    const { rows } = await server().database.query('SELECT * FROM audit_entries');
    expect(JSON.stringify(rows)).not.toContain('subscriber-key');
    const refused = await call('PATCH', `/api/webhook-endpoints/${id}`, { url: 'ftp://x/' });
    expect(refused.statusCode).toBe(422);
  });

  it('deletes an endpoint, cancelling its pending deliveries: 204, then 404', async () => {
    const { id } = await create();
    const { database, clock } = server();
    const newId = createIdGenerator({ now: () => clock.now() });
    await recordOutboxEvent(
      database,
      { event: 'contact.created', data: { id: 'con_1', firstName: 'Ada', lastName: 'L' } },
      { clock, newId },
    );
    await fanOutEvents(database, { clock, newId });
    const removed = await call('DELETE', `/api/webhook-endpoints/${id}`);
    expect(removed.statusCode).toBe(204);
    expect(removed.body).toBe('');
    const { rows } = await database.query('SELECT id FROM deliveries');
    expect(rows).toEqual([]);
    const audit = await database.query<{ metadata: unknown }>(
      "SELECT metadata FROM audit_entries WHERE action = 'endpoint.removed'",
    );
    expect(audit.rows[0]?.metadata).toEqual({ cancelledDeliveries: 1 });
    expect((await call('GET', `/api/webhook-endpoints/${id}`)).statusCode).toBe(404);
    expect((await call('DELETE', `/api/webhook-endpoints/${id}`)).statusCode).toBe(404);
  });

  it('rotates the secret, answered once; both sign during the overlap (default 24 h)', async () => {
    const { id, secret: first } = await create();
    const rotated = await call('POST', `/api/webhook-endpoints/${id}/rotate-secret`, {});
    expect(rotated.statusCode).toBe(200);
    const { secret } = rotated.json();
    expect(Object.keys(rotated.json())).toEqual(['secret']);
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(first);
    const { rows } = await server().database.query<{
      secret: string;
      previous_secret: string | null;
      previous_secret_until: string | null;
    }>('SELECT secret, previous_secret, previous_secret_until FROM webhook_endpoints');
    const row = rows[0] as NonNullable<(typeof rows)[0]>;
    const now = server().clock.now();
    expect(signingSecrets(row, now + 86_399_000)).toEqual([secret, first]);
    expect(signingSecrets(row, now + 86_400_000)).toEqual([secret]);

    const short = await call('POST', `/api/webhook-endpoints/${id}/rotate-secret`, {
      overlapSeconds: 0,
    });
    expect(short.statusCode).toBe(200);
    const tooLong = await call('POST', `/api/webhook-endpoints/${id}/rotate-secret`, {
      overlapSeconds: 604_801,
    });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json().errors[0].path).toBe('overlapSeconds');
    expect((await call('GET', `/api/webhook-endpoints/${id}`)).body).not.toContain(secret);
  });

  it('queues a webhook.test delivery: 202 with its id; 409 to a disabled endpoint', async () => {
    const { id } = await create();
    const response = await call('POST', `/api/webhook-endpoints/${id}/test`);
    expect(response.statusCode).toBe(202);
    const { deliveryId } = response.json();
    const { rows } = await server().database.query<{ event: string; endpoint_id: string }>(
      `SELECT ev.event, d.endpoint_id FROM deliveries AS d
         JOIN outbox_events AS ev ON ev.id = d.event_id WHERE d.id = $1`,
      [deliveryId],
    );
    expect(rows).toEqual([{ event: 'webhook.test', endpoint_id: id }]);
    await call('PATCH', `/api/webhook-endpoints/${id}`, { state: 'disabled' });
    const refused = await call('POST', `/api/webhook-endpoints/${id}/test`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'conflict' });
    expect((await call('POST', '/api/webhook-endpoints/we_none/test')).statusCode).toBe(404);
  });

  it('answers 404 not_found for an unknown endpoint on every route', async () => {
    for (const [method, url, body] of [
      ['GET', '/api/webhook-endpoints/we_none', undefined],
      ['PATCH', '/api/webhook-endpoints/we_none', { description: 'x' }],
      ['PATCH', '/api/webhook-endpoints/we_none', { state: 'disabled' }],
      ['DELETE', '/api/webhook-endpoints/we_none', undefined],
      ['POST', '/api/webhook-endpoints/we_none/rotate-secret', {}],
    ] as const) {
      const response = await call(method, url, body);
      expect(response.statusCode, `${method} ${url}`).toBe(404);
      expect(response.json()).toMatchObject({ code: 'not_found' });
    }
  });

  it.each(roles.filter((role) => role !== 'ADMIN'))(
    'answers %s 403 forbidden on every route, changing nothing',
    async (role) => {
      const { id } = await create();
      for (const [method, url, body] of [
        ['POST', '/api/webhook-endpoints', { url: 'https://x.example/' }],
        ['GET', '/api/webhook-endpoints', undefined],
        ['GET', `/api/webhook-endpoints/${id}`, undefined],
        ['PATCH', `/api/webhook-endpoints/${id}`, { state: 'disabled' }],
        ['DELETE', `/api/webhook-endpoints/${id}`, undefined],
        ['POST', `/api/webhook-endpoints/${id}/rotate-secret`, {}],
        ['POST', `/api/webhook-endpoints/${id}/test`, undefined],
      ] as const) {
        const response = await call(method, url, body, role);
        expect(response.statusCode, `${method} ${url}`).toBe(403);
        expect(response.json()).toMatchObject({ code: 'forbidden' });
      }
      expect(await auditActions()).toEqual(['endpoint.created']);
    },
  );
});

describe('the webhook endpoints API of a server that allows private endpoints', () => {
  const server = useTestServer({ allowPrivateEndpoints: true });

  it('registers and moves an endpoint to a private address, as its worker may deliver there', async () => {
    const { token } = await server().tokenFor('ADMIN');
    const headers = { authorization: `Bearer ${token}` };
    const created = await server().app.inject({
      method: 'POST',
      url: '/api/webhook-endpoints',
      headers,
      payload: { url: 'http://127.0.0.1:8080/hooks' },
    });
    expect(created.statusCode).toBe(201);
    const patched = await server().app.inject({
      method: 'PATCH',
      url: `/api/webhook-endpoints/${created.json().id}`,
      headers,
      payload: { url: 'http://[::1]:8080/hooks' },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().url).toBe('http://[::1]:8080/hooks');
  });
});
