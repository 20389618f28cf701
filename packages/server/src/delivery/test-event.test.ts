import { WEBHOOK_EVENT_KINDS } from '@followup/sdk';
import { verifySignature } from '@followup/webhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../test/support/clock.js';
import { transactionsSettled, useTestDatabase } from '../../test/support/database.js';
import { type Subscriber, startSubscriber } from '../../test/support/subscriber.js';
import { listAuditEntries } from '../audit/audit-log.js';
import { listEvents } from '../events/event-feed.js';
import { createIdGenerator } from '../ids.js';
import { createDeliveryStore } from './deliveries.js';
import { createDeliveryWorker } from './delivery-worker.js';
import { sendTestEvent, TEST_EVENT_KIND } from './test-event.js';
import { createEndpointStore } from './webhook-endpoints.js';

describe('sendTestEvent', () => {
  const database = useTestDatabase();
  const clock = manualClock();
  const newId = createIdGenerator({ now: () => clock.now() });
  const subscribers: Subscriber[] = [];
  afterEach(async () => {
    for (const subscriber of subscribers.splice(0)) await subscriber.close();
  });

  it('delivers a signed webhook.test to that endpoint alone, audited', async () => {
    const subscriber = await startSubscriber();
    subscribers.push(subscriber);
    const endpoints = createEndpointStore({ database: database(), clock, newId });
    const target = await endpoints.add({ url: subscriber.url });
    const other = await endpoints.add({ url: `${subscriber.url}other` });
    const queued = await sendTestEvent(database(), {
      endpointId: target.id,
      clock,
      newId,
      actor: { type: 'user', id: 'usr_1' },
    });
    const worker = createDeliveryWorker({ database: database(), clock, newId, allowPrivate: true });
    try {
      await worker.runDue();
      await subscriber.waitFor(1);
    } finally {
      await worker.close();
    }
    expect(subscriber.received).toHaveLength(1);
    const [received] = subscriber.received;
    const body = JSON.parse(received?.body ?? '{}');
    expect(body).toMatchObject({
      event: TEST_EVENT_KIND,
      data: { endpointId: target.id },
    });
    verifySignature(received?.body ?? '', String(received?.headers['x-service-signature']), {
      secret: target.secret,
      now: clock.now() / 1000,
    });
    const deliveries = await createDeliveryStore({ database: database(), clock }).list();
    expect(
      deliveries.map((delivery) => [delivery.id, delivery.endpointId, delivery.state]),
    ).toEqual([[queued.deliveryId, target.id, 'delivered']]);
    expect(deliveries.some((delivery) => delivery.endpointId === other.id)).toBe(false);
    await transactionsSettled(database());
    const { entries } = await listAuditEntries(database());
    expect(entries.at(-1)).toMatchObject({
      action: 'endpoint.test_sent',
      actor: { type: 'user', id: 'usr_1' },
      target: { type: 'webhook_endpoint', id: target.id },
      metadata: { deliveryId: queued.deliveryId },
    });
  });

  it('refuses an unknown or disabled endpoint, and stays out of the event feed', async () => {
    const endpoints = createEndpointStore({ database: database(), clock, newId });
    const endpoint = await endpoints.add({ url: 'https://example.com/hooks' });
    await expect(
      sendTestEvent(database(), { endpointId: 'we_missing', clock, newId }),
    ).rejects.toMatchObject({ code: 'endpoint_not_found' });
    await endpoints.disable(endpoint.id);
    await expect(
      sendTestEvent(database(), { endpointId: endpoint.id, clock, newId }),
    ).rejects.toMatchObject({ code: 'endpoint_disabled' });
    await endpoints.enable(endpoint.id);
    await sendTestEvent(database(), { endpointId: endpoint.id, clock, newId });
    // The feed reads the kinds of the catalogue only; a test event is none of them (the disable
    // and the enable are).
    await transactionsSettled(database());
    const feed = await listEvents(database(), { kinds: WEBHOOK_EVENT_KINDS, limit: 50 });
    expect(feed.events.map((event) => event.event)).toEqual([
      'endpoint.disabled',
      'endpoint.enabled',
    ]);
  });
});
