import { describe, expect, it } from 'vitest';
import { consoleBrowser } from '../../../test/support/console.js';
import { cookieBrowser } from '../../../test/support/cookie-browser.js';
import { portalBrowser, portalLinkPath } from '../../../test/support/portal.js';
import { type TestServer, useTestServer } from '../../../test/support/server.js';
import { fanOutEvents } from '../../delivery/fan-out.js';
import { createEndpointStore } from '../../delivery/webhook-endpoints.js';
import { createIdGenerator } from '../../ids.js';
import { readAuditEntriesBefore } from '../../stores/audit-store.js';
import { recordOutboxEvent } from '../../stores/outbox-store.js';

/** One contact.created event fanned out: the id of its delivery to each endpoint, in order. */
async function deliveriesTo(
  server: TestServer,
  endpointIds: readonly string[],
): Promise<(string | undefined)[]> {
  const { database, clock } = server;
  const newId = createIdGenerator({ now: () => clock.now() });
  await recordOutboxEvent(
    database,
    { event: 'contact.created', data: { id: newId('con'), firstName: 'Ada', lastName: 'L' } },
    { clock, newId },
  );
  await fanOutEvents(database, { clock, newId });
  const { rows } = await database.query<{ id: string; endpoint_id: string }>(
    'SELECT id, endpoint_id FROM deliveries',
  );
  return endpointIds.map((endpointId) => rows.find((row) => row.endpoint_id === endpointId)?.id);
}

describe('the subscriber portal', () => {
  const server = useTestServer();

  function endpointStore() {
    const { database, clock } = server();
    return createEndpointStore({
      database,
      clock,
      newId: createIdGenerator({ now: () => clock.now() }),
    });
  }

  /** An endpoint of each subscriber, added by the operator. */
  async function twoSubscribers() {
    const endpoints = endpointStore();
    const own = await endpoints.add({ url: 'https://hooks.acme.example/in', subscriber: 'acme' });
    const other = await endpoints.add({
      url: 'https://hooks.globex.example/in',
      subscriber: 'globex',
    });
    return { own, other };
  }

  async function auditRows(action: string) {
    const { rows } = await server().database.query<{ actor_type: string; actor_id: string }>(
      'SELECT actor_type, actor_id FROM audit_entries WHERE action = $1',
      [action],
    );
    return rows;
  }

  it("lists only its subscriber's endpoints, and adds new ones with its subscriber key, the secret shown once", async () => {
    const { own, other } = await twoSubscribers();
    const portal = await portalBrowser(server(), 'acme');
    const list = await portal.get('/portal/endpoints');
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain(own.id);
    expect(list.body).not.toContain(other.id);
    expect(list.body).not.toContain('hooks.globex.example');

    const added = await portal.post('/portal/endpoints', {
      url: 'https://hooks.acme.example/second',
      events: ['contact.created'],
      description: 'Second <b>hook</b>',
      headers: 'X-Team: crm',
      rateLimit: '5',
    });
    expect(added.statusCode).toBe(303);
    const withSecret = await portal.get('/portal/endpoints');
    const secret = /<p class="secret" id="signing-secret">(whsec_[^<]+)<\/p>/.exec(
      withSecret.body,
    )?.[1];
    expect(secret).toBeDefined();
    expect((await portal.get('/portal/endpoints')).body).not.toContain(secret as string);

    const all = await endpointStore().list();
    const second = all.find((endpoint) => endpoint.url === 'https://hooks.acme.example/second');
    expect(second).toMatchObject({
      subscriber: 'acme',
      events: ['contact.created'],
      description: 'Second <b>hook</b>',
      headers: { 'X-Team': 'crm' },
      rateLimit: 5,
    });
    const detail = await portal.get(`/portal/endpoints/${second?.id}`);
    expect(detail.body).toContain('Second &lt;b&gt;hook&lt;/b&gt;');
    expect(await auditRows('endpoint.created')).toContainEqual({
      actor_type: 'portal',
      actor_id: 'acme',
    });
  });

  it("answers 404 for another subscriber's endpoint, whatever the action, and changes nothing", async () => {
    const { other } = await twoSubscribers();
    const portal = await portalBrowser(server(), 'acme');
    const id = other.id;
    expect((await portal.get(`/portal/endpoints/${id}`)).statusCode).toBe(404);
    expect((await portal.get(`/portal/endpoints/${id}/remove`)).statusCode).toBe(404);
    for (const action of ['disable', 'enable', 'rotate-secret', 'test', 'remove']) {
      expect((await portal.post(`/portal/endpoints/${id}/${action}`)).statusCode, action).toBe(404);
    }
    expect(
      (await portal.post(`/portal/endpoints/${id}`, { description: 'mine now' })).statusCode,
    ).toBe(404);
    expect(
      (
        await portal.post('/portal/replay', {
          endpoint: id,
          since: '2026-03-01T08:00',
          states: 'missing',
        })
      ).statusCode,
    ).toBe(404);
    const after = await endpointStore().get(id);
    expect(after).toMatchObject({ state: 'active', description: null, subscriber: 'globex' });
    expect(after?.updatedAt).toBe(other.updatedAt);
  });

  it("shows and retries only deliveries to its subscriber's endpoints", async () => {
    const { own, other } = await twoSubscribers();
    const [ownDelivery, otherDelivery] = await deliveriesTo(server(), [own.id, other.id]);
    expect(ownDelivery).toBeDefined();
    expect(otherDelivery).toBeDefined();

    const portal = await portalBrowser(server(), 'acme');
    const list = await portal.get('/portal/deliveries');
    expect(list.body).toContain(ownDelivery);
    expect(list.body).not.toContain(otherDelivery);
    const filtered = await portal.get(`/portal/deliveries?endpoint=${other.id}`);
    expect(filtered.body).not.toContain(otherDelivery);
    expect((await portal.get('/portal/deliveries?state=lost')).statusCode).toBe(400);

    const detail = await portal.get(`/portal/deliveries/${ownDelivery}`);
    expect(detail.statusCode).toBe(200);
    expect(detail.body).toContain('contact.created');
    expect(detail.body).toContain('[redacted]');
    expect((await portal.get(`/portal/deliveries/${otherDelivery}`)).statusCode).toBe(404);
    expect((await portal.post(`/portal/deliveries/${otherDelivery}/retry`)).statusCode).toBe(404);
    expect((await portal.post(`/portal/deliveries/${ownDelivery}/retry`)).statusCode).toBe(303);
    expect(await auditRows('delivery.retried')).toEqual([
      { actor_type: 'portal', actor_id: 'acme' },
    ]);
  });

  it('edits, disables, enables, rotates, tests and removes its own endpoint, each audited as the portal', async () => {
    const { own } = await twoSubscribers();
    const portal = await portalBrowser(server(), 'acme');
    const base = `/portal/endpoints/${own.id}`;
    expect(
      (await portal.post(base, { description: 'Main', headers: 'X-Team: crm', rateLimit: '' }))
        .statusCode,
    ).toBe(303);
    const refused = await portal.post(base, { headers: 'webhook-id: mine' });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('headers');
    expect((await portal.post(`${base}/disable`)).statusCode).toBe(303);
    expect((await endpointStore().get(own.id))?.state).toBe('disabled');
    expect((await portal.post(`${base}/test`)).statusCode).toBe(409);
    expect((await portal.post(`${base}/enable`)).statusCode).toBe(303);
    expect((await portal.post(`${base}/rotate-secret`)).statusCode).toBe(303);
    expect((await portal.get(base)).body).toContain('New signing secret');
    const test = await portal.post(`${base}/test`);
    expect(test.headers.location).toMatch(/^\/portal\/deliveries\/dlv_/);
    expect((await portal.get(test.headers.location as string)).statusCode).toBe(200);
    expect((await portal.post(`${base}/remove`)).statusCode).toBe(303);
    expect(await endpointStore().get(own.id)).toBeUndefined();
    // As the audit log's readers get it: the portal actor with its subscriber key.
    const [latest] = await readAuditEntriesBefore(server().database, {
      beforeSeq: null,
      action: 'endpoint.removed',
      actorType: 'portal',
      actorId: 'acme',
      limit: 1,
    });
    expect(latest?.entry.actor).toEqual({ type: 'portal', subscriber: 'acme' });
    for (const action of [
      'updated',
      'disabled',
      'enabled',
      'secret_rotated',
      'test_sent',
      'removed',
    ]) {
      expect(await auditRows(`endpoint.${action}`), action).toEqual([
        { actor_type: 'portal', actor_id: 'acme' },
      ]);
    }
  });

  it('replays a window of its endpoint and shows the progress; another subscriber cannot see it', async () => {
    const { own } = await twoSubscribers();
    const portal = await portalBrowser(server(), 'acme');
    const started = await portal.post('/portal/replay', {
      endpoint: own.id,
      since: '2026-03-01T08:00',
      states: ['missing', 'failed'],
    });
    expect(started.statusCode).toBe(303);
    const progressPath = started.headers.location as string;
    expect(progressPath).toMatch(/^\/portal\/replays\/rpl_/);
    const progress = await portal.get(progressPath);
    expect(progress.statusCode).toBe(200);
    expect(progress.body).toContain('0 of 0 deliveries ended');
    const globex = await portalBrowser(server(), 'globex');
    expect((await globex.get(progressPath)).statusCode).toBe(404);
    expect(
      (await portal.post('/portal/replay', { endpoint: own.id, since: 'yesterday' })).statusCode,
    ).toBe(400);
  });

  it('shows the event catalogue with each schema', async () => {
    const portal = await portalBrowser(server(), 'acme');
    const page = await portal.get('/portal/event-types');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('contact.created');
    expect(page.body).toContain('&quot;$schema&quot;');
  });

  it('is no way into the console or the API, and the console session is no way into the portal', async () => {
    const portal = await portalBrowser(server(), 'acme');
    const cookie = [...portal.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const api = await server().app.inject({
      method: 'GET',
      url: '/api/webhook-endpoints',
      headers: { cookie },
    });
    expect(api.statusCode).toBe(401);
    const console = await server().app.inject({
      method: 'GET',
      url: '/webhook-endpoints',
      headers: { cookie },
    });
    expect(console.statusCode).toBe(403);
    expect(console.body).toContain('subscriber portal session');
    expect(console.body).toMatch(/href="\/signin\?next=%2Fwebhook-endpoints"/);
    const signedOut = await server().app.inject({ method: 'GET', url: '/portal/endpoints' });
    expect(signedOut.statusCode).toBe(401);
  });

  it('refuses a change without the CSRF token, ends after 8 hours, and ends on Leave portal', async () => {
    const { own } = await twoSubscribers();
    const portal = await portalBrowser(server(), 'acme');
    const forged = await portal.post(`/portal/endpoints/${own.id}/disable`, { _csrf: 'forged' });
    expect(forged.statusCode).toBe(403);
    expect(forged.json().code).toBe('csrf_invalid');
    expect((await endpointStore().get(own.id))?.state).toBe('active');

    server().clock.advance(8 * 60 * 60 * 1000 - 1);
    expect((await portal.get('/portal/endpoints')).statusCode).toBe(200);
    server().clock.advance(1);
    expect((await portal.get('/portal/endpoints')).statusCode).toBe(401);

    const again = await portalBrowser(server(), 'acme');
    expect((await again.post('/portal/leave')).statusCode).toBe(200);
    expect((await again.get('/portal/endpoints')).statusCode).toBe(401);
    expect(await auditRows('portal_session.started')).toEqual([
      { actor_type: 'portal', actor_id: 'acme' },
      { actor_type: 'portal', actor_id: 'acme' },
    ]);
  });

  it("the console's Portal link button shows a working link once; a bad subscriber is a 400 page", async () => {
    const admin = await consoleBrowser(server(), 'ADMIN');
    const made = await admin.post('/webhook-endpoints/portal-link', {
      subscriber: 'acme',
      expiresInMinutes: '30',
    });
    expect(made.statusCode).toBe(303);
    const list = await admin.get('/webhook-endpoints');
    const url = /<p class="secret" id="portal-link-url">([^<]+)<\/p>/.exec(list.body)?.[1];
    expect(url).toMatch(/^http:\/\/localhost(:80)?\/portal\/link\//);
    expect((await admin.get('/webhook-endpoints')).body).not.toContain(url as string);
    const visitor = cookieBrowser(server());
    expect((await visitor.post(portalLinkPath(url as string))).statusCode).toBe(303);
    expect((await visitor.get('/portal/endpoints')).statusCode).toBe(200);

    const refused = await admin.post('/webhook-endpoints/portal-link', { subscriber: 'Not Valid' });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('subscriber');
    const tooLong = await admin.post('/webhook-endpoints/portal-link', {
      subscriber: 'acme',
      expiresInMinutes: '1441',
    });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.body).toContain('expiresInMinutes');
    const manager = await consoleBrowser(server(), 'MANAGER');
    expect(
      (await manager.post('/webhook-endpoints/portal-link', { subscriber: 'acme' })).statusCode,
    ).toBe(403);
  });
});

describe('the subscriber portal: Retry now, Disable and Enable wake the worker', () => {
  // As after POST /api/deliveries/{id}/retry: the delivery is sent now, not at the next poll.
  let wakes = 0;
  const server = useTestServer({
    onOutboxEvent: () => {
      wakes += 1;
    },
  });

  it("wakes the delivery worker after retrying its own delivery, not after another's", async () => {
    const { database, clock } = server();
    const endpoints = createEndpointStore({
      database,
      clock,
      newId: createIdGenerator({ now: () => clock.now() }),
    });
    const own = await endpoints.add({ url: 'https://hooks.acme.example/in', subscriber: 'acme' });
    const other = await endpoints.add({
      url: 'https://hooks.globex.example/in',
      subscriber: 'globex',
    });
    const [ownDelivery, otherDelivery] = await deliveriesTo(server(), [own.id, other.id]);
    const portal = await portalBrowser(server(), 'acme');
    wakes = 0;
    expect((await portal.post(`/portal/deliveries/${otherDelivery}/retry`)).statusCode).toBe(404);
    expect(wakes).toBe(0);
    expect((await portal.post(`/portal/deliveries/${ownDelivery}/retry`)).statusCode).toBe(303);
    expect(wakes).toBe(1);
  });

  // A disable or an enable writes an endpoint.* event for the subscriber's other endpoints.
  it('wakes the delivery worker after disabling and enabling its endpoint', async () => {
    const { database, clock } = server();
    const own = await createEndpointStore({
      database,
      clock,
      newId: createIdGenerator({ now: () => clock.now() }),
    }).add({ url: 'https://hooks.acme.example/in', subscriber: 'acme' });
    const portal = await portalBrowser(server(), 'acme');
    wakes = 0;
    expect((await portal.post(`/portal/endpoints/${own.id}/disable`)).statusCode).toBe(303);
    expect(wakes).toBe(1);
    expect((await portal.post(`/portal/endpoints/${own.id}/enable`)).statusCode).toBe(303);
    expect(wakes).toBe(2);
  });
});
