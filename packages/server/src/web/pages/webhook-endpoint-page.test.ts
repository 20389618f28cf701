import { describe, expect, it } from 'vitest';
import { consoleBrowser } from '../../../test/support/console.js';
import { useTestServer } from '../../../test/support/server.js';
import { createEndpointStore } from '../../delivery/webhook-endpoints.js';
import { createIdGenerator } from '../../ids.js';

describe("Webhook endpoint page: its deliveries, success rate, events and secret's rotation", () => {
  const server = useTestServer();

  async function endpointWithDeliveries() {
    const { database, clock } = server();
    const newId = createIdGenerator({ now: () => clock.now() });
    const endpoints = createEndpointStore({ database, clock, newId });
    const endpoint = await endpoints.add({ url: 'https://crm.example.com/hooks' });
    const other = await endpoints.add({ url: 'https://other.example.com/hooks' });
    await database.query(
      `INSERT INTO outbox_events (id, event, data, created_at) VALUES
         ('evt_1', 'contact.created', '{}', now()), ('evt_2', 'deal.updated', '{}', now());
       INSERT INTO deliveries (id, event_id, endpoint_id, state, attempts, created_at, delivered_at)
       VALUES ('dlv_ok', 'evt_1', '${endpoint.id}', 'delivered', 2, '2026-03-01T08:00:00Z', now()),
              ('dlv_dead', 'evt_2', '${endpoint.id}', 'dead', 1, '2026-03-01T08:10:00Z', NULL),
              ('dlv_other', 'evt_1', '${other.id}', 'delivered', 1, '2026-03-01T08:20:00Z', now());
       INSERT INTO delivery_attempts (delivery_id, started_at, duration_ms, status, error) VALUES
         ('dlv_ok', '2026-02-27T08:00:00Z', 10, 500, NULL),
         ('dlv_ok', '2026-03-01T08:00:00Z', 10, 503, NULL),
         ('dlv_ok', '2026-03-01T08:01:00Z', 10, 200, NULL),
         ('dlv_dead', '2026-03-01T08:10:00Z', 10, NULL, 'timeout'),
         ('dlv_dead', '2026-03-01T08:11:00Z', 10, 204, NULL),
         ('dlv_other', '2026-03-01T08:20:00Z', 10, 500, NULL)`,
    );
    return { endpoint, endpoints };
  }

  it('lists its own deliveries, filtered by state, with its success rate over 24 hours', async () => {
    const { endpoint } = await endpointWithDeliveries();
    const browser = await consoleBrowser(server(), 'ADMIN');
    const page = (await browser.get(`/webhook-endpoints/${endpoint.id}`)).body;
    expect(page).toContain('<a href="/deliveries/dlv_ok"><code>dlv_ok</code></a>');
    expect(page).toContain('<a href="/deliveries/dlv_dead"><code>dlv_dead</code></a>');
    expect(page).not.toContain('dlv_other');
    expect(page).toContain('<span class="badge danger">Dead</span>');
    // 2 of its 4 attempts since 2026-02-28T09:00Z succeeded; the one before and the other
    // endpoint's do not count.
    expect(page).toMatch(
      /<span class="rate">50 %<\/span> of 4 attempts in the last 24 hours succeeded \(2\)/,
    );
    const dead = (await browser.get(`/webhook-endpoints/${endpoint.id}?state=dead`)).body;
    expect(dead).toContain('dlv_dead');
    expect(dead).not.toContain('dlv_ok');
    expect(dead).toContain('<option value="dead" selected>');
    expect((await browser.get(`/webhook-endpoints/${endpoint.id}?state=bogus`)).statusCode).toBe(
      400,
    );
    // A session ends when unused for a while: a new one, two days later.
    server().clock.advance(2 * 86_400_000);
    const later = await consoleBrowser(server(), 'ADMIN');
    expect((await later.get(`/webhook-endpoints/${endpoint.id}`)).body).toContain(
      'No attempt in the last 24 hours.',
    );
  });

  it('names its events, never *: All events for the wildcard', async () => {
    const { database, clock } = server();
    const endpoints = createEndpointStore({ database, clock });
    const every = await endpoints.add({ url: 'https://all.example.com/hooks' });
    const some = await endpoints.add({
      url: 'https://some.example.com/hooks',
      events: ['contact.created', 'deal.updated'],
    });
    expect(every.events).toEqual(['*']);
    const browser = await consoleBrowser(server(), 'ADMIN');
    expect((await browser.get(`/webhook-endpoints/${every.id}`)).body).toContain(
      '<dt>Events</dt><dd>All events</dd>',
    );
    expect((await browser.get(`/webhook-endpoints/${some.id}`)).body).toContain(
      '<dt>Events</dt><dd>contact.created, deal.updated</dd>',
    );
    const list = (await browser.get('/webhook-endpoints')).body;
    expect(list).toContain('<td data-label="Events">All events</td>');
    expect(list).not.toContain('<td>*</td>');
  });

  it("says its secret's rotation in words: when, and until when the previous one signs", async () => {
    const { endpoint, endpoints } = await endpointWithDeliveries();
    const browser = await consoleBrowser(server(), 'ADMIN');
    expect((await browser.get(`/webhook-endpoints/${endpoint.id}`)).body).toContain(
      '<dt>Signing secret</dt><dd>One secret signs: no rotation is under way.</dd>',
    );
    await endpoints.rotateSecret(endpoint.id, 86_400);
    // A session ends when unused for a while: a new one, two hours later, and a day after.
    server().clock.advance(2 * 3_600_000);
    expect(
      (await (await consoleBrowser(server(), 'ADMIN')).get(`/webhook-endpoints/${endpoint.id}`))
        .body,
    ).toContain(
      '<dt>Signing secret</dt><dd>Rotated 2 hours ago; the previous secret also signs until 2026-03-02 09:00:00 UTC.</dd>',
    );
    server().clock.advance(86_400_000);
    expect(
      (await (await consoleBrowser(server(), 'ADMIN')).get(`/webhook-endpoints/${endpoint.id}`))
        .body,
    ).toContain('One secret signs: no rotation is under way.');
  });
});
