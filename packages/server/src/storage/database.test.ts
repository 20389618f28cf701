import { describe, expect, it } from 'vitest';
import { testDriver, useTestDatabase } from '../../test/support/database.js';

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
    // The listening connection went back to the pool: queries still run.
    expect((await database().query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

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
