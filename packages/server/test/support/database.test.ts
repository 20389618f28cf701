import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/storage/database.js';
import { openTestDatabase, truncateAll } from './database.js';

describe('truncateAll', () => {
  let database: Database;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(async () => {
    await database?.close();
  });

  async function count(table: string): Promise<number> {
    const { rows } = await database.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM ${table}`,
    );
    return rows[0]?.count ?? -1;
  }

  it('empties every table that holds rows, and keeps the migrations', async () => {
    await database.query(
      `INSERT INTO contacts (id, first_name, last_name, lifecycle, created_at, updated_at)
         VALUES ('con_1', 'Ada', 'Lovelace', 'LEAD', now(), now())`,
    );
    await database.query(
      `INSERT INTO deals (id, contact_id, title, stage, amount_cents, currency, created_at, updated_at)
         VALUES ('deal_1', 'con_1', 'A deal', 'OPEN', 100, 'EUR', now(), now())`,
    );
    const migrations = await count('schema_migrations');
    await truncateAll(database);
    expect(await count('contacts')).toBe(0);
    expect(await count('deals')).toBe(0);
    expect(migrations).toBeGreaterThan(0);
    expect(await count('schema_migrations')).toBe(migrations);
  });

  it('restarts the sequences the columns own, those of tables already empty too', async () => {
    const next = async () => {
      const { rows } = await database.query<{ value: string }>(
        `SELECT nextval(pg_get_serial_sequence('outbox_events', 'seq'))::text AS value`,
      );
      return rows[0]?.value;
    };
    await next();
    await next();
    // The outbox is empty: only the sequence moved, as when its rows were deleted since.
    expect(await count('outbox_events')).toBe(0);
    await truncateAll(database);
    expect(await next()).toBe('1');
  });
});
