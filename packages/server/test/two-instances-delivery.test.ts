import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { buildServer } from '../src/build-server.js';
import { createDeliveryWorker } from '../src/delivery/delivery-worker.js';
import { createEndpointStore } from '../src/delivery/webhook-endpoints.js';
import type { Database } from '../src/storage/database.js';
import { migrate } from '../src/storage/migrate.js';
import { openPostgresDatabase } from '../src/storage/postgres-database.js';
import { createAccountStore } from '../src/tokens/account-store.js';
import { testDatabaseUrl, testDriver, uniqueSchemaName } from './support/database.js';
import { startSubscriber } from './support/subscriber.js';

const CONTACTS = 1_000;

// Two instances, each with its own pool and worker, as separate processes would have, share the
// deliveries of one PostgreSQL database. (PGlite belongs to one process.)
describe.runIf(testDriver === 'postgres')('outbound delivery on two instances', () => {
  it('wakes the worker of one instance at once for a contact created on the other', async () => {
    const hook = await startSubscriber();
    const schema = uniqueSchemaName();
    const databases = await Promise.all(
      [1, 2].map(() =>
        openPostgresDatabase({ connectionString: testDatabaseUrl(), schema, maxConnections: 3 }),
      ),
    );
    const [first, second] = databases;
    if (!first || !second) throw new Error('two databases expected');
    // Only the first instance delivers, and it would poll once an hour: only a notification
    // from the second instance, sent after its commit, can wake it in time.
    let listening: Promise<unknown> | undefined;
    const worker = createDeliveryWorker({
      database: {
        driver: first.driver,
        query: (sql, params) => first.query(sql, params),
        transaction: (callback) => first.transaction(callback),
        listen: (...args) => {
          listening = first.listen?.(...args);
          return listening as ReturnType<NonNullable<Database['listen']>>;
        },
        close: () => first.close(),
      },
      allowPrivate: true,
      pollIntervalMs: 3_600_000,
    });
    const app = buildServer({ database: second, logger: false });
    try {
      await Promise.all(databases.map((database) => migrate(database)));
      await createEndpointStore({ database: first }).add({ url: hook.url });
      const accounts = createAccountStore({ database: second });
      const account = await accounts.createAccount({ name: 'writer', role: 'AGENT' });
      const { token } = await accounts.issueToken({ accountId: account.id });
      worker.start();
      // Its LISTEN is done: a notification sent from now on reaches it.
      await listening;
      const response = await app.inject({
        method: 'POST',
        url: '/api/contacts',
        headers: { authorization: `Bearer ${token}` },
        payload: { firstName: 'Ada', lastName: 'Lovelace' },
      });
      expect(response.statusCode).toBe(201);
      await hook.waitFor(1);
      expect(JSON.parse(hook.received[0]?.body ?? '{}').data.id).toBe(response.json().id);
    } finally {
      await app.close();
      await worker.close();
      await hook.close();
      await first.query(`DROP SCHEMA ${schema} CASCADE`);
      await Promise.all(databases.map((database) => database.close()));
    }
  });

  it('delivers every event of 1,000 contacts created through both, none twice at once', async () => {
    // The subscriber notes when one delivery is being received twice at the same time.
    const received = new Map<string, number>();
    const receiving = new Map<string, number>();
    let overlaps = 0;
    let total = 0;
    let allReceived: () => void = () => {};
    const done = new Promise<void>((resolve) => {
      allReceived = resolve;
    });
    const subscriber = createServer((request, response) => {
      const id = String(request.headers['x-service-delivery']);
      const active = (receiving.get(id) ?? 0) + 1;
      receiving.set(id, active);
      if (active > 1) overlaps++;
      request.resume();
      request.on('end', () => {
        // Answer on a later turn, so that a concurrent second attempt would be seen.
        setImmediate(() => {
          receiving.set(id, (receiving.get(id) ?? 1) - 1);
          received.set(id, (received.get(id) ?? 0) + 1);
          total++;
          response.writeHead(200).end();
          if (received.size === CONTACTS) allReceived();
        });
      });
    });
    await new Promise<void>((resolve) => subscriber.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(subscriber.address() as AddressInfo).port}/hooks`;

    const schema = uniqueSchemaName();
    const databases = await Promise.all(
      [1, 2].map(() =>
        openPostgresDatabase({ connectionString: testDatabaseUrl(), schema, maxConnections: 4 }),
      ),
    );
    const [first, second] = databases;
    if (!first || !second) throw new Error('two databases expected');
    const instances = databases.map((database) => {
      const worker = createDeliveryWorker({
        database,
        allowPrivate: true,
        concurrency: 4,
        // The property tested is sharing without duplicates, not the per-endpoint limit.
        endpointConcurrency: 32,
      });
      const app = buildServer({
        database,
        logger: false,
        rateLimit: false,
        onOutboxEvent: () => worker.wake(),
      });
      return { worker, app };
    });
    try {
      await Promise.all(databases.map((database) => migrate(database)));
      await createEndpointStore({ database: first }).add({ url });
      const accounts = createAccountStore({ database: first });
      const account = await accounts.createAccount({ name: 'writer', role: 'AGENT' });
      const { token } = await accounts.issueToken({ accountId: account.id });
      for (const instance of instances) instance.worker.start();

      const contactIds: string[] = [];
      for (let batch = 0; batch < CONTACTS / 20; batch++) {
        const responses = await Promise.all(
          Array.from({ length: 20 }, (_, index) =>
            instances[index % 2]?.app.inject({
              method: 'POST',
              url: '/api/contacts',
              headers: { authorization: `Bearer ${token}` },
              payload: { firstName: `Contact ${batch * 20 + index}`, lastName: 'Two' },
            }),
          ),
        );
        for (const response of responses) {
          expect(response?.statusCode).toBe(201);
          contactIds.push(response?.json().id);
        }
      }
      await done;
      await Promise.all(instances.map((instance) => instance.worker.close()));

      expect(overlaps).toBe(0);
      const { rows } = await first.query<{ contact: string; state: string; attempts: number }>(
        `SELECT ev.data->>'id' AS contact, d.state, d.attempts
           FROM deliveries AS d JOIN outbox_events AS ev ON ev.id = d.event_id`,
      );
      expect(rows).toHaveLength(CONTACTS);
      expect(new Set(rows.map((row) => row.contact))).toEqual(new Set(contactIds));
      expect(rows.every((row) => row.state === 'delivered' && row.attempts === 1)).toBe(true);
      const attempts = await first.query<{ count: number }>(
        'SELECT count(*)::int AS count FROM delivery_attempts',
      );
      expect(attempts.rows[0]?.count).toBe(CONTACTS);
      expect(total).toBe(CONTACTS);
      expect([...received.values()].every((count) => count === 1)).toBe(true);
    } finally {
      await Promise.all(instances.map((instance) => instance.app.close()));
      await Promise.all(instances.map((instance) => instance.worker.close()));
      await new Promise<void>((resolve) => subscriber.close(() => resolve()));
      await first.query(`DROP SCHEMA ${schema} CASCADE`);
      await Promise.all(databases.map((database) => database.close()));
    }
  });
});
