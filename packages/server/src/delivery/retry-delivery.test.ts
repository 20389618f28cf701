import { describe, expect, it } from 'vitest';
import { FollowUpServerError } from '../errors.js';
import type { DeliveryInfo } from './deliveries.js';
import { retryDelivery } from './retry-delivery.js';

const delivery: DeliveryInfo = {
  id: 'dlv_1',
  eventId: 'evt_1',
  event: 'contact.created',
  endpointId: 'we_1',
  state: 'pending',
  attempts: 0,
  nextAttemptAt: '2026-03-01T09:00:00.000Z',
  lastStatus: null,
  lastError: null,
  createdAt: '2026-03-01T09:00:00.000Z',
  deliveredAt: null,
};

describe('retryDelivery', () => {
  it('asks the store to spare a delivered one unless forced, then wakes the worker once', async () => {
    const asked: unknown[] = [];
    let wakes = 0;
    const store = {
      retry: async (...args: unknown[]) => {
        asked.push(args);
        return delivery;
      },
    };
    const actor = { type: 'portal', subscriber: 'acme' } as const;
    const onOutboxEvent = () => {
      wakes += 1;
    };
    expect(await retryDelivery(store, 'dlv_1', { actor, force: false, onOutboxEvent })).toBe(
      delivery,
    );
    await retryDelivery(store, 'dlv_1', { actor, force: true, onOutboxEvent });
    expect(asked).toEqual([
      ['dlv_1', actor, { exceptDelivered: true }],
      ['dlv_1', actor, { exceptDelivered: false }],
    ]);
    expect(wakes).toBe(2);
  });

  it('wakes nothing when the store refuses the retry', async () => {
    let wakes = 0;
    const refused = new FollowUpServerError({ code: 'delivery_delivered', message: 'Delivered.' });
    const store = {
      retry: async () => {
        throw refused;
      },
    };
    await expect(
      retryDelivery(store, 'dlv_1', {
        actor: { type: 'operator' },
        force: false,
        onOutboxEvent: () => {
          wakes += 1;
        },
      }),
    ).rejects.toBe(refused);
    expect(wakes).toBe(0);
  });
});
