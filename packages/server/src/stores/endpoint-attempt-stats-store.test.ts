import { describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../test/support/database.js';
import { countEndpointAttempts } from './endpoint-attempt-stats-store.js';

describe('countEndpointAttempts', () => {
  const database = useTestDatabase();

  it('counts the attempts of one endpoint in a period, and the 2xx ones among them', async () => {
    await database().query(
      `INSERT INTO webhook_endpoints (id, url, events, state, secret, created_at, updated_at) VALUES
         ('we_a', 'https://a.example.com', ARRAY['*'], 'active', 's', now(), now()),
         ('we_b', 'https://b.example.com', ARRAY['*'], 'active', 's', now(), now());
       INSERT INTO outbox_events (id, event, data, created_at)
         VALUES ('evt_1', 'contact.created', '{}', now());
       INSERT INTO deliveries (id, event_id, endpoint_id, state, attempts, created_at) VALUES
         ('dlv_a', 'evt_1', 'we_a', 'delivered', 4, now()),
         ('dlv_b', 'evt_1', 'we_b', 'delivered', 1, now())`,
    );
    await database().query(
      `INSERT INTO delivery_attempts (delivery_id, started_at, duration_ms, status, error) VALUES
         ('dlv_a', '2026-03-01T08:59:59Z', 10, 200, NULL),
         ('dlv_a', '2026-03-01T09:00:00Z', 10, 503, NULL),
         ('dlv_a', '2026-03-01T09:30:00Z', 10, NULL, 'timeout'),
         ('dlv_a', '2026-03-01T10:00:00Z', 10, 204, NULL),
         ('dlv_a', '2026-03-01T10:00:01Z', 10, 302, NULL),
         ('dlv_a', '2026-03-01T11:00:01Z', 10, 200, NULL),
         ('dlv_b', '2026-03-01T10:00:00Z', 10, 200, NULL)`,
    );
    const since = new Date('2026-03-01T09:00:00Z');
    // Both ends count; the attempt after the end (11:00:01) does not.
    const until = new Date('2026-03-01T11:00:00Z');
    expect(await countEndpointAttempts(database(), { endpointId: 'we_a', since, until })).toEqual({
      attempts: 4,
      succeeded: 1,
    });
    expect(
      await countEndpointAttempts(database(), { endpointId: 'we_none', since, until }),
    ).toEqual({
      attempts: 0,
      succeeded: 0,
    });
  });
});
