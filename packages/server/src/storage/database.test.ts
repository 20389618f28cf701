import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import {
  testDatabaseUrl,
  testDriver,
  uniqueSchemaName,
  useTestDatabase,
} from '../../test/support/database.js';
import { buildServer } from '../build-server.js';
import { createDeliveryWorker } from '../delivery/delivery-worker.js';
import { createAccountStore } from '../tokens/account-store.js';
import { migrate } from './migrate.js';
import { DEFAULT_MAX_CONNECTIONS, openPostgresDatabase } from './postgres-database.js';

describe('Database', () => {
  const database = useTestDatabase();

  it('listens to notifications on PostgreSQL until stopped; on PGlite it does nothing', async () => {
    const listen = database().listen;
    if (!listen) throw new Error('the test database passes listen through');
    await expect(listen.call(database(), 'Not A Channel', () => {})).rejects.toThrow(RangeError);
    let notified: () => void = () => {};
    const count = { value: 0 };
    const stop = await listen.call(database(), 'followup_test_channel', () => {
      count.value++;
      notified();
    });
    if (testDriver === 'postgres') {
      const arrived = new Promise<void>((resolve) => {
        notified = resolve;
      });
      await database().transaction(async (transaction) => {
        await transaction.query("SELECT pg_notify('followup_test_channel', 'committed')");
      });
      await arrived;
      expect(count.value).toBe(1);
    }
    await stop();
    expect((await database().query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('sizes the pool by default at twice the CPU cores, 4 to 10', () => {
    expect(DEFAULT_MAX_CONNECTIONS).toBe(Math.min(10, Math.max(4, 2 * availableParallelism())));
  });

  it.runIf(testDriver === 'postgres')(
    'opens DEFAULT_MAX_CONNECTIONS connections for queries when more are asked for at once, and no more',
    async () => {
      const database = await openPostgresDatabase({ connectionString: testDatabaseUrl() });
      try {
        // Every query is asked for in the same turn: the pool opens a connection for each until
        // it holds its most, and the others wait for one of those.
        const asked = DEFAULT_MAX_CONNECTIONS + 3;
        const { rows } = await Promise.all(
          Array.from({ length: asked }, () =>
            database.query<{ pid: number }>('SELECT pg_backend_pid() AS pid'),
          ),
        ).then((results) => ({ rows: results.flatMap((result) => result.rows) }));
        expect(rows).toHaveLength(asked);
        expect(new Set(rows.map((row) => row.pid)).size).toBe(DEFAULT_MAX_CONNECTIONS);
      } finally {
        await database.close();
      }
    },
  );

  it.runIf(testDriver === 'postgres')(
    'listens on connections of its own: a pool of one connection still answers requests while the token cache and the delivery worker listen',
    async () => {
      const schema = uniqueSchemaName();
      const small = await openPostgresDatabase({
        connectionString: testDatabaseUrl(),
        schema,
        maxConnections: 1,
      });
      const worker = createDeliveryWorker({ database: small });
      const app = buildServer({ database: small, logger: false });
      try {
        await migrate(small);
        // The token cache listens for revocations from here on; the worker for wake-ups.
        await app.ready();
        worker.start();
        const accounts = createAccountStore({ database: small });
        const account = await accounts.createAccount({ name: 'small-pool', role: 'READONLY' });
        const { token } = await accounts.issueToken({ accountId: account.id });
        const response = await app.inject({
          method: 'GET',
          url: '/api/contacts?limit=5',
          headers: { authorization: `Bearer ${token}` },
        });
        expect(response.statusCode).toBe(200);
      } finally {
        await worker.close();
        await app.close();
        await small.query(`DROP SCHEMA ${schema} CASCADE`);
        await small.close();
      }
    },
  );

  it.runIf(testDriver === 'postgres')(
    'refuses maxConnections that is not a whole number of at least 1, before connecting',
    async () => {
      for (const maxConnections of [0, -1, 1.5, Number.NaN]) {
        await expect(
          openPostgresDatabase({
            connectionString: 'postgres://nowhere.invalid/x',
            maxConnections,
          }),
        ).rejects.toMatchObject({ code: 'invalid_max_connections' });
      }
    },
  );

  it.runIf(testDriver === 'postgres')(
    "with ownSchemaOnly, lets another schema's <schema>:… notifications pass and delivers the rest",
    async () => {
      const { rows } = await database().query<{ schema: string }>(
        'SELECT current_schema() AS schema',
      );
      const schema = rows[0]?.schema;
      const payloads: (string | undefined)[] = [];
      let arrived: () => void = () => {};
      const stop = await database().listen?.(
        'followup_schema_channel',
        (payload) => {
          payloads.push(payload);
          arrived();
        },
        { ownSchemaOnly: true },
      );
      // Notifications of one transaction arrive in order: the last one tells that all have.
      const all = new Promise<void>((resolve) => {
        arrived = () => {
          if (payloads.at(-1) === 'last') resolve();
        };
      });
      await database().transaction(async (transaction) => {
        for (const payload of [
          `${schema}_elsewhere:tok_1`,
          `${schema}:tok_2`,
          'tok_3',
          '',
          'last',
        ]) {
          await transaction.query("SELECT pg_notify('followup_schema_channel', $1)", [payload]);
        }
      });
      await all;
      expect(payloads).toEqual([`${schema}:tok_2`, 'tok_3', '', 'last']);
      await stop?.();
    },
  );

  it.runIf(testDriver === 'postgres')(
    'tells a listener when its connection is lost, and again once it listens anew',
    async () => {
      const states: boolean[] = [];
      const waiting: { count: number; resolve: () => void }[] = [];
      const stop = await database().listen?.('followup_lost_channel', () => {}, {
        onListening: (listening) => {
          states.push(listening);
          for (const waiter of waiting) if (states.length >= waiter.count) waiter.resolve();
        },
      });
      expect(states).toEqual([true]);
      const next = (count: number) =>
        new Promise<void>((resolve) => waiting.push({ count, resolve }));
      const lost = next(2);
      const back = next(3);
      await database().query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE query = 'LISTEN followup_lost_channel' AND pid <> pg_backend_pid()`,
      );
      await lost;
      expect(states[1]).toBe(false);
      // It reconnects on its own (a second later) and says so.
      await back;
      expect(states.at(-1)).toBe(true);
      await stop?.();
    },
  );

  it('returns the same JavaScript types on both drivers', async () => {
    const { rows } = await database().query<{
      at: string;
      big: string;
      json: unknown;
      bytes: Buffer;
      int: number;
      nothing: null;
    }>(
      `SELECT '2026-01-02T03:04:05.678Z'::timestamptz AS at, 9007199254740993::bigint AS big,
              '{"a":[1,"b"]}'::jsonb AS json, '\\x00ff'::bytea AS bytes, $1::integer AS int,
              NULL AS nothing`,
      [42],
    );
    const row = rows[0];
    expect(row?.at).toBe('2026-01-02T03:04:05.678Z');
    expect(row?.big).toBe('9007199254740993');
    expect(row?.json).toEqual({ a: [1, 'b'] });
    expect(Buffer.isBuffer(row?.bytes)).toBe(true);
    expect([...(row?.bytes ?? [])]).toEqual([0, 255]);
    expect(row?.int).toBe(42);
    expect(row?.nothing).toBeNull();
  });

  it('reports the rows a statement touched', async () => {
    await database().query(
      `INSERT INTO service_accounts (id, name, role, created_at)
       VALUES ('sa_1', 'one', 'ADMIN', now()), ('sa_2', 'two', 'AGENT', now())`,
    );
    const result = await database().query("UPDATE service_accounts SET name = 'x'");
    expect(result.rowCount).toBe(2);
  });

  it('commits a transaction whose callback resolves, and returns its value', async () => {
    const value = await database().transaction(async (transaction) => {
      await transaction.query(
        "INSERT INTO service_accounts (id, name, role, created_at) VALUES ('sa_1', 'a', 'ADMIN', now())",
      );
      return 'done';
    });
    expect(value).toBe('done');
    const { rows } = await database().query('SELECT id FROM service_accounts');
    expect(rows).toEqual([{ id: 'sa_1' }]);
  });

  it('rolls a transaction back when its callback throws, and throws the error again', async () => {
    const failure = new Error('boom');
    await expect(
      database().transaction(async (transaction) => {
        await transaction.query(
          "INSERT INTO service_accounts (id, name, role, created_at) VALUES ('sa_1', 'a', 'ADMIN', now())",
        );
        throw failure;
      }),
    ).rejects.toBe(failure);
    const { rows } = await database().query('SELECT id FROM service_accounts');
    expect(rows).toEqual([]);
    // The connection is usable again.
    expect((await database().query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('rolls back on a failing statement inside a transaction', async () => {
    await expect(
      database().transaction(async (transaction) => {
        await transaction.query(
          "INSERT INTO service_accounts (id, name, role, created_at) VALUES ('sa_1', 'a', 'ADMIN', now())",
        );
        await transaction.query(
          "INSERT INTO service_accounts (id, name, role, created_at) VALUES ('sa_2', 'b', 'OWNER', now())",
        );
      }),
    ).rejects.toThrow(/check constraint/);
    expect((await database().query('SELECT id FROM service_accounts')).rows).toEqual([]);
  });
});
