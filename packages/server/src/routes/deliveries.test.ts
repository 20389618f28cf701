import { describe, expect, it } from 'vitest';
import { recordTwoAttempts } from '../../test/support/delivery-attempts.js';
import { useTestServer } from '../../test/support/server.js';
import { fanOutEvents } from '../delivery/fan-out.js';
import { createEndpointStore } from '../delivery/webhook-endpoints.js';
import { createIdGenerator } from '../ids.js';
import { recordOutboxEvent } from '../stores/outbox-store.js';
import { roles } from '../tokens/role.js';

describe('GET /api/deliveries/:id/attempts', () => {
  const server = useTestServer();

  async function aDeliveryWithAnAttempt() {
    const { database, clock } = server();
    const newId = createIdGenerator({ now: () => clock.now() });
    await createEndpointStore({ database, clock, newId }).add({
      url: 'https://hooks.example.com/',
    });
    await recordOutboxEvent(
      database,
      { event: 'contact.created', data: { id: 'con_1', firstName: 'Ada', lastName: 'L' } },
      { clock, newId },
    );
    await fanOutEvents(database, { clock, newId });
    const id = await recordTwoAttempts(database);
    return id;
  }

  it('lists every attempt, oldest first, with the start of each answer', async () => {
    const id = await aDeliveryWithAnAttempt();
    const { token } = await server().tokenFor('ADMIN');
    const response = await server().app.inject({
      method: 'GET',
      url: `/api/deliveries/${id}/attempts`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      attempts: [
        {
          startedAt: '2026-03-01T09:00:00.000Z',
          durationMs: 41,
          status: 503,
          error: null,
          responseBody: 'busy, try later',
        },
        {
          startedAt: '2026-03-01T09:01:00.000Z',
          durationMs: 15000,
          status: null,
          error: 'timeout',
          responseBody: null,
        },
      ],
    });
  });

  it.each(roles)('answers %s as its role allows (ADMIN only)', async (role) => {
    const id = await aDeliveryWithAnAttempt();
    const { token } = await server().tokenFor(role);
    const response = await server().app.inject({
      method: 'GET',
      url: `/api/deliveries/${id}/attempts`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.statusCode).toBe(role === 'ADMIN' ? 200 : 403);
  });

  it('answers 404 for an unknown delivery', async () => {
    const { token } = await server().tokenFor('ADMIN');
    const response = await server().app.inject({
      method: 'GET',
      url: '/api/deliveries/dlv_missing/attempts',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: 'not_found' });
  });
});
