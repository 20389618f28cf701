import { describe, expect, it } from 'vitest';
import { consoleBrowser } from '../../../test/support/console.js';
import { transactionsSettled } from '../../../test/support/database.js';
import { type TestServer, useTestServer } from '../../../test/support/server.js';
import { listAuditEntries } from '../../audit/audit-log.js';
import { createDeliveryStore } from '../../delivery/deliveries.js';
import { fanOutEvents } from '../../delivery/fan-out.js';
import { createEndpointStore } from '../../delivery/webhook-endpoints.js';
import { createIdGenerator } from '../../ids.js';
import { recordOutboxEvent } from '../../stores/outbox-store.js';
import { shortId } from './short-id.js';

// One endpoint and one delivery to it of a contact.created event, as the fan-out makes it.
async function oneDelivery(server: TestServer) {
  const { database, clock } = server;
  const newId = createIdGenerator({ now: () => clock.now() });
  const endpoint = await createEndpointStore({ database, clock, newId }).add({
    url: 'https://crm.example.com/hooks/followup',
  });
  await recordOutboxEvent(
    database,
    { event: 'contact.created', data: { id: 'con_1', firstName: 'Ada', lastName: 'Lovelace' } },
    { clock, newId },
  );
  await fanOutEvents(database, { clock, newId });
  const [delivery] = await createDeliveryStore({ database, clock, newId }).list();
  if (!delivery) throw new Error('The fan-out made no delivery.');
  return { endpoint, delivery };
}

describe('Deliveries pages: readable', () => {
  const server = useTestServer();

  it('lists a delivery by its shortened id, its endpoint by URL (linked) and its state as a badge', async () => {
    const { endpoint, delivery } = await oneDelivery(server());
    const browser = await consoleBrowser(server(), 'ADMIN');
    const page = (await browser.get('/deliveries')).body;
    expect(page).toContain(
      `<span class="id" title="${delivery.id}"><a href="/deliveries/${delivery.id}"><code>${shortId(delivery.id)}</code></a>`,
    );
    expect(page).toContain(`data-copy-text="${delivery.id}"`);
    expect(page).toContain(
      `<a href="/webhook-endpoints/${endpoint.id}"><span class="url">https://crm.example.com/hooks/followup</span></a>`,
    );
    expect(page).toContain('<span class="badge off">Waiting</span>');
    expect(page).toContain('<code class="action">contact.created</code>');
    await server().database.query(
      `UPDATE deliveries SET state = 'dead', attempts = 8, next_attempt_at = NULL`,
    );
    expect((await browser.get('/deliveries')).body).toContain(
      '<span class="badge danger">Dead</span>',
    );
  });

  it("shows a delivery's body pretty-printed, its headers with signatures redacted, and each attempt's answer start", async () => {
    const { delivery } = await oneDelivery(server());
    await server().database.query(
      `INSERT INTO delivery_attempts (delivery_id, started_at, duration_ms, status, error, response_excerpt)
       VALUES ($1, '2026-03-01T09:00:05Z', 41, 503, NULL, $2)`,
      [delivery.id, Buffer.from(`busy ${'a'.repeat(195)}TAIL-NOT-SHOWN`)],
    );
    const browser = await consoleBrowser(server(), 'ADMIN');
    const page = (await browser.get(`/deliveries/${delivery.id}`)).body;
    const body = /<h2>Body sent<\/h2>\s*<pre[^>]*>([\s\S]*?)<\/pre>/.exec(page)?.[1] ?? '';
    const sent = JSON.parse(body.replaceAll('&quot;', '"'));
    expect(sent).toMatchObject({ data: { firstName: 'Ada', lastName: 'Lovelace' } });
    expect(body).toMatch(/^\{\n {2}&quot;/);
    const headers = Object.fromEntries(
      [...page.matchAll(/<dt><code>([^<]+)<\/code><\/dt><dd><code>([^<]*)<\/code><\/dd>/g)].map(
        (match) => [match[1], match[2]],
      ),
    );
    expect(headers).toMatchObject({
      'X-Service-Signature': '[redacted]',
      'webhook-signature': '[redacted]',
      'content-type': 'application/json',
      'webhook-id': delivery.id,
    });
    expect(page).toContain('<td>503</td><td>41 ms</td>');
    expect(page).toContain(`<pre>busy ${'a'.repeat(195)}…</pre>`);
    expect(page).not.toContain('TAIL-NOT-SHOWN');
  });

  it('offers Retry now only before delivery; a delivered one is sent again only when confirmed', async () => {
    const { delivery } = await oneDelivery(server());
    const browser = await consoleBrowser(server(), 'ADMIN');
    const pending = (await browser.get(`/deliveries/${delivery.id}`)).body;
    expect(pending).toContain('>Retry now</button>');
    expect(pending).not.toContain('Send again');

    await server().database.query(
      `UPDATE deliveries SET state = 'delivered', attempts = 1, delivered_at = now(),
         next_attempt_at = NULL`,
    );
    const delivered = (await browser.get(`/deliveries/${delivery.id}`)).body;
    expect(delivered).not.toContain('Retry now');
    expect(delivered).toContain('>Send again</button>');
    expect(delivered).toMatch(/<input type="checkbox" name="confirm" value="yes" required>/);

    const unconfirmed = await browser.post(`/deliveries/${delivery.id}/retry`);
    expect(unconfirmed.statusCode).toBe(409);
    expect(unconfirmed.body).toContain('tick the box by Send again');
    const state = async () =>
      (
        await server().database.query<{ state: string }>(
          'SELECT state FROM deliveries WHERE id = $1',
          [delivery.id],
        )
      ).rows[0]?.state;
    expect(await state()).toBe('delivered');

    const confirmed = await browser.post(`/deliveries/${delivery.id}/retry`, { confirm: 'yes' });
    expect(confirmed.statusCode).toBe(303);
    expect(confirmed.headers.location).toBe(`/deliveries/${delivery.id}`);
    expect(await state()).toBe('pending');
    await transactionsSettled(server().database);
    const { entries } = await listAuditEntries(server().database);
    expect(
      entries.filter((entry) => entry.action === 'delivery.retried').map((entry) => entry.metadata),
    ).toEqual([expect.objectContaining({ previousState: 'delivered' })]);
  });
});

describe('Deliveries pages: Retry now wakes the worker', () => {
  // What the delivery worker hears: once per retry, as after POST /api/deliveries/{id}/retry,
  // so that the delivery is sent now rather than at the worker's next poll.
  let wakes = 0;
  const server = useTestServer({
    onOutboxEvent: () => {
      wakes += 1;
    },
  });

  it('wakes the delivery worker after a retry, and not after a refused one', async () => {
    const { delivery } = await oneDelivery(server());
    const browser = await consoleBrowser(server(), 'ADMIN');
    wakes = 0;
    const retried = await browser.post(`/deliveries/${delivery.id}/retry`);
    expect(retried.statusCode).toBe(303);
    expect(wakes).toBe(1);

    await server().database.query(
      `UPDATE deliveries SET state = 'delivered', attempts = 1, delivered_at = now(),
         next_attempt_at = NULL`,
    );
    expect((await browser.post(`/deliveries/${delivery.id}/retry`)).statusCode).toBe(409);
    expect(wakes).toBe(1);
    const confirmed = await browser.post(`/deliveries/${delivery.id}/retry`, { confirm: 'yes' });
    expect(confirmed.statusCode).toBe(303);
    expect(wakes).toBe(2);
  });
});
